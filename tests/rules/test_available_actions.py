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
