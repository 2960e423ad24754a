"""``Ruleset.available_actions`` ("what can I do now") in the pure rules core, on the shipped
scenarios: the phases and unit states the HTTP tests do not reach, and the default hook."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.rules import registry
from app.rules.base import UMPIRE, AvailableActions
from tests.support.tiny import TINY

REPO = Path(__file__).resolve().parents[2]


def game(ruleset_id: str, path: str, **state: Any) -> tuple[Any, Any, Any, Any]:
    ruleset = registry.get(ruleset_id)
    options = ruleset.parse_options({})
    scenario = ruleset.parse_scenario(json.loads((REPO / "scenarios" / path).read_text()))
    board, initial = ruleset.setup(scenario, options)
    return ruleset, board, initial.model_copy(update=state), options


def by_unit(answer: AvailableActions) -> dict[str, tuple[str, ...]]:
    return {u.unit: u.kinds for u in answer.units}


def sections(answer: AvailableActions) -> list[str]:
    return [c.section for c in answer.citations]


def test_zoc_combat_phase_lists_retreats_for_both_sides() -> None:
    ruleset, board, state, options = game("zoc", "zoc/seed-example.json", phase="combat")
    soviet = ruleset.available_actions(board, state, options, "soviet")
    assert by_unit(soviet) == {
        "su-18a": ("retreat", "trace_supply"),
        "su-1uk-hq": ("retreat", "trace_supply"),
    }
    assert sections(soviet) == [
        "basic.phase",
        "8.2.retreat",
        "basic.retreat",
        "8.2.supply",
        "basic.supply",
    ]
    assert "no unit moves" in soviet.notes[0]


def test_objective_zones_fire_phases() -> None:
    ruleset, board, state, options = game(
        "objective-zones", "objective-zones/example.json", phase="initial_fire"
    )
    union = ruleset.available_actions(board, state, options, "union")
    assert by_unit(union)["us-bty"] == ("musketry", "bombard")
    assert by_unit(union)["us-1"] == ("musketry",)
    confederate = ruleset.available_actions(board, state, options, "confederate")
    assert by_unit(confederate)["cs-bty"] == ("musketry", "garrison_fire")
    assert "OZ.Basic.E" in sections(confederate)
    later = state.model_copy(update={"phase": "secondary_fire"})
    assert by_unit(ruleset.available_actions(board, later, options, "confederate"))["cs-bty"] == (
        "musketry",
    )
    combat = state.model_copy(update={"phase": "objective_combat"})
    answer = ruleset.available_actions(board, combat, options, UMPIRE)
    assert (answer.units, answer.kinds) == ((), ())
    assert sections(answer) == ["OZ.Sequence", "OZ.Assault.B.1"]
    assert answer.notes == ("Objective Combat: each assault's troop allocation is a sealed order.",)
    spent = [u.model_copy(update={"men": 0}) if u.id == "us-1" else u for u in state.units]
    answer = ruleset.available_actions(
        board, state.model_copy(update={"units": spent}), options, "union"
    )
    assert "us-1" not in by_unit(answer)


def test_objective_zones_charge_declaration_and_movement() -> None:
    """OZ.Assault.A: only the phasing side declares, and not with units engaged in a zone;
    movement: enter from the table, exit or transfer from a zone, withdraw when engaged
    (OZ.PostMelee.D.4); the umpire sees both sides; one casting left still acts."""
    ruleset, board, state, options = game("objective-zones", "objective-zones/example.json")
    units = [
        u.model_copy(update={"engaged": True})
        if u.id == "cs-22va"
        else u.model_copy(update={"men": 1})
        if u.id == "us-3"
        else u
        for u in state.units
    ]
    state = state.model_copy(update={"units": units})
    union = ruleset.available_actions(board, state, options, "union")
    assert by_unit(union) == {
        u: ("declare_assault",) for u in ("us-1", "us-2", "us-3", "us-cav", "us-bty")
    }
    assert sections(union) == ["OZ.Sequence", "OZ.Assault.A"]
    assert union.kinds == ("declare_assault",)
    confederate = ruleset.available_actions(board, state, options, "confederate")
    assert (confederate.units, confederate.kinds) == ((), ())
    assert sections(confederate) == ["OZ.Sequence"]
    theirs = state.model_copy(update={"phasing_side": "confederate"})
    declaring = by_unit(ruleset.available_actions(board, theirs, options, "confederate"))
    assert declaring == {u: ("declare_assault",) for u in ("cs-36va", "cs-bty", "cs-45va")}

    moving = state.model_copy(update={"phase": "movement"})
    confederate = ruleset.available_actions(board, moving, options, "confederate")
    assert by_unit(confederate) == {
        "cs-22va": ("withdraw",),
        "cs-36va": ("exit", "transfer"),
        "cs-bty": ("exit", "transfer"),
        "cs-45va": ("exit", "transfer"),
    }
    assert sections(confederate) == [
        "OZ.Sequence",
        "OZ.PostMelee.D.4",
        "OZ.Trafficability",
        "OZ.Basic.C",
    ]
    umpire = ruleset.available_actions(board, moving, options, UMPIRE)
    assert by_unit(umpire)["us-1"] == ("enter",)
    assert by_unit(umpire)["cs-36va"] == ("exit", "transfer")
    assert umpire.kinds == ("enter", "exit", "transfer", "withdraw")
    assert umpire.notes == ()


def test_terrain_destroyed_units_act_no_more() -> None:
    ruleset, board, state, options = game("terrain", "terrain/example.json")
    units = [u.model_copy(update={"destroyed": u.id == "fr-wagon"}) for u in state.units]
    french = ruleset.available_actions(
        board, state.model_copy(update={"units": units}), options, "french"
    )
    assert "fr-wagon" not in by_unit(french) and len(french.units) == 4
    assert sections(french) == ["A.46"] and "fr-wagon" in french.notes[1]
    alone = [u for u in state.units if u.side == "french"]
    lonely = ruleset.available_actions(
        board, state.model_copy(update={"units": alone}), options, "french"
    )
    assert set(lonely.kinds) == {"move", "charge", "hold"}  # nobody left to fire at


def test_the_default_hook_lists_every_kind_and_cites_the_sequence() -> None:
    scenario = TINY.parse_scenario({**(TINY.example_scenario() or {}), "sequence": True})
    options = TINY.parse_options({})
    board, state = TINY.setup(scenario, options)
    answer = TINY.available_actions(board, state, options, "red")
    assert answer.kinds == tuple(TINY.action_models) and answer.units == ()
    assert sections(answer) == ["5"] and answer.notes


def test_battlefield_plays_the_zone_phases_on_the_table() -> None:
    ruleset, board, state, options = game("battlefield", "battlefield/millers-crossing.json")

    def at(phase: str, seat: str) -> AvailableActions:
        zones = state.zones.model_copy(update={"phase": phase})
        found: AvailableActions = ruleset.available_actions(
            board, state.model_copy(update={"zones": zones}), options, seat
        )
        return found

    declare = at("charge_declaration", "union")  # the phasing side charges; anyone holds
    assert by_unit(declare)["us-1"] == ("charge", "hold")
    assert by_unit(at("charge_declaration", "confederate"))["cs-1va"] == ("hold",)
    assert sections(declare) == ["OZ.Sequence", "BF.Charge", "BF.Posture"]
    move = at("movement", "confederate")
    assert by_unit(move)["cs-1va"] == ("move", "transfer", "hold")  # in a zone: leaves by a move
    assert by_unit(move)["cs-cav"] == ("move", "hold")  # only on the table
    assert sections(move) == ["OZ.Sequence", "BF.Enter", "BF.Posture", "BF.Leave", "OZ.Basic.C"]
    assert by_unit(at("initial_fire", "union"))["us-bty"] == ("fire", "bombard")
    assert by_unit(at("initial_fire", "confederate"))["cs-bty"] == ("fire", "garrison_fire")
    assert by_unit(at("secondary_fire", "confederate"))["cs-bty"] == ("fire",)
    combat = at("objective_combat", UMPIRE)
    assert combat.units == () and "sealed order" in combat.notes[0]
    assert {c.ruleset for c in declare.citations} == {"objective-zones", "battlefield"}


def test_zoc_movement_phase_exact_answers_for_each_seat() -> None:
    """basic.phase: in a movement phase only the phasing side's ground units on the map that
    have not moved may move; every unit on the map may trace supply (8.2.supply); a unit off
    the map is not listed, wherever it stands in the list; the umpire sees both sides and the
    umpire actions (basic.umpire); in combat only ground units retreat (8.2.retreat)."""
    from app.rules.zoc.models import Unit

    ruleset, board, state, options = game("zoc", "zoc/seed-example.json")
    off = Unit(id="de-off", side="axis", type="infantry", movement_allowance=4)
    air = Unit(id="de-air", side="axis", type="air", ground=False, hex="e3003")
    units = [off, *state.units, air]
    state = state.model_copy(update={"units": units, "moved": ["de-inf-1"]})
    assert state.phase == "operational_movement" and state.phasing_side == "axis"

    def cites(answer: AvailableActions) -> dict[str, list[str]]:
        return {u.unit: [c.section for c in u.citations] for u in answer.units}

    mover = ["basic.phase", "8.2.supply", "basic.supply"]
    supply = ["8.2.supply", "basic.supply"]
    axis = ruleset.available_actions(board, state, options, "axis")
    assert by_unit(axis) == {
        "de-inf-y": ("move", "trace_supply"),
        "de-inf-1": ("trace_supply",),
        "de-inf-2": ("move", "trace_supply"),
        "de-air": ("trace_supply",),
    }
    assert cites(axis) == {
        "de-inf-y": mover,
        "de-inf-1": supply,
        "de-inf-2": mover,
        "de-air": supply,
    }
    assert axis.kinds == ("move", "trace_supply")
    assert sections(axis) == ["basic.phase", "8.2.supply", "basic.supply"]
    assert axis.notes == (
        "operational movement phase of axis: only the phasing side's ground units that have "
        "not moved yet may move.",
    )
    soviet = ruleset.available_actions(board, state, options, "soviet")
    assert by_unit(soviet) == {"su-18a": ("trace_supply",), "su-1uk-hq": ("trace_supply",)}
    assert soviet.kinds == ("trace_supply",)
    assert sections(soviet) == ["basic.phase", "8.2.supply", "basic.supply"]

    umpire = ruleset.available_actions(board, state, options, UMPIRE)
    assert list(by_unit(umpire)) == [
        "su-18a",
        "su-1uk-hq",
        "de-inf-y",
        "de-inf-1",
        "de-inf-2",
        "de-air",
    ]
    assert by_unit(umpire)["de-inf-2"] == ("move", "trace_supply")
    assert by_unit(umpire)["su-18a"] == ("trace_supply",)
    assert umpire.kinds == (
        "move",
        "trace_supply",
        "set_phase",
        "place_unit",
        "place_marker",
        "remove_marker",
    )
    assert sections(umpire) == [
        "basic.phase",
        "8.2.supply",
        "basic.supply",
        "basic.umpire",
    ]

    combat = state.model_copy(update={"phase": "combat"})
    answer = ruleset.available_actions(board, combat, options, UMPIRE)
    assert by_unit(answer)["de-air"] == ("trace_supply",)
    assert by_unit(answer)["de-inf-1"] == ("retreat", "trace_supply")
    assert cites(answer)["de-inf-1"] == [
        "8.2.retreat",
        "basic.retreat",
        "8.2.supply",
        "basic.supply",
    ]
    assert answer.kinds == (
        "retreat",
        "trace_supply",
        "set_phase",
        "place_unit",
        "place_marker",
        "remove_marker",
    )
    assert sections(answer) == [
        "basic.phase",
        "8.2.retreat",
        "basic.retreat",
        "8.2.supply",
        "basic.supply",
        "basic.umpire",
    ]
    assert answer.notes == ("combat phase of axis: no unit moves; retreats follow combat results.",)


def test_objective_zones_morale_unlimber_and_a_melee_going_on() -> None:
    """OZ.Morale: a unit owing a test may take it in any phase (and only such a unit);
    OZ.Basic.F: an In-Transit battery of a zone under assault may unlimber in the Movement
    phase; OZ.PostMelee.D.4: an engaged melee going on is a kind of the zone, open in the
    Objective Combat phase to a side with units engaged there (issue 23: the console offers
    what this lists)."""
    from app.rules.objective_zones.models import Assault

    ruleset, board, state, options = game("objective-zones", "objective-zones/example.json")
    units = [u.model_copy(update={"at": "transit"}) if u.id == "cs-bty" else u for u in state.units]
    assault = Assault(
        zone="mill", attacker="union", defender="confederate", units=["us-1"], turn=state.turn
    )
    moving = state.model_copy(
        update={
            "phase": "movement",
            "units": units,
            "assaults": [assault],
            "morale_due": {"cs-36va": "melee"},
        }
    )
    confederate = by_unit(ruleset.available_actions(board, moving, options, "confederate"))
    assert confederate["cs-bty"] == ("exit", "transfer", "unlimber")
    assert confederate["cs-36va"] == ("exit", "transfer", "morale_test")
    assert confederate["cs-22va"] == ("exit", "transfer")
    # without the assault the battery only leaves or moves between sectors
    calm = by_unit(
        ruleset.available_actions(
            board, moving.model_copy(update={"assaults": []}), options, "confederate"
        )
    )
    assert calm["cs-bty"] == ("exit", "transfer")
    # a test owed is taken in any phase, by that unit alone
    combat = moving.model_copy(update={"phase": "objective_combat"})
    answer = ruleset.available_actions(board, combat, options, "confederate")
    assert by_unit(answer) == {"cs-36va": ("morale_test",)}
    assert sections(answer) == ["OZ.Sequence", "OZ.Morale", "OZ.Assault.B.1"]
    # a melee going on in the mill: continue_melee for the sides engaged there
    into_mill = {"zone": "mill", "at": "garrison", "sector": 1, "engaged": True}
    engaged = [
        u.model_copy(update=into_mill if u.id == "us-1" else {"engaged": u.id == "cs-22va"})
        for u in units
    ]
    melee = combat.model_copy(update={"units": engaged, "melees": {"mill": "union"}})
    union = ruleset.available_actions(board, melee, options, "union")
    assert union.kinds == ("continue_melee",) and union.units == ()
    assert sections(union)[-1] == "OZ.PostMelee.D.4"
    assert union.notes[-1] == "An engaged melee goes on in: mill (continue_melee)."
    outside = [u.model_copy(update={"engaged": False}) if u.side == "union" else u for u in engaged]
    alone = melee.model_copy(update={"units": outside})
    assert "continue_melee" not in ruleset.available_actions(board, alone, options, "union").kinds


def test_battlefield_support_and_a_morale_test_on_the_table() -> None:
    """OZ.Assault.B.5: once its side has declared this turn's assault, a battery on the table
    may name itself as support in the Charge Declaration phase; OZ.Morale as in the zones."""
    from app.rules.objective_zones.models import Assault

    ruleset, board, state, options = game("battlefield", "battlefield/millers-crossing.json")
    union = by_unit(ruleset.available_actions(board, state, options, "union"))
    assert union["us-bty"] == ("charge", "hold")
    assault = Assault(
        zone="village",
        attacker="union",
        defender="confederate",
        units=["us-1"],
        turn=state.zones.turn,
    )
    zones = state.zones.model_copy(
        update={"assaults": [assault], "morale_due": {"cs-1va": "melee"}}
    )
    declared = state.model_copy(update={"zones": zones})
    answer = ruleset.available_actions(board, declared, options, "union")
    assert by_unit(answer)["us-bty"] == ("charge", "support", "hold")
    assert by_unit(answer)["us-1"] == ("charge", "hold")
    assert "OZ.Assault.B.5" in sections(answer)
    confederate = by_unit(ruleset.available_actions(board, declared, options, "confederate"))
    assert confederate["cs-1va"] == ("morale_test", "hold")
