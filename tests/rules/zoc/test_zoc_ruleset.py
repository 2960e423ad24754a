"""The ``zoc`` ruleset as a plug-in: registry, shipped scenarios, options, queries, purity,
speed, and agreement between the ``reachable`` query and move adjudication."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules import UMPIRE, InvalidQuery, InvalidScenario, RulesError, registry
from app.rules.zoc import ZocRuleset
from app.rules.zoc.catalog import CATALOG, INTERPRETATIONS
from app.rules.zoc.models import Board, State, ZocOptions
from tests.support.props import examples

REPO = Path(__file__).resolve().parents[3]
SCENARIOS = sorted((REPO / "scenarios" / "zoc").glob("*.json"))
RS = registry.get("zoc")


def game(data: dict[str, Any], options: dict[str, Any] | None = None) -> tuple[Any, Any, Any]:
    opts = RS.parse_options(options or {})
    board, state = RS.setup(RS.parse_scenario(data), opts)
    return board, state, opts


def test_registered_on_import() -> None:
    assert isinstance(RS, ZocRuleset)
    assert RS.id == "zoc"
    assert "zoc" in [r.id for r in registry.all_rulesets()]


def test_catalog_has_every_clause_of_section_8() -> None:
    required = {
        "8", "8.exc.mountain", "8.exc.sea", "8.clar.beachhead", "8.exc.policy-hex",
        "8.exc.policy-unit", "8.1", "8.1.clar.nonphasing", "8.1.negation", "8.1.clar.markers",
        "8.1.duration", "8.2", "8.2.operational", "8.2.operational.exceptions",
        "8.2.operational.started-in", "8.2.mud", "8.2.storms-snow", "8.2.reserve", "8.2.supply",
        "8.2.retreat", "8.2.retreat.priorities", "8.2.exploitation",
    }  # fmt: skip
    assert required <= set(CATALOG.ids())
    for section in CATALOG:
        assert section.title and len(section.summary) > 30


def test_options_and_interpretations_match() -> None:
    options = set(ZocOptions.model_fields)
    named = {i.option for i in INTERPRETATIONS if i.option is not None}
    assert options == named
    for interp in INTERPRETATIONS:
        assert interp.id.startswith("zoc.")
        for section in interp.sections:
            assert section in CATALOG
    assert {i.id for i in RS.interpretations} == {i.id for i in INTERPRETATIONS}


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_shipped_scenarios_load(path: Path) -> None:
    board, state, _ = game(json.loads(path.read_text()))
    again_board = RS.load_board(board.model_dump(mode="json"))
    again_state = RS.load_state(state.model_dump(mode="json"))
    assert again_board == board
    assert again_state == state
    assert RS.sides(board).names


def test_example_scenario_is_the_shipped_seed_example() -> None:
    shipped = json.loads((REPO / "scenarios/zoc/seed-example.json").read_text())
    assert RS.example_scenario() == shipped
    from app.rules.base import shipped_scenario

    other = json.loads((REPO / "scenarios/zoc/seed-example-no-infantry.json").read_text())
    assert shipped_scenario("app.rules.zoc.ruleset", "seed-example-no-infantry.json") == other


def test_actor_side() -> None:
    board, state, _ = game(RS.example_scenario() or {})
    move = RS.parse_action({"kind": "move", "unit": "de-inf-1", "path": ["e3207"]})
    assert RS.actor_side(board, state, move) == "axis"
    retreat = RS.parse_action({"kind": "retreat", "unit": "su-18a", "path": [], "length": 1})
    assert RS.actor_side(board, state, retreat) == "soviet"
    phase = RS.parse_action({"kind": "set_phase", "phase": "combat", "phasing_side": "axis"})
    assert RS.actor_side(board, state, phase) == UMPIRE


def test_actions_forbid_extra_fields() -> None:
    with pytest.raises(ValueError):
        RS.parse_action({"kind": "move", "unit": "x", "path": ["e3207"], "speed": 9})
    with pytest.raises(ValueError):
        RS.parse_action({"kind": "move", "unit": "x", "path": []})


def test_apply_refuses_an_illegal_ruling() -> None:
    data = json.loads((REPO / "scenarios/zoc/seed-example-no-infantry.json").read_text())
    board, state, opts = game(data)
    action = RS.parse_action({"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]})
    ruling = RS.adjudicate(board, state, action, opts)
    assert not ruling.legal
    with pytest.raises(RulesError):
        RS.apply(board, state, action, ruling)


def test_queries_reject_unknown_names() -> None:
    board, state, opts = game(RS.example_scenario() or {})
    queries = RS.queries()
    assert set(queries) == {"ezoc-map", "reachable", "supply"}
    # the message is the 4xx problem's detail: it names what is wrong
    with pytest.raises(InvalidQuery, match="unknown side 'martians'"):
        queries["ezoc-map"].run(board, state, opts, {"side": "martians"})
    with pytest.raises(InvalidQuery, match="unknown unit 'nobody'"):
        queries["reachable"].run(board, state, opts, {"unit": "nobody"})
    with pytest.raises(InvalidQuery, match="unknown unit 'nobody'"):
        queries["supply"].run(board, state, opts, {"unit": "nobody"})
    with pytest.raises(InvalidQuery, match="unknown side 'martians'"):
        queries["supply"].run(board, state, opts, {"side": "martians"})
    with pytest.raises(InvalidQuery, match=r"^give exactly one of 'unit' or 'side'$"):
        queries["supply"].run(board, state, opts, {})
    with pytest.raises(
        InvalidQuery,
        match=r"^give both 'near' and 'within' \(an area\), or neither \(the whole map\)$",
    ):
        queries["ezoc-map"].run(board, state, opts, {"side": "axis", "near": "e3207"})
    with pytest.raises(InvalidQuery, match="not on the map"):
        queries["ezoc-map"].run(board, state, opts, {"side": "axis", "near": "z9999", "within": 2})
    off = RS.apply(
        board,
        state,
        place := RS.parse_action({"kind": "place_unit", "unit": "de-inf-1", "hex": None}),
        RS.adjudicate(board, state, place, opts),
    )
    with pytest.raises(InvalidQuery, match="unit 'de-inf-1' is not on the map"):
        queries["reachable"].run(board, off, opts, {"unit": "de-inf-1"})


def test_scenario_refusal_says_what_it_refuses() -> None:
    """InvalidScenario's message is the 4xx problem's title for a refused zoc scenario."""
    data = RS.example_scenario() or {}
    with pytest.raises(InvalidScenario, match=r"^the zoc scenario is inconsistent: 1 problem"):
        RS.setup(RS.parse_scenario({**data, "phasing_side": "martians"}), RS.parse_options({}))


def test_queries_accept_stored_json() -> None:
    """The service may pass the stored JSON of board, state and options."""
    board, state, _ = game(RS.example_scenario() or {})
    result = RS.queries()["ezoc-map"].run(
        board.model_dump(mode="json"), state.model_dump(mode="json"), {}, {"side": "axis"}
    )
    assert result["hexes"]["e3207"]["negated"] is True


FORBIDDEN = re.compile(
    r"^\s*(import|from)\s+(fastapi|starlette|sqlalchemy|httpx|requests|random|secrets|time|"
    r"datetime|uvicorn)\b"
)


def test_rules_core_is_pure() -> None:
    for path in (REPO / "app/rules/zoc").rglob("*.py"):
        for line in path.read_text().splitlines():
            assert not FORBIDDEN.match(line), f"{path.name}: {line}"
    for path in (REPO / "app/rules/geometry").rglob("*.py"):
        for line in path.read_text().splitlines():
            assert not FORBIDDEN.match(line), f"{path.name}: {line}"


# -- a big map --------------------------------------------------------------------------------


def big_scenario() -> dict[str, Any]:
    units = [
        {
            "id": f"su-{i}",
            "side": "soviet",
            "movement_allowance": 3,
            "hex": f"{20 + (i % 5) * 2:02d}{5 + (i // 5) * 6:02d}",
        }
        for i in range(25)
    ]
    units.append({"id": "de-1", "side": "axis", "movement_allowance": 12, "hex": "0520"})
    units.append({"id": "de-2", "side": "axis", "movement_allowance": 6, "hex": "0521"})
    return {
        "areas": [{"cols": [0, 39], "rows": [0, 39], "weather_zone": "all"}],
        "hexes": {f"{c:02d}15": {"terrain": "forest"} for c in range(3, 30)},
        "hexsides": {"1010/1011": ["river"], "1110/1111": ["mountain"]},
        "sides": [{"id": "axis"}, {"id": "soviet"}],
        "units": units,
        "supply": {"sources": {"axis": ["0000"], "soviet": ["3939"]}, "max_length": 12},
        "phasing_side": "axis",
    }


def test_reachable_on_a_40x40_map_covers_the_map_around_the_unit() -> None:
    """A big map works end to end (speed is measured in bench/, never asserted here)."""
    board, state, opts = game(big_scenario())
    result = RS.queries()["reachable"].run(board, state, opts, {"unit": "de-1"})
    assert len(result["reachable"]) > 100
    zmap = RS.queries()["ezoc-map"].run(board, state, opts, {"side": "axis"})
    assert zmap["hexes"]
    action = RS.parse_action({"kind": "move", "unit": "de-1", "path": ["0620", "0720"]})
    assert RS.adjudicate(board, state, action, opts).legal


# -- reachable agrees with adjudication ---------------------------------------------------------

HEXES = [f"{c:02d}{r:02d}" for c in range(1, 8) for r in range(1, 8)]
PHASES = ["operational_movement", "exploitation", "reserve_movement"]


@st.composite
def small_games(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    cells = draw(st.lists(st.sampled_from(HEXES), min_size=3, max_size=8, unique=True))
    mover, *others = cells
    units = [
        {"id": "m", "side": "axis", "movement_allowance": draw(st.integers(1, 5)), "hex": mover}
    ]
    for i, h in enumerate(others):
        side = draw(st.sampled_from(["axis", "soviet", "soviet"]))
        units.append({"id": f"u{i}", "side": side, "movement_allowance": 2, "hex": h})
    terrain = {
        h: {"terrain": draw(st.sampled_from(["clear", "forest", "swamp", "clear"]))}
        for h in draw(st.lists(st.sampled_from(HEXES), max_size=6, unique=True))
    }
    markers = []
    if draw(st.booleans()):
        markers.append(
            {"id": "ad", "kind": "airdrop", "side": "axis", "hex": draw(st.sampled_from(HEXES))}
        )
    scenario = {
        "areas": [{"cols": [1, 7], "rows": [1, 7], "weather_zone": "z"}],
        "hexes": terrain,
        "hexsides": {"0303/0304": ["mountain"], "0404/0405": ["river"]},
        "sides": [{"id": "axis"}, {"id": "soviet"}],
        "units": units,
        "markers": markers,
        "weather": {"z": draw(st.sampled_from(["clear", "mud", "snow", "storms"]))},
        "phase": draw(st.sampled_from(PHASES)),
        "phasing_side": "axis",
    }
    options = {
        "started_in_ezoc_exempt": draw(st.booleans()),
        "storms_stop_on_leaving_start": draw(st.booleans()),
        "reserve_negation": draw(st.booleans()),
    }
    return scenario, options


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_games())
def test_reachable_paths_are_legal_moves(game_data: tuple[dict[str, Any], dict[str, Any]]) -> None:
    scenario, options = game_data
    board, state, opts = game(scenario, options)
    result = RS.queries()["reachable"].run(board, state, opts, {"unit": "m"})
    if not result["can_move"]:
        return
    for hex_id, entry in result["reachable"].items():
        action = RS.parse_action({"kind": "move", "unit": "m", "path": entry["path"]})
        ruling = RS.adjudicate(board, state, action, opts)
        assert ruling.legal, (hex_id, entry, ruling.summary)
        assert ruling.details["cost"] == entry["cost"]
        assert (ruling.details["stop_hex"] == hex_id) == entry["must_stop"], (hex_id, entry)
    for hex_id in result["unreachable"]:
        # no single step from the start reaches an unreachable neighbour legally
        if hex_id in [n for n in _neighbours(board, state)]:
            action = RS.parse_action({"kind": "move", "unit": "m", "path": [hex_id]})
            assert not RS.adjudicate(board, state, action, opts).legal


def _neighbours(board: Board, state: State) -> list[str]:
    from app.rules.zoc.topology import topology

    start = next(u.hex for u in state.units if u.id == "m")
    assert start is not None
    return [n for n, _ in topology(board).neighbors[start]]


def test_docs_cover_catalog_interpretations_and_options() -> None:
    text = (REPO / "docs/rulesets/zoc.md").read_text()
    for section in CATALOG.ids():
        assert f"`{section}`" in text, section
    for interp in INTERPRETATIONS:
        assert f"`{interp.id}`" in text, interp.id
    for option in ZocOptions.model_fields:
        assert f"`{option}`" in text, option


def test_sequence_of_play_and_advance_phase() -> None:
    board, state, opts = game(RS.example_scenario() or {})
    seq = RS.sequence_of_play(board)
    assert seq is not None
    assert [p.id for p in seq.phases] == [
        "operational_movement",
        "combat",
        "exploitation",
        "reserve_movement",
    ]
    assert seq.citation.section in CATALOG
    assert RS.position(board, state) is not None
    # de-inf-1 moves, then the phase advances: start positions follow, 'moved' is cleared.
    action = RS.parse_action({"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]})
    state = RS.apply(board, state, action, RS.adjudicate(board, state, action, opts))
    seen = []
    for _ in range(8):
        state = RS.advance_phase(board, state)
        seen.append((state.turn, state.phase, state.phasing_side))
        assert state.moved == []
        assert state.start_positions["de-inf-1"] == "e3307"
    assert seen[2] == (1, "reserve_movement", "axis")
    assert seen[3] == (1, "operational_movement", "soviet")
    assert seen[7] == (2, "operational_movement", "axis")


def test_terms_are_read_as_players_write_them() -> None:
    """Weather, phases, hexside features and markers ignore case, spaces and hyphens."""
    from app.rules.zoc.models import _term

    assert _term("All-Sea") == "all_sea"
    assert _term("Partisan Base") == "partisan_base"
    assert _term("Operational Movement") == "operational_movement"
    assert _term("Storm") == "storms"
    assert _term("mud") == "mud"


def test_generated_size_counts_area_hexes() -> None:
    """The service bounds a scenario's size before setup by the hexes its areas generate: each
    rectangle's columns times rows, a reversed range counting none."""
    data = {
        **(RS.example_scenario() or {}),
        "areas": [
            {"prefix": "e", "cols": [30, 36], "rows": [3, 10]},  # 7 x 8
            {"prefix": "f", "cols": [5, 4], "rows": [1, 3]},  # reversed columns: none
            {"prefix": "g", "cols": [2, 4], "rows": [6, 5]},  # reversed rows: none
            {"prefix": "h", "cols": [1, 1], "rows": [2, 2]},  # one hex
        ],
    }
    assert RS.generated_size(RS.parse_scenario(data)) == 57
    assert RS.generated_size(data) == 0  # not a parsed scenario: nothing is generated


def test_negative_movement_cost_is_refused_by_name() -> None:
    """A negative terrain or hexside cost is refused, and the message names the entry."""
    from pydantic import ValidationError

    from app.rules.zoc.models import MovementCosts

    with pytest.raises(ValidationError, match="cost of 'rough' must not be negative"):
        MovementCosts(terrain={"rough": -1})
    with pytest.raises(ValidationError, match="cost of 'river' must not be negative"):
        MovementCosts(hexside={"river": -2})
