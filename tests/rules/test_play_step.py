"""``app.rules.play.step``: one action played, its checks in one fixed order (issue 25).

Played on the ``tiny`` test ruleset (a track of squares, two sides, a sequence of play with a
*move* phase for the phasing side and a *react* phase for the other, a ``roll`` that needs one
d6 and a ``note`` only the umpire may read) and on a real ruleset for the facts a ``Kind``
declares.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pytest

from app.rules import registry
from app.rules.base import UMPIRE, SequenceOfPlay
from app.rules.play import Step, step
from tests.support.tiny import TINY, TinyRuleset


@dataclass(frozen=True)
class Die:
    sides: int
    value: int


def _game(sequence: bool = True, goal: int | None = None) -> tuple[Any, Any, Any]:
    scenario: dict[str, Any] = {
        "length": 6,
        "pawns": [{"id": "r1", "side": "red", "at": 0}, {"id": "b1", "side": "blue", "at": 5}],
        "sequence": sequence,
    }
    if goal is not None:
        scenario["goal"] = goal
    options = TINY.parse_options({})
    board, state = TINY.setup(TINY.parse_scenario(scenario), options)
    return board, state, options


def _roller(values: list[int], calls: list[list[int]]) -> Any:
    def roll(sizes: list[int]) -> list[Die]:
        calls.append(sizes)
        return [Die(s, v) for s, v in zip(sizes, values, strict=False)]

    return roll


def test_a_legal_action_is_judged_applied_and_says_what_follows() -> None:
    board, state, options = _game()
    done = step(TINY, board, state, options, "red", {"kind": "step", "pawn": "r1", "n": 2}, [])
    assert done.refusal is None and done.owner == "red" and done.kind == "step"
    assert done.ruling is not None and done.ruling.legal
    assert done.ruling.summary == "r1 steps from 0 to 2."
    assert done.state.positions == {"r1": 2, "b1": 5}
    assert state.positions == {"r1": 0, "b1": 5}  # the input is left alone
    assert done.rolls == () and done.dice_needed == () and done.private_to is None
    assert done.turn is not None and done.turn.position.phase == "move"
    assert done.over is False and done.visible_to("red") is None


def test_the_checks_run_in_order_and_the_first_failure_ends_the_step() -> None:
    board, state, options = _game()
    # 1. well-formed: nothing else is looked at (the pawn is unknown too)
    bad = step(TINY, board, state, options, "red", {"kind": "step", "pawn": "zz", "n": 99}, [])
    assert bad.action is None and bad.ruling is None and bad.refusal is not None
    assert bad.refusal.check == "well_formed"
    assert [e["loc"] for e in bad.refusal.errors] == [("step", "n")]
    # 2. owner: blue's pawn, by red (out of phase for blue too: the owner check comes first)
    theirs = step(TINY, board, state, options, "red", {"kind": "step", "pawn": "b1", "n": -1}, [])
    assert theirs.refusal is not None and theirs.refusal.check == "not_owner"
    assert theirs.refusal.owner == "blue" and theirs.ruling is None
    umpires = step(TINY, board, state, options, "red", {"kind": "reset"}, [])
    assert umpires.refusal is not None and umpires.refusal.check == "umpire_only"
    # 3. phase: blue acts in the react phase, not in red's move phase
    blue = step(TINY, board, state, options, "blue", {"kind": "step", "pawn": "b1", "n": -1}, [])
    assert blue.refusal is not None and blue.refusal.check == "out_of_sequence"
    assert blue.refusal.turn is not None and blue.refusal.turn.position.phasing_side == "red"
    # ... unless the sequence is not enforced; the umpire acts for the phasing side, not for
    # the other one
    free = step(TINY, board, state, options, "blue", {"kind": "step", "pawn": "b1", "n": -1},
                [], enforce_sequence=False)  # fmt: skip
    assert free.refusal is None and free.state.positions["b1"] == 4
    umpire = step(TINY, board, state, options, UMPIRE, {"kind": "step", "pawn": "r1", "n": 1}, [])
    assert umpire.refusal is None and umpire.ruling is not None and umpire.ruling.legal
    late = step(TINY, board, state, options, UMPIRE, {"kind": "step", "pawn": "b1", "n": -1}, [])
    assert late.refusal is not None and late.refusal.check == "out_of_sequence"
    # 4. judge: an illegal ruling is returned, nothing applied
    off = step(TINY, board, state, options, "red", {"kind": "step", "pawn": "r1", "n": -1}, [])
    assert off.refusal is None and off.state is None
    assert off.ruling is not None and [v.code for v in off.ruling.violations] == ["tiny.off_track"]


def test_no_seat_judges_what_was_done_not_who_may_do_it() -> None:
    board, state, options = _game()
    done = step(TINY, board, state, options, None, {"kind": "step", "pawn": "b1", "n": -1}, [])
    assert done.refusal is None and done.owner is None and done.state.positions["b1"] == 4


def test_a_phase_that_lists_its_kinds_refuses_the_others_before_the_judge() -> None:
    class Listed(TinyRuleset):
        def sequence_of_play(self, board: Any) -> SequenceOfPlay | None:
            found = super().sequence_of_play(board)
            assert found is not None
            move, react = found.phases
            return replace(found, phases=(replace(move, kinds=("step",)), react))

    rs = Listed()
    board, state, options = _game()
    stepped = step(rs, board, state, options, "red", {"kind": "step", "pawn": "r1", "n": 1}, [])
    assert stepped.refusal is None
    calls: list[list[int]] = []
    rolled = step(rs, board, state, options, "red", {"kind": "roll", "pawn": "r1"},
                  _roller([4], calls))  # fmt: skip
    assert rolled.refusal is not None and rolled.refusal.check == "out_of_sequence"
    assert calls == [] and rolled.ruling is None


def test_a_kind_whose_phase_the_rules_do_not_decide_is_confined_by_the_sequence() -> None:
    """zoc rules on a move out of its phase (zoc.wrong_phase, from the judge) but not on a
    retreat's (the source is silent): a seat's retreat outside the Combat phase is out of
    sequence before the judge, while a replay or dry run (no seat) gets the rules' answer."""
    rs = registry.get("zoc")
    options = rs.parse_options({})
    board, state = rs.setup(rs.parse_scenario(rs.example_scenario()), options)
    assert state.phase == "operational_movement"
    retreat = {"kind": "retreat", "unit": "de-inf-1", "path": ["e3307"], "length": 1}
    refused = step(rs, board, state, options, "axis", retreat, None)
    assert refused.refusal is not None and refused.refusal.check == "out_of_sequence"
    assert refused.ruling is None
    judged = step(rs, board, state, options, None, retreat, None)
    assert judged.refusal is None and judged.ruling is not None
    assert "zoc.wrong_phase" not in [v.code for v in judged.ruling.violations]
    move = {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]}
    combat = rs.advance_phase(board, state)
    assert combat.phase == "combat"
    ruled = step(rs, board, combat, options, "axis", move, None)
    assert ruled.refusal is None and ruled.ruling is not None
    assert [v.code for v in ruled.ruling.violations][:1] == ["zoc.wrong_phase"]


def test_a_live_roll_comes_after_legality_and_its_values_are_judged() -> None:
    board, state, options = _game()
    calls: list[list[int]] = []
    done = step(TINY, board, state, options, "red", {"kind": "roll", "pawn": "r1"},
                _roller([4], calls))  # fmt: skip
    assert calls == [[6]] and done.dice_needed == (6,)
    assert [(r.sides, r.value) for r in done.rolls] == [(6, 4)]
    assert done.state is not None and done.state.positions["r1"] == 4
    # an action illegal without its dice never rolls
    calls.clear()
    none = step(TINY, board, state, options, UMPIRE, {"kind": "roll", "pawn": "nobody"},
                _roller([4], calls))  # fmt: skip
    assert calls == [] and none.rolls == () and none.ruling is not None
    assert not none.ruling.legal


def test_a_replay_brings_its_recorded_rolls_and_they_must_be_the_dice_needed() -> None:
    board, state, options = _game()
    action = {"kind": "roll", "pawn": "r1"}
    replayed = step(TINY, board, state, options, None, action, [Die(6, 3)])
    assert replayed.state is not None and replayed.state.positions["r1"] == 3
    other = step(TINY, board, state, options, None, action, [Die(10, 3)])
    assert other.refusal is not None and other.refusal.check == "dice"
    assert other.refusal.dice_needed == (6,) and other.ruling is None
    assert step(TINY, board, state, options, None, action, []).refusal is not None


def test_a_dry_run_rolls_nothing_and_applies_nothing() -> None:
    board, state, options = _game()
    dry = step(TINY, board, state, options, None, {"kind": "roll", "pawn": "r1"}, None)
    assert dry.ruling is not None and dry.ruling.legal and dry.state is None
    assert dry.dice_needed == (6,) and dry.rolls == ()


def test_the_step_says_who_may_read_it_and_when_the_game_is_over() -> None:
    board, state, options = _game(sequence=False, goal=3)
    note = step(TINY, board, state, options, "red", {"kind": "note", "text": "hi"}, [])
    assert note.private_to == () and note.visible_to("red") == ["red", UMPIRE]
    won = step(TINY, board, state, options, "red", {"kind": "step", "pawn": "r1", "n": 3}, [])
    assert won.over is True and won.turn is None


@pytest.mark.parametrize(
    ("ruleset", "kind", "fact"),
    [
        ("terrain", "move", "dice"),
        ("objective-zones", "bombard", "dice"),
        ("objective-zones", "morale_test", "dice"),
        ("objective-zones", "continue_melee", "dice"),
        ("objective-zones", "declare_assault", "unit_of"),
        ("battlefield", "move", "dice"),
        ("battlefield", "bombard", "dice"),
        ("battlefield", "morale_test", "dice"),
    ],
)
def test_the_facts_of_a_kind_are_declared_on_the_kind(ruleset: str, kind: str, fact: str) -> None:
    assert getattr(registry.get(ruleset).kinds[kind], fact) is not None


def test_a_step_is_a_value() -> None:
    assert Step(None).refusal is None and Step(None).visible_to("red") is None
