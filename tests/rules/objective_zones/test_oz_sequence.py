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
