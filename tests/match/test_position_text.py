"""The position's JSON text each submission's answer carries (``match.position_text``) is the
text of the position's view made afresh, for every position a ruleset's sequence of play
goes through, and follows whatever the view depends on."""

from __future__ import annotations

import dataclasses

import pytest

from app.rules import registry
from app.rules.base import PhaseSpec
from app.rules.play import Turn, where
from app.service import match as mt


def _turns(ruleset_id: str) -> list[Turn]:
    """The turns of two game turns of the ruleset's example game, phase by phase."""
    rs = registry.get(ruleset_id)
    board, state = rs.setup(rs.parse_scenario(rs.example_scenario()), rs.parse_options({}))
    turn = where(rs, board, state)
    if turn is None:
        return []
    out = [turn]
    sides = turn.sides
    for _ in range(2 * len(sides) * len(turn.sequence.phases)):
        position = turn.sequence.next_position(turn.position, sides)
        turn = dataclasses.replace(
            turn, position=position, phase=turn.sequence.phase(position.phase)
        )
        out.append(turn)
    return out


@pytest.mark.parametrize("ruleset_id", [rs.id for rs in registry.all_rulesets()])
def test_the_text_is_the_views_text(ruleset_id: str) -> None:
    for turn in _turns(ruleset_id):
        view = mt.position_view(turn)
        assert view is not None
        assert mt.position_text(turn) == view.model_dump_json()
        assert mt.position_text(turn) == view.model_dump_json()  # found again, the same


def test_no_position_is_null() -> None:
    assert mt.position_text(None) == "null"


def test_what_the_view_depends_on_changes_the_text() -> None:
    turn = _turns("zoc")[0]
    first = mt.position_text(turn)
    retitled = tuple(
        dataclasses.replace(p, title=p.title + " (renamed)") for p in turn.sequence.phases
    )
    sequence = dataclasses.replace(turn.sequence, phases=retitled)
    other = Turn(sequence, turn.position, sequence.phase(turn.position.phase), turn.sides)
    umpire = PhaseSpec(turn.phase.id, turn.phase.title, "umpire")
    acts = Turn(turn.sequence, turn.position, umpire, turn.sides)
    sides = Turn(turn.sequence, turn.position, turn.phase, tuple(reversed(turn.sides)))
    titled = Turn(
        turn.sequence, turn.position, dataclasses.replace(turn.phase, title="Other"), turn.sides
    )
    for changed in (other, acts, sides, titled):
        view = mt.position_view(changed)
        assert view is not None
        assert mt.position_text(changed) == view.model_dump_json() != first
    assert mt.position_text(turn) == first
