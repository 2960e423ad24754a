"""The battlefield ruleset's match-flow hooks, which the service calls and no rule case reaches:
sides and their labels, whose unit is whose, where the game stands in the zone part's
sequence of play, a sealed order judged on submission, what a seat may do now, and the
refusal of an inconsistent scenario (issue 14, mutation round; docs/mutation/battlefield.md).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.rules import InvalidQuery, InvalidScenario, registry
from app.rules.base import UMPIRE
from tests.rules.rule_cases import REPO

RS = registry.get("battlefield")
OPTIONS = RS.parse_options({})
BATTLE = REPO / "scenarios/battlefield/millers-crossing.json"


def _doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(BATTLE.read_text("utf-8"))
    return doc


def _game(doc: dict[str, Any] | None = None) -> tuple[Any, Any]:
    return RS.setup(RS.parse_scenario(doc or _doc()), OPTIONS)


def test_the_sides_and_their_labels_come_from_the_scenario() -> None:
    board, _ = _game()
    sides = RS.sides(board)
    assert sides.names == ("union", "confederate")
    assert dict(sides.labels) == {"union": "Union", "confederate": "Confederate"}


def test_a_unit_belongs_to_its_side_on_the_table_or_in_a_zone() -> None:
    board, state = _game()
    assert RS.unit_side(board, state, "us-1") == "union"
    assert RS.unit_side(board, state, "cs-1va") == "confederate"  # on the village's display
    assert RS.unit_side(board, state, "us-99") is None


def test_the_zone_parts_sequence_of_play() -> None:
    board, state = _game()
    sequence = RS.sequence_of_play(board)
    assert sequence is not None
    assert [p.id for p in sequence.phases] == [
        "charge_declaration",
        "movement",
        "initial_fire",
        "secondary_fire",
        "objective_combat",
    ]
    at = RS.position(board, state)
    assert at is not None and (at.turn, at.phase, at.phasing_side) == (
        1,
        "charge_declaration",
        "union",
    )
    later = RS.position(board, RS.advance_phase(board, state))
    assert later is not None and (later.turn, later.phase) == (1, "movement")


def _allocation() -> tuple[Any, Any, Any]:
    doc = _doc()
    for unit in doc["units"]:
        if unit["id"] == "us-1":
            unit["at"] = [752, 418]
    board, state = _game(doc)
    charge = RS.parse_action({"kind": "charge", "unit": "us-1", "path": [[758, 520]]})
    state = RS.apply(board, state, charge, RS.adjudicate(board, state, charge, OPTIONS))
    for _ in range(4):
        state = RS.advance_phase(board, state)
    return board, state, RS.sealed_decisions(board, state)["allocation:village:t1"]


def test_a_sealed_order_is_judged_by_the_zone_rules() -> None:
    board, state, decision = _allocation()
    good = decision.order_model.model_validate({"sectors": {"1": ["cs-1va", "cs-bty"]}})
    ruling = RS.judge_order(board, state, decision, "confederate", good, OPTIONS)
    assert ruling.legal, ruling.summary
    bad = decision.order_model.model_validate({"sectors": {"1": ["us-1", "cs-cav"]}})
    ruling = RS.judge_order(board, state, decision, "union", bad, OPTIONS)
    assert [v.code for v in ruling.violations] == ["oz.not_your_unit"]
    assert {c.section for c in ruling.citations} == {"OZ.Assault.B.1"}


def test_the_umpire_is_offered_every_sides_units_and_a_spent_unit_nothing() -> None:
    doc = _doc()
    doc["units"].append({"id": "cs-spent", "side": "confederate", "men": 1, "at": [1400, 100]})
    doc["units"].append({"id": "us-wagon", "side": "union", "type": "wagon", "at": [1300, 200]})
    board, state = _game(doc)
    # setup refuses a unit with no men (objective-zones.scenario.no_castings): spend it by hand
    zunits = [
        u.model_copy(update={"men": 0}) if u.id == "cs-spent" else u for u in state.zones.units
    ]
    state = state.model_copy(update={"zones": state.zones.model_copy(update={"units": zunits})})
    state = RS.advance_phase(board, state)  # movement
    offered = RS.available_actions(board, state, OPTIONS, UMPIRE)
    units = {u.unit: u for u in offered.units}
    assert {"us-1", "us-sk", "cs-cav", "cs-1va"} <= set(units)
    assert "cs-spent" not in units  # no men left: it acts no more
    assert units["cs-cav"].kinds == ("move", "hold")
    assert [c.section for c in units["cs-cav"].citations] == [
        "OZ.Sequence",
        "BF.Enter",
        "BF.Posture",
    ]
    assert units["us-wagon"].kinds == ("move", "hold")  # no part of the zone rules
    assert [c.section for c in units["us-wagon"].citations] == [
        "OZ.Sequence",
        "BF.Table",
        "BF.Posture",
    ]
    assert offered.kinds == tuple(sorted({k for u in offered.units for k in u.kinds}))
    assert not offered.notes


def test_an_inconsistent_scenario_is_refused_as_a_whole() -> None:
    doc = _doc()
    doc["units"].append({"id": "us-lost", "side": "union", "at": [1700, 200]})
    with pytest.raises(InvalidScenario, match="the battlefield scenario is inconsistent") as info:
        _game(doc)
    assert str(info.value).startswith("the battlefield scenario is inconsistent: ")


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("line-of-sight", {"from": [1000, 650], "to": [1400, 650]}),
        ("line-of-sight", {"from": [490, 200], "to": [560, 200]}),  # out of the orchard
        ("terrain-at", {"at": [400, 200]}),
    ],
)
def test_the_terrain_queries_are_asked_of_the_table(name: str, params: dict[str, Any]) -> None:
    """``queries._terrain_query`` (run when the query table is built): the terrain part's own
    query, asked of the table as it stands (units on a zone's display are not on it)."""
    from app.rules.battlefield import queries
    from app.rules.battlefield.moves import TERRAIN
    from app.rules.battlefield.table import table_view

    board, state = _game()
    options = RS.parse_options({"los_from_inside": "sees_out"})  # not the default reading
    spec = TERRAIN.queries()[name]
    parsed = spec.params.model_validate(params)
    run = queries._terrain_query(name)
    answer = run(RS.context(board, state, options, ()), parsed)
    view = table_view(board, state)
    assert answer == spec.run(board.table, view, options.terrain(), parsed)
    assert answer == RS.queries()[name].run(board, state, options, parsed)
    if params.get("from") == [490, 200]:
        assert answer["clear"] is True  # seen out of the orchard under the option


def test_a_scenario_a_part_refuses_says_so() -> None:
    doc = _doc()
    # only a wagon: the zone part's schema refuses a scenario without units
    doc["units"] = [{"id": "us-wagon", "side": "union", "type": "wagon", "at": [1300, 200]}]
    with pytest.raises(
        InvalidScenario, match="a part of the battlefield refuses the scenario"
    ) as info:
        _game(doc)
    assert str(info.value).startswith("a part of the battlefield refuses the scenario: ")


def test_a_query_about_what_is_not_there_names_it() -> None:
    board, state = _game()
    with pytest.raises(InvalidQuery, match="unknown zone 'mill'"):
        RS.queries()["zone"].run(board, state, OPTIONS, {"zone": "mill"})
    with pytest.raises(InvalidQuery, match="unknown unit 'us-99'"):
        RS.queries()["cover"].run(board, state, OPTIONS, {"unit": "us-99"})


def test_an_allocation_is_validated_on_the_zone_part_with_the_games_options() -> None:
    """``models.Allocation.zone_game`` (the service's validation context): the zone part of a
    battlefield game, the submitting side and the game's options (the board's when the
    context has none); anything else in the context is no battlefield game."""
    from app.rules.battlefield.models import Allocation

    board, state = _game()
    side = "confederate"
    options = RS.parse_options({"outside_reinforcements": False, "attack_every_sector": False})
    got = Allocation.zone_game({"board": board, "state": state, "side": side, "options": options})
    assert got == (board.zones, state.zones, side, options.zones())
    assert got is not None and got[3] != board.options.zones()
    fallback = Allocation.zone_game({"board": board, "state": state, "side": side})
    assert fallback == (board.zones, state.zones, side, board.options.zones())
    assert Allocation.zone_game({"board": board, "state": state, "side": 1}) is None
    assert Allocation.zone_game({"board": board, "state": None, "side": side}) is None
    assert Allocation.zone_game({"board": None, "state": state, "side": side}) is None


def test_the_sealed_allocation_is_resolved_and_applied_with_the_games_options() -> None:
    """``resolve_sealed`` hands the game's options to the zone part (read without
    ``attack_every_sector`` an attacker may leave a sector unattacked, refused by default), and
    ``apply_sealed`` the orders it resolved."""
    from app.rules.battlefield.moves import ZONES
    from app.rules.battlefield.table import sync_table

    board, state, decision = _allocation()
    did = "allocation:village:t1"
    orders = {
        "confederate": decision.order_model.model_validate(
            {"sectors": {"1": ["cs-1va", "cs-bty"]}}
        ),
        "union": decision.order_model.model_validate({"sectors": {"1": ["us-1"]}}),
    }
    dice = [5] * len(RS.sealed_dice_needed(board, state, did, orders))
    refused = RS.resolve_sealed(board, state, did, orders, OPTIONS, dice)
    assert [v.code for v in refused.violations] == ["oz.sector_without_infantry"]
    lenient = RS.parse_options({"attack_every_sector": False})
    ruling = RS.resolve_sealed(board, state, did, orders, lenient, dice)
    assert ruling.legal, ruling.summary
    assert ruling == ZONES.resolve_sealed(
        board.zones, state.zones, did, orders, lenient.zones(), dice
    )
    assert [e.kind for e in ruling.effects][:2] == ["oz.casualties", "oz.engaged"]
    after = RS.apply_sealed(board, state, did, orders, ruling)
    zones = ZONES.apply_sealed(board.zones, state.zones, did, orders, ruling)
    assert after == sync_table(board, state, zones)
    assert after.zones != state.zones


def test_a_sealed_order_is_judged_under_the_games_options() -> None:
    """oz.attack-every-sector: union's allocation for the village names infantry in sector 1
    only; under the default reading every sector needs attacking infantry (OZ.Assault.B.4),
    under the game's ``attack_every_sector: false`` the order stands."""
    board, state, decision = _allocation()
    order = decision.order_model.model_validate({"sectors": {"1": ["us-1"]}})
    strict = RS.judge_order(board, state, decision, "union", order, OPTIONS)
    assert [(v.code, v.location) for v in strict.violations] == [
        ("oz.sector_without_infantry", "/sectors/2")
    ]
    lenient = RS.parse_options({"attack_every_sector": False})
    assert RS.judge_order(board, state, decision, "union", order, lenient).legal


def test_a_unit_with_nothing_to_do_now_does_not_hide_the_others() -> None:
    """What a seat may do, phase by phase: a wagon listed first has nothing to do in the fire
    phases (it is no part of the zone rules and fires not), the units after it are still
    offered their fire; a unit with one casting left still acts; Objective Combat offers no
    unit action and says the allocations are sealed orders (OZ.Assault.B.1)."""
    doc = _doc()
    doc["units"].insert(0, {"id": "us-wagon", "side": "union", "type": "wagon", "at": [1300, 200]})
    doc["units"].append({"id": "cs-last", "side": "confederate", "men": 1, "at": [1400, 100]})
    board, state = _game(doc)
    phases = {}
    for _ in range(5):
        phases[state.zones.phase] = RS.available_actions(board, state, OPTIONS, UMPIRE)
        state = RS.advance_phase(board, state)
    fire = {u.unit: u.kinds for u in phases["initial_fire"].units}
    assert "us-wagon" not in fire
    assert fire["cs-cav"] == ("fire",) and fire["us-1"] == ("fire",)
    assert fire["cs-last"] == ("fire",)
    moving = {u.unit: u.kinds for u in phases["movement"].units}
    assert moving["us-wagon"] == ("move", "hold") and moving["cs-last"] == ("move", "hold")
    combat = phases["objective_combat"]
    assert combat.units == () and combat.kinds == ()
    assert combat.notes == ("Objective Combat: each assault's troop allocation is a sealed order.",)
    assert [c.section for c in combat.citations] == ["OZ.Sequence", "OZ.Assault.B.1"]


def test_a_melee_going_on_in_a_zone_is_offered_to_the_sides_engaged_there() -> None:
    """OZ.PostMelee.D.4 on the table: in the Objective Combat phase an engaged melee in the
    village goes on (continue_melee) for each side with units engaged there, and the answer
    says where."""
    doc = _doc()
    doc.update(phase="objective_combat", melees={"village": "union"})
    for u in doc["units"]:
        if u["id"] == "us-1":
            u.update(zone="village", box="garrison", sector=1, engaged=True, entered_turn=0)
            u.pop("at", None)
        if u["id"] == "cs-1va":
            u["engaged"] = True
    board, state = _game(doc)
    for seat in ("union", "confederate"):
        answer = RS.available_actions(board, state, OPTIONS, seat)
        assert "continue_melee" in answer.kinds, seat
        assert answer.notes[-1] == "An engaged melee goes on in: village (continue_melee)."
