"""The objective-zones sequence of play as the service reads it (OZ.Sequence), and the summary
of a refused scenario: hooks no rule case asks directly (issue 14, mutation testing of part
``objective_zones``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.rules import InvalidScenario, registry
from app.rules.base import Position

EXAMPLE = Path(__file__).resolve().parents[3] / "scenarios" / "objective-zones" / "example.json"
OZ = registry.get("objective-zones")


def example(**changes: Any) -> dict[str, Any]:
    scenario: dict[str, Any] = json.loads(EXAMPLE.read_text())
    return {**scenario, **changes}


def test_the_position_is_the_states_turn_phase_and_phasing_side() -> None:
    options = OZ.parse_options({})
    board, state = OZ.setup(OZ.parse_scenario(example(turn=3, phase="movement")), options)
    assert OZ.position(board, state) == Position(turn=3, phase="movement", phasing_side="union")


def test_the_sequence_rotates_the_scenarios_sides_and_cites_oz_sequence() -> None:
    options = OZ.parse_options({})
    board, _ = OZ.setup(OZ.parse_scenario(example()), options)
    sequence = OZ.sequence_of_play(board)
    assert sequence is not None
    assert sequence.sides == ("union", "confederate")
    assert [p.id for p in sequence.phases] == [
        "charge_declaration",
        "movement",
        "initial_fire",
        "secondary_fire",
        "objective_combat",
    ]
    assert sequence.citation is not None
    assert (sequence.citation.ruleset, sequence.citation.section) == (
        "objective-zones",
        "OZ.Sequence",
    )


def test_a_refused_scenario_says_it_is_inconsistent() -> None:
    options = OZ.parse_options({})
    scenario = OZ.parse_scenario(example(phasing_side="french"))
    with pytest.raises(InvalidScenario) as refused:
        OZ.setup(scenario, options)
    assert str(refused.value) == (
        "the objective-zones scenario is inconsistent: 1 problem(s), first: unknown side french"
    )


def test_in_the_fire_phases_only_a_garrison_battery_fires_from_the_zone() -> None:
    """What can I do now in Initial Fire: every unit may be named in a musketry action
    (OZ.Basic.A judges it), a battery in a zone's garrison fires by section (OZ.Basic.E), a
    battery on the table bombards (OZ.Basic.G); a battalion in a garrison and a battery
    In-Transit (limbered, OZ.Basic.D) have neither. Each unit cites the sections that open
    its kinds."""
    options = OZ.parse_options({})
    scenario = example(phase="initial_fire")
    scenario["units"] = [
        *scenario["units"],
        {"id": "cs-lbty", "side": "confederate", "type": "artillery", "sections": 1,
         "zone": "church", "at": "transit", "entered_turn": 0},
    ]  # fmt: skip
    board, state = OZ.setup(OZ.parse_scenario(scenario), options)
    answer = OZ.available_actions(board, state, options, "confederate")
    kinds = {u.unit: u.kinds for u in answer.units}
    assert kinds == {
        "cs-22va": ("musketry",),
        "cs-36va": ("musketry",),
        "cs-bty": ("musketry", "garrison_fire"),
        "cs-45va": ("musketry",),
        "cs-lbty": ("musketry",),
    }
    cites = {u.unit: [(c.ruleset, c.section) for c in u.citations] for u in answer.units}
    assert cites["cs-22va"] == [
        ("objective-zones", "OZ.Sequence"),
        ("objective-zones", "OZ.Basic.A"),
    ]
    assert cites["cs-bty"] == [
        ("objective-zones", "OZ.Sequence"),
        ("objective-zones", "OZ.Basic.A"),
        ("objective-zones", "OZ.Basic.E"),
    ]
    union = OZ.available_actions(board, state, options, "union")
    assert [(c.section) for u in union.units if u.unit == "us-bty" for c in u.citations] == [
        "OZ.Sequence",
        "OZ.Basic.A",
        "OZ.Basic.G",
    ]


def test_melees_going_on_in_two_zones_are_named_together() -> None:
    """OZ.PostMelee.D.4: an engaged melee goes on until one side withdraws or breaks; with
    melees in the mill and the church the answer names both zones, in the order they began."""
    options = OZ.parse_options({})
    board, state = OZ.setup(OZ.parse_scenario(example(phase="objective_combat")), options)
    places = {
        "us-1": {"zone": "mill", "at": "garrison", "sector": 1, "engaged": True},
        "us-2": {"zone": "church", "at": "garrison", "sector": 1, "engaged": True},
        "cs-22va": {"engaged": True},
        "cs-45va": {"engaged": True},
    }
    units = [u.model_copy(update=places.get(u.id, {})) for u in state.units]
    melee = state.model_copy(
        update={"units": units, "melees": {"mill": "union", "church": "union"}}
    )
    answer = OZ.available_actions(board, melee, options, "union")
    assert "continue_melee" in answer.kinds
    assert answer.notes[-1] == "An engaged melee goes on in: mill, church (continue_melee)."
