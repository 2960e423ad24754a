"""The ruling on one side's troop allocation before it is accepted (``Ruleset.judge_order``,
OZ.Assault.B): every problem cited and located in the order, as the service shows it on
submission. Rule cases judge the orders only through the reveal, so these paths are asked
here directly (issue 14, mutation testing of part ``objective_zones``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from app.rules import registry
from app.rules.objective_zones.combat import allocation_model
from app.rules.objective_zones.models import Allocation

EXAMPLE = Path(__file__).resolve().parents[3] / "scenarios" / "objective-zones" / "example.json"
OZ = registry.get("objective-zones")


def assault_on_mill() -> tuple[Any, Any, Any, Any]:
    """The example with the union's assault on the mill (us-1, us-2) declared, at its
    Objective Combat phase: the ruleset, board, state and the open decision."""
    options = OZ.parse_options({})
    board, state = OZ.setup(OZ.parse_scenario(json.loads(EXAMPLE.read_text())), options)
    action = OZ.parse_action({"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-2"]})
    state = OZ.apply(board, state, action, OZ.adjudicate(board, state, action, options))
    for _ in range(4):
        state = OZ.advance_phase(board, state)
    return board, state, options, OZ.sealed_decisions(board, state)["allocation:mill:t1"]


def judged(side: str, sectors: dict[int, list[str]]) -> dict[str, Any]:
    board, state, options, decision = assault_on_mill()
    order = decision.order_model(sectors=sectors)
    ruling = OZ.judge_order(board, state, decision, side, order, options)
    return ruling.model_dump(mode="json")


def sections(citations: list[dict[str, Any]]) -> list[str]:
    return [c["section"] for c in citations]


def test_an_order_that_keeps_the_rules_is_accepted() -> None:
    ruling = judged("confederate", {1: ["cs-22va"], 2: ["cs-36va", "cs-bty"]})
    assert ruling["legal"] is True
    assert ruling["violations"] == []
    assert sections(ruling["citations"]) == ["OZ.Assault.B.1"]
    assert ruling["summary"] == "confederate's allocation for the assault on mill is accepted."


def test_each_problem_is_cited_and_located_in_the_order() -> None:
    """OZ.Assault.B.1: combat sectors are 1..capacity (2 for the mill), units exist, are the
    side's own, and are allocated once (OZ.Assault.C: each unit rolls once)."""
    ruling = judged("union", {1: ["us-1", "us-9", "cs-22va"], 2: ["us-1"], 3: ["us-2"]})
    assert ruling["legal"] is False
    got = [
        (v["code"], v["unit"], v["location"], sections(v["citations"]), v["details"])
        for v in ruling["violations"]
    ]
    assert got == [
        ("oz.unknown_unit", None, None, ["OZ.Assault.B.1"], {}),
        ("oz.not_your_unit", None, None, ["OZ.Assault.B.1"], {}),
        ("oz.unit_twice", "us-1", None, ["OZ.Assault.C"], {}),
        ("oz.bad_sector", None, "/sectors/3", ["OZ.Assault.B.1"], {"sector": 3}),
    ]
    messages = [v["message"] for v in ruling["violations"]]
    assert messages == [
        "There is no unit 'us-9'.",
        "cs-22va is not a unit of union.",
        "us-1 is allocated twice.",
        "mill has combat sectors 1-2, not 3.",
    ]
    assert sorted(sections(ruling["citations"])) == ["OZ.Assault.B.1", "OZ.Assault.C"]


def test_a_defender_order_locates_its_sector_problems() -> None:
    """OZ.Assault.B.3: one garrison battalion a sector, every garrison battalion placed."""
    ruling = judged("confederate", {1: ["cs-22va", "cs-36va"]})
    got = [(v["code"], v["unit"], v["location"], v["details"]) for v in ruling["violations"]]
    assert got == [
        ("oz.two_garrison_battalions", None, "/sectors/1", {"sector": 1}),
    ]
    assert ruling["violations"][0]["message"] == "Sector 1 has 2 garrison battalions; one each."


def test_an_order_for_a_zone_without_an_assault_is_refused() -> None:
    """OZ.Assault.A: an allocation answers a declared assault; none is pending on the church."""
    board, state, options, _ = assault_on_mill()
    model: type[Allocation] = allocation_model("church")
    decision = OZ.sealed_decisions(board, state)["allocation:mill:t1"]
    church = dataclasses.replace(decision, order_model=model)
    ruling = OZ.judge_order(board, state, church, "union", model(sectors={1: ["us-1"]}), options)
    assert [(v["code"], sections(v["citations"])) for v in ruling.model_dump()["violations"]] == [
        ("oz.no_assault", ["OZ.Assault.A"])
    ]
    assert ruling.violations[0].message == "No assault on church is pending."


def test_a_side_outside_the_assault_has_no_order() -> None:
    ruling = judged("british", {1: ["us-1"]})
    assert [(v["code"], sections(v["citations"])) for v in ruling["violations"]] == [
        ("oz.not_a_party", ["OZ.Assault.B.1"])
    ]
    assert ruling["violations"][0]["message"] == "british takes no part in this assault."


def test_resolving_an_allocation_that_is_not_open_is_refused() -> None:
    """OZ.Assault.A: only a declared assault's allocation is resolved."""
    board, state, options, _ = assault_on_mill()
    ruling = OZ.resolve_sealed(board, state, "allocation:church:t1", {}, options, ())
    assert [(v.code, v.message) for v in ruling.violations] == [
        ("oz.no_assault", "No allocation allocation:church:t1 is open.")
    ]
    assert [c.section for c in ruling.citations] == ["OZ.Assault.A"]


def test_resolving_with_the_wrong_number_of_dice_is_an_error() -> None:
    board, state, options, decision = assault_on_mill()
    orders = {
        "union": decision.order_model(sectors={1: ["us-1"], 2: ["us-2"]}),
        "confederate": decision.order_model(sectors={1: ["cs-22va"], 2: ["cs-36va"]}),
    }
    with pytest.raises(ValueError, match=r"^allocation:mill:t1 needs 10 dice, got 1$"):
        OZ.resolve_sealed(board, state, decision.id, orders, options, (0,))


def test_the_open_allocation_names_its_zone_turn_sides_and_rule() -> None:
    """OZ.Assault.B.1: the declared assault opens one sealed decision, the attacker's and the
    defender's secret allocations, titled for the zone and turn and citing B.1 (what the
    service shows the seats)."""
    _, _, _, decision = assault_on_mill()
    assert decision.id == "allocation:mill:t1"
    assert decision.title == "Troop allocation for the assault on mill (turn 1)"
    assert decision.sides == ("union", "confederate")
    assert decision.citation is not None
    assert (decision.citation.ruleset, decision.citation.section) == (
        "objective-zones",
        "OZ.Assault.B.1",
    )
    assert decision.order_model.zone_id == "mill"


def test_an_order_is_judged_against_the_game_only_with_a_whole_context() -> None:
    """An allocation is checked against the game when the validation context gives the board,
    the state and the side (the options default to the ruleset's); with any of the three
    missing only its shape is checked."""
    board, state, _, decision = assault_on_mill()
    bad = {"sectors": {"1": ["us-1"]}}  # the attacker leaves sector 2 without infantry (B.4)
    for partial in (
        {"side": "union"},
        {"board": board},
        {"board": board, "state": state},
        {"state": state, "side": "union"},
        {"board": board, "side": "union"},
    ):
        assert decision.order_model.model_validate(bad, context=partial).sectors == {1: ["us-1"]}
    whole = {"board": board, "state": state, "side": "union"}
    with pytest.raises(
        ValidationError, match="Sector 2 needs at least one attacking infantry unit"
    ):
        decision.order_model.model_validate(bad, context=whole)
    good = {"sectors": {"1": ["us-1"], "2": ["us-2"]}}
    assert decision.order_model.model_validate(good, context=whole).sectors == {
        1: ["us-1"],
        2: ["us-2"],
    }
    # the options of the context decide: with attack_every_sector off one sector is enough
    lenient = {**whole, "options": OZ.parse_options({"attack_every_sector": False})}
    assert decision.order_model.model_validate(bad, context=lenient).sectors == {1: ["us-1"]}
    # options that are not the ruleset's are replaced by its defaults
    with pytest.raises(
        ValidationError, match="Sector 2 needs at least one attacking infantry unit"
    ):
        decision.order_model.model_validate(bad, context={**whole, "options": {"x": 1}})


def test_an_order_is_judged_under_the_games_options() -> None:
    """oz.attack-every-sector: with ``attack_every_sector: false`` the attacker may leave a
    sector of the mill unattacked; under the default it needs infantry in both (B.4)."""
    board, state, options, decision = assault_on_mill()
    order = decision.order_model(sectors={1: ["us-1", "us-2"]})
    strict = OZ.judge_order(board, state, decision, "union", order, options)
    assert [v.code for v in strict.violations] == ["oz.sector_without_infantry"]
    lenient = OZ.parse_options({"attack_every_sector": False})
    ruling = OZ.judge_order(board, state, decision, "union", order, lenient)
    assert ruling.legal is True
    assert ruling.summary == "union's allocation for the assault on mill is accepted."


# -- a unit with no castings (OZ.Assault.C, OZ.PostMelee.D.4): setup refuses one and every loss
# of the last casting removes it, so these guards are asked on a state built by hand ----------


def _with_men(state: Any, **men: int) -> Any:
    units = [u.model_copy(update={"men": men[u.id]}) if u.id in men else u for u in state.units]
    return state.model_copy(update={"units": units})


def test_an_allocation_refuses_a_unit_with_no_castings() -> None:
    """OZ.Assault.B.1 / C: the attacker's us-1 and the defender's cs-22va have no castings
    left: each is refused where it is allocated; a garrison battalion with none need not be
    allocated (it is no longer a battalion that can hold a sector)."""
    board, state, options, decision = assault_on_mill()
    state = _with_men(state, **{"us-1": 0, "cs-22va": 0})
    att = OZ.judge_order(
        board,
        state,
        decision,
        "union",
        decision.order_model(sectors={1: ["us-1"], 2: ["us-2"]}),
        options,
    ).model_dump(mode="json")
    assert att["legal"] is False
    [v] = att["violations"]
    assert (v["code"], v["unit"], v["location"]) == ("oz.no_castings", "us-1", "/sectors/1")
    assert sections(v["citations"]) == ["OZ.Assault.B.1", "OZ.Assault.C"]
    assert "no castings left" in v["message"]
    dfd = OZ.judge_order(
        board,
        state,
        decision,
        "confederate",
        decision.order_model(sectors={1: ["cs-22va"], 2: ["cs-36va"]}),
        options,
    ).model_dump(mode="json")
    assert [(v["code"], v["unit"]) for v in dfd["violations"]] == [("oz.no_castings", "cs-22va")]
    without = OZ.judge_order(
        board,
        state,
        decision,
        "confederate",
        decision.order_model(sectors={2: ["cs-36va"]}),
        options,
    )
    assert without.legal, without.violations


def test_the_reveal_refuses_a_unit_with_no_castings() -> None:
    """The reveal re-checks the orders: a unit with no castings rolls no melee dice."""
    board, state, options, decision = assault_on_mill()
    state = _with_men(state, **{"us-2": 0})
    orders = {
        "union": decision.order_model(sectors={1: ["us-1"], 2: ["us-2"]}),
        "confederate": decision.order_model(sectors={1: ["cs-22va"], 2: ["cs-36va"]}),
    }
    need = OZ.sealed_dice_needed(board, state, decision.id, orders)
    ruling = OZ.resolve_sealed(board, state, decision.id, orders, options, [9] * len(need))
    assert not ruling.legal
    assert [(v.code, v.unit) for v in ruling.violations] == [("oz.no_castings", "us-2")]


def test_a_declaration_refuses_a_unit_with_no_castings() -> None:
    """OZ.Assault.A / C: us-3 has no castings left: it cannot be named in an assault."""
    options = OZ.parse_options({})
    board, state = OZ.setup(OZ.parse_scenario(json.loads(EXAMPLE.read_text())), options)
    state = _with_men(state, **{"us-3": 0})
    action = OZ.parse_action({"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-3"]})
    ruling = OZ.adjudicate(board, state, action, options).model_dump(mode="json")
    assert ruling["legal"] is False
    assert [(v["code"], v["unit"]) for v in ruling["violations"]] == [("oz.no_castings", "us-3")]
    assert sections(ruling["citations"]) == ["OZ.Assault.A", "OZ.Assault.C"]


def test_a_withdrawal_refuses_a_unit_with_no_castings() -> None:
    """OZ.PostMelee.D.4: an engaged unit with no casting cannot pay the withdrawal's one."""
    options = OZ.parse_options({})
    board, state = OZ.setup(OZ.parse_scenario(json.loads(EXAMPLE.read_text())), options)
    state = OZ.advance_phase(board, state)
    units = [
        u.model_copy(update={"men": 0, "engaged": True}) if u.id == "cs-22va" else u
        for u in state.units
    ]
    state = state.model_copy(update={"units": units})
    action = OZ.parse_action({"kind": "withdraw", "unit": "cs-22va"})
    ruling = OZ.adjudicate(board, state, action, options).model_dump(mode="json")
    assert ruling["legal"] is False
    assert [v["code"] for v in ruling["violations"]] == ["oz.no_castings"]
    assert sections(ruling["citations"]) == ["OZ.PostMelee.D.4", "OZ.Assault.C"]
    assert ruling["interpretations"] == []


def test_an_allocation_goes_on_checking_after_a_unit_with_no_castings() -> None:
    """OZ.Assault.B.1 / C: the refusal of us-1 (no castings left) says how many it has and in
    which sector, and the units after it in the sector are still checked (cs-22va is not the
    union's)."""
    board, state, options, decision = assault_on_mill()
    state = _with_men(state, **{"us-1": 0})
    order = decision.order_model(sectors={1: ["us-1", "cs-22va"], 2: ["us-2"]})
    ruling = OZ.judge_order(board, state, decision, "union", order, options)
    assert [v.code for v in ruling.violations] == ["oz.no_castings", "oz.not_your_unit"]
    assert ruling.violations[0].details == {"men": 0, "sector": 1}


def test_a_garrison_battalion_with_one_casting_must_be_allocated() -> None:
    """OZ.Assault.B: cs-22va has one casting left: it still holds a sector and must be placed."""
    board, state, options, decision = assault_on_mill()
    state = _with_men(state, **{"cs-22va": 1})
    order = decision.order_model(sectors={2: ["cs-36va"]})
    ruling = OZ.judge_order(board, state, decision, "confederate", order, options)
    assert [(v.code, v.unit) for v in ruling.violations] == [("oz.garrison_unallocated", "cs-22va")]


def test_a_missing_defender_order_fills_only_battalions_that_hold_a_sector_and_castings() -> None:
    """oz.missing-allocation: without the defender's order each garrison battalion fights in the
    sector it holds; one with no castings left, or holding no sector, is not filled in."""
    from app.rules.objective_zones.combat import effective_orders

    _board, state, _options, decision = assault_on_mill()
    [assault] = state.assaults
    union = {"union": decision.order_model(sectors={1: ["us-1"], 2: ["us-2"]})}
    one = _with_men(state, **{"cs-22va": 0, "cs-36va": 1})
    assert effective_orders(one, assault, union)["confederate"] == {2: ["cs-36va"]}
    units = [u.model_copy(update={"sector": None}) if u.id == "cs-22va" else u for u in state.units]
    loose = state.model_copy(update={"units": units})
    assert effective_orders(loose, assault, union)["confederate"] == {2: ["cs-36va"]}


def test_a_unit_destroyed_by_its_withdrawal_leaves_the_other_morale_tests_due() -> None:
    """OZ.PostMelee.D.4 (oz.withdraw-last-casting): cs-22va pays its last casting and is
    removed; only its own pending morale test goes with it."""
    options = OZ.parse_options({})
    board, state = OZ.setup(OZ.parse_scenario(json.loads(EXAMPLE.read_text())), options)
    state = OZ.advance_phase(board, state)
    units = [
        u.model_copy(update={"men": 1, "engaged": True}) if u.id == "cs-22va" else u
        for u in state.units
    ]
    due = {"cs-22va": "melee", "cs-36va": "melee"}
    state = state.model_copy(update={"units": units, "morale_due": due})
    action = OZ.parse_action({"kind": "withdraw", "unit": "cs-22va"})
    ruling = OZ.adjudicate(board, state, action, options)
    assert ruling.legal, ruling.summary
    after = OZ.apply(board, state, action, ruling)
    assert "cs-22va" in after.removed
    assert after.morale_due == {"cs-36va": "melee"}
