"""The ``zoi`` ruleset as a plug-in: registry, example scenario, setup checks, purity."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from app.rules import UMPIRE, InvalidScenario, registry
from app.rules.zoi import CATALOG, INTERPRETATIONS, ZoiOptions, ZoiRuleset
from app.rules.zoi.facing import front_directions
from app.rules.zoi.models import FrontSpec

ROOT = Path(__file__).resolve().parents[3]
RS = ZoiRuleset()


def _example() -> dict[str, Any]:
    example = RS.example_scenario()
    assert example is not None
    return example


def _setup(scenario: dict[str, Any]) -> Any:
    return RS.setup(RS.parse_scenario(scenario), RS.parse_options({}))


def test_registered_on_import() -> None:
    assert isinstance(registry.get("zoi"), ZoiRuleset)
    assert RS.id == "zoi"
    assert "zoi" in [r.id for r in registry.all_rulesets()]


def test_example_json_matches_example_scenario() -> None:
    shipped = json.loads((ROOT / "scenarios" / "zoi" / "example.json").read_text("utf-8"))
    assert shipped == RS.example_scenario()


def test_example_dry_run_then_real_submission() -> None:
    """What the API does: validate, adjudicate (dry run), then adjudicate + apply for real."""
    options = RS.parse_options({})
    board, state = _setup(_example())
    board = RS.load_board(json.loads(json.dumps(board.model_dump(mode="json"))))
    state = RS.load_state(json.loads(json.dumps(state.model_dump(mode="json"))))
    column = RS.parse_action(
        {
            "kind": "move",
            "unit": "fr-4-2",
            "steps": [{"do": "enter", "hex": h} for h in ("0607", "0606", "0605")],
        }
    )
    assert RS.actor_side(board, state, column) == "french"
    dry = RS.adjudicate(board, state, column, options)
    assert dry.legal, dry.summary
    assert [e.kind for e in dry.effects] == ["zoi.zone_entered", "zoi.must_stop"]
    assert dry.effects[-1].hex == "0605" and dry.effects[-1].by == ("aus-ir49",)
    json.dumps(dry.model_dump(mode="json"))
    state = RS.apply(board, state, column, dry)
    assert next(u for u in state.units if u.id == "fr-4-2").hex == "0605"

    cuirassiers = RS.parse_action(
        {
            "kind": "move",
            "unit": "fr-cuir-1",
            "steps": [
                {"do": "enter", "hex": h} for h in ("0808", "0707", "0706", "0705", "0704", "0703")
            ],
        }
    )
    ruling = RS.adjudicate(board, state, cuirassiers, options)
    assert ruling.legal, ruling.summary
    fire = [e for e in ruling.effects if e.kind == "zoi.opportunity_fire"]
    assert [(e.hex, e.by, e.details["reason"]) for e in fire] == [("0704", ("aus-ir49",), "exit")]
    state = RS.apply(board, state, cuirassiers, ruling)

    # the French column, now in the zone, is a defensive-fire target
    df = RS.queries()["defensive-fire"].run(board, state, options, {})
    assert [(t["unit"], t["by"]) for t in df["targets"]] == [("fr-4-2", ["aus-ir49"])]
    json.dumps(df)

    # hussars stop the cuirassiers' second move? No: a unit moves once per phase.
    again = RS.adjudicate(board, state, cuirassiers, options)
    # ... and the same path no longer starts next to the cuirassiers' hex: both are named
    assert [v.code for v in again.violations] == ["zoi.already_moved", "zoi.not_adjacent"]

    phase = RS.parse_action({"kind": "set_phase", "phase": "movement", "phasing": "austrian"})
    assert RS.actor_side(board, state, phase) == UMPIRE
    state = RS.apply(board, state, phase, RS.adjudicate(board, state, phase, options))
    assert state.phasing == "austrian" and state.moved == []
    json.dumps(RS.view(board, state, None))


def test_example_queries_are_json() -> None:
    options = RS.parse_options({})
    board, state = _setup(_example())
    zm = RS.queries()["zone-map"].run(board, state, options, {"side": "austrian"})
    assert {h["hex"] for h in zm["hexes"]} == {"0605", "0704", "0905", "1005"}
    reach = RS.queries()["reachable"].run(board, state, options, {"unit": "fr-cuir-1"})
    by_hex = {h["hex"]: h for h in reach["hexes"]}
    assert by_hex["0905"]["paths"][0]["must_stop"] is True
    json.dumps(zm), json.dumps(reach)


def test_actions_are_strict() -> None:
    with pytest.raises(ValidationError):
        RS.parse_action({"kind": "move", "unit": "x", "steps": [{"do": "fly", "hex": "0101"}]})
    with pytest.raises(ValidationError):
        RS.parse_action({"kind": "move", "unit": "x", "steps": [], "extra": 1})
    with pytest.raises(ValidationError):
        RS.parse_action({"kind": "move", "unit": "x", "steps": [{"do": "face", "facing": 6}]})


def _unit(**fields: Any) -> dict[str, Any]:
    base = {"id": "a", "side": "french", "type": "infantry", "subtype": "line", "hex": "0101"}
    return {**base, "ma": 6, "formation": "column", "facing": 0, **fields}


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"units": [_unit(hex="9999")]}, "not on the map"),
        ({"units": [_unit(side="prussian")]}, "unknown side"),
        ({"units": [_unit(facing=None)]}, "needs a facing"),
        ({"units": [_unit(formation="wedge")]}, "facing table"),
        ({"units": [_unit(type="cavalry", subtype=None, formation="line")]}, "subtype"),
        ({"units": [_unit(), _unit(hex="0102")]}, "duplicate unit id"),
        ({"units": [_unit(), _unit(id="b", side="austrian")]}, "share"),
        ({"units": [_unit(type="leader", subtype=None)]}, "leaders have no formation"),
        ({"map": {"columns": [1, 3], "rows": [1, 3], "terrain": {"0202": "lava"}}}, "terrain"),
    ],
)
def test_inconsistent_scenarios_are_rejected(patch: dict[str, Any], message: str) -> None:
    scenario = {**_example(), **patch}
    with pytest.raises(InvalidScenario) as info:
        _setup(scenario)
    assert message in str(info.value)
    assert info.value.errors


def test_bad_front_table_row_is_a_validation_error() -> None:
    scenario = {
        **_example(),
        "front_table": {"infantry.line": {"faces": "vertex", "front": 3}},
    }
    with pytest.raises(ValidationError):
        RS.parse_scenario(scenario)


@pytest.mark.parametrize(
    ("faces", "front", "facing", "expected"),
    [
        ("hexside", 1, 4, (4,)),
        ("hexside", 3, 0, (0, 1, 5)),
        ("hexside", 5, 3, (1, 2, 3, 4, 5)),
        ("vertex", 2, 5, (0, 5)),
        ("vertex", 4, 2, (1, 2, 3, 4)),
        ("all", 6, None, (0, 1, 2, 3, 4, 5)),
        ("none", 0, None, ()),
    ],
)
def test_front_directions(
    faces: str, front: int, facing: int | None, expected: tuple[int, ...]
) -> None:
    spec = FrontSpec.model_validate({"faces": faces, "front": front})
    assert front_directions(spec, facing) == expected


def test_every_interpretation_has_an_option_and_sections() -> None:
    fields = ZoiOptions.model_fields
    for i in INTERPRETATIONS:
        assert i.id.startswith("zoi.")
        assert i.option in fields, i.id
        for s in i.sections:
            assert s in CATALOG, (i.id, s)
    assert len({i.option for i in INTERPRETATIONS}) == len(fields)


def test_catalog_clauses_follow_the_text_order() -> None:
    ids = CATALOG.ids()
    assert ids[0] == "14"
    assert ids.index("14.zone") < ids.index("14.carre") < ids.index("14.defensive-fire")
    assert ids.index("14.stop.infantry-artillery") < ids.index("14.stop.cavalry")
    assert ids.index("14.opportunity.exit") < ids.index("14.melee-retreat")
    assert all(CATALOG.get(i).summary for i in ids)


def test_rules_core_imports_nothing_impure() -> None:
    banned = re.compile(
        r"^\s*(import|from)\s+(fastapi|starlette|sqlalchemy|httpx|requests|random|secrets|time"
        r"|datetime|uvicorn)\b",
        re.M,
    )
    for path in (ROOT / "app" / "rules" / "zoi").glob("*.py"):
        assert not banned.search(path.read_text("utf-8")), path


def test_apply_rejects_illegal_ruling() -> None:
    from app.rules import RulesError

    options = RS.parse_options({})
    board, state = _setup(_example())
    bad = RS.parse_action(
        {"kind": "move", "unit": "fr-4-2", "steps": [{"do": "enter", "hex": "0101"}]}
    )
    ruling = RS.adjudicate(board, state, bad, options)
    assert not ruling.legal
    with pytest.raises(RulesError):
        RS.apply(board, state, bad, ruling)


def test_move_path_shorthand_is_a_list_of_enter_steps() -> None:
    rs = ZoiRuleset()
    short = rs.parse_action({"kind": "move", "unit": "fr-4-2", "path": ["0607", "0606"]})
    long = rs.parse_action(
        {
            "kind": "move",
            "unit": "fr-4-2",
            "steps": [{"do": "enter", "hex": "0607"}, {"do": "enter", "hex": "0606"}],
        }
    )
    assert short == long
    # the normalised form round-trips (stored actions re-parse)
    assert rs.parse_action(short.model_dump(mode="json")) == long


@pytest.mark.parametrize(
    "bad",
    [
        {"kind": "move", "unit": "u", "path": []},
        {"kind": "move", "unit": "u"},
        {"kind": "move", "unit": "u", "steps": []},
        {"kind": "move", "unit": "u", "path": ["0101"], "steps": [{"do": "face", "facing": 1}]},
    ],
)
def test_move_needs_steps_or_path_not_both(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ZoiRuleset().parse_action(bad)


def test_sequence_of_play_rotates_phases_sides_and_turns() -> None:
    """The sequence of play: six phases per player turn, defensive fire by the non-phasing
    side, movement phase start positions recorded (rule 14: exits only at the start)."""
    import json
    from pathlib import Path

    from app.rules import registry

    rs = registry.get("zoi")
    example = Path(__file__).resolve().parents[3] / "scenarios" / "zoi" / "example.json"
    opts = rs.parse_options({})
    board, state = rs.setup(rs.parse_scenario(json.loads(example.read_text())), opts)
    seq = rs.sequence_of_play(board)
    assert seq is not None and seq.citation.section == "sequence"
    assert [p.id for p in seq.phases][:3] == ["charges", "movement", "defensive_fire"]
    assert seq.phase("defensive_fire").acts == "non_phasing"
    pos = rs.position(board, state)
    assert pos is not None and (pos.turn, pos.phase, pos.phasing_side) == (1, "movement", "french")
    seen = []
    for _ in range(12):
        state = rs.advance_phase(board, state)
        p = rs.position(board, state)
        assert p is not None
        seen.append((p.turn, p.phase, p.phasing_side))
    assert seen[4] == (1, "charges", "austrian")
    assert seen[5] == (1, "movement", "austrian")
    assert seen[10] == (2, "charges", "french")
    assert seen[11] == (2, "movement", "french")
    assert state.phase_start == {u.id: u.hex for u in state.units if u.side == "french"}


def test_an_oversized_map_is_refused_before_it_is_built() -> None:
    """A tiny request must not make the service build a huge board (a bound on work)."""
    import pytest

    from app.rules import InvalidScenario, registry

    rs = registry.get("zoi")
    scenario = rs.parse_scenario(
        {
            "map": {
                "layout": {"col_digits": 4, "row_digits": 4},
                "columns": [0, 9999],
                "rows": [0, 9999],
            },
            "sides": [{"id": "a"}, {"id": "b"}],
            "units": [],
            "phasing": "a",
        }
    )
    with pytest.raises(InvalidScenario) as err:
        rs.setup(scenario, rs.parse_options({}))
    assert "more than" in str(err.value.errors)


def test_formation_names_are_read_as_players_write_them() -> None:
    """``Carré``/``square``, ``General Order``, ``road-march`` name the table's formations."""
    from app.rules.zoi.models import normalize_formation

    assert normalize_formation("Carré") == "carre"
    assert normalize_formation("square") == "carre"
    assert normalize_formation("General Order") == "general_order"
    assert normalize_formation("road-march") == "road_march"
    assert normalize_formation("line") == "line"
