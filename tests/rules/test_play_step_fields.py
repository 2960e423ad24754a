"""``app.rules.play.step`` on a real ruleset, field by field: whatever path the step takes, it
names the action and its owner, and its ruling and new state are the ruleset's own for the
game it was given (board, state, options) -- compared with the ruleset's ``adjudicate`` and
``apply`` called directly (issue 27: the shared kit's survivors, docs/mutation/core.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.rules import registry
from app.rules.base import UMPIRE
from app.rules.play import Refusal, acting_side, die_sizes, may_act, step, where
from tests.support.tiny import TINY

ZOC = registry.get("zoc")
MOVE = {"kind": "move", "unit": "de-inf-2", "path": ["e3207"]}  # axis, the phasing side


@dataclass(frozen=True)
class Die:
    sides: int
    value: int


def _zoc(options: dict[str, Any] | None = None) -> tuple[Any, Any, Any]:
    opts = ZOC.parse_options(options or {})
    board, state = ZOC.setup(ZOC.parse_scenario(ZOC.example_scenario()), opts)
    return board, state, opts


def test_a_played_move_is_the_rulesets_ruling_and_new_state() -> None:
    board, state, opts = _zoc({"weather_affects_retreat": False})
    action = ZOC.parse_action(MOVE)
    ruling = ZOC.adjudicate(board, state, action, opts)
    assert ruling.legal
    after = ZOC.apply(board, state, action, ruling)
    rolls: list[Any] = [[], lambda sizes: []]  # a replay with no dice, a live step rolling none
    for roll in rolls:
        done = step(ZOC, board, state, opts, "axis", MOVE, roll)
        assert (done.action, done.owner, done.refusal) == (action, "axis", None)
        assert done.ruling == ruling and done.state == after
        assert (done.rolls, done.dice_needed, done.private_to, done.over) == ((), (), None, False)
        assert done.turn == where(ZOC, board, after) and done.turn is not None
    dry = step(ZOC, board, state, opts, "axis", MOVE, None)
    assert (dry.action, dry.owner, dry.ruling, dry.state) == (action, "axis", ruling, None)
    umpire = step(ZOC, board, state, opts, UMPIRE, action, None)  # a parsed action as it is
    assert (umpire.action, umpire.owner, umpire.ruling) == (action, "axis", ruling)


def test_a_refused_move_is_the_rulesets_refusal() -> None:
    board, state, opts = _zoc()
    doc = {"kind": "move", "unit": "de-inf-2", "path": ["e3306"]}  # a Soviet-held hex
    action = ZOC.parse_action(doc)
    ruling = ZOC.adjudicate(board, state, action, opts)
    assert not ruling.legal
    done = step(ZOC, board, state, opts, "axis", doc, [])
    assert (done.action, done.owner, done.ruling, done.state) == (action, "axis", ruling, None)
    assert (done.rolls, done.private_to) == ((), None)


def test_a_check_before_the_judge_names_the_action_and_its_owner() -> None:
    board, state, opts = _zoc()
    action = ZOC.parse_action(MOVE)
    theirs = step(ZOC, board, state, opts, "soviet", MOVE, [])
    assert (theirs.action, theirs.owner, theirs.ruling) == (action, "axis", None)
    assert theirs.refusal == Refusal("not_owner", "axis")
    place = {"kind": "place_unit", "unit": "de-inf-2", "hex": "e3207"}
    umpires = step(ZOC, board, state, opts, "axis", place, [])
    assert (umpires.action, umpires.owner) == (ZOC.parse_action(place), UMPIRE)
    assert umpires.refusal == Refusal("umpire_only", UMPIRE)
    soviet = {"kind": "move", "unit": "su-18a", "path": ["e3406"]}
    late = step(ZOC, board, state, opts, "soviet", soviet, [])
    assert (late.action, late.owner) == (ZOC.parse_action(soviet), "soviet")
    assert late.refusal == Refusal("out_of_sequence", "soviet", where(ZOC, board, state))


def test_where_play_stands_names_the_phase_and_the_sides_in_turn() -> None:
    board, state, _ = _zoc()
    turn = where(ZOC, board, state)
    assert turn is not None
    assert turn.sequence == ZOC.sequence_of_play(board)
    assert turn.phase.id == "operational_movement" == turn.position.phase
    assert turn.sides == tuple(ZOC.sides(board).names) == ("axis", "soviet")


def test_who_may_act_in_each_kind_of_phase() -> None:
    board, state, _ = _zoc()
    turn = where(ZOC, board, state)
    assert turn is not None

    def with_acts(acts: str) -> Any:
        from dataclasses import replace

        return replace(turn, phase=replace(turn.phase, acts=acts))

    phasing, other = "axis", "soviet"
    assert may_act(with_acts("phasing"), phasing, None)
    assert not may_act(with_acts("phasing"), other, None)
    assert may_act(with_acts("non_phasing"), other, None)
    assert not may_act(with_acts("non_phasing"), phasing, None)
    assert may_act(with_acts("both"), other, None) and may_act(with_acts("both"), phasing, None)
    assert not may_act(with_acts("nobody"), other, None)
    assert may_act(with_acts("umpire"), UMPIRE, None)
    assert not may_act(with_acts("umpire"), phasing, None)
    # the umpire acting for a unit acts for its side; for nobody, whatever the phase's side
    assert not may_act(with_acts("phasing"), UMPIRE, other)
    assert may_act(with_acts("non_phasing"), UMPIRE, other)
    assert may_act(with_acts("phasing"), UMPIRE, None)
    assert (acting_side("axis", None), acting_side(UMPIRE, None)) == ("axis", None)
    assert (acting_side(UMPIRE, "soviet"), acting_side("axis", UMPIRE)) == ("soviet", "axis")


def test_die_sizes_of_zero_or_less_are_no_dice() -> None:
    assert die_sizes([6, 0, -1, 1, 10]) == (6, 1, 10)


def test_a_step_with_dice_names_its_action_owner_rolls_and_readers() -> None:
    options = TINY.parse_options({})
    board, state = TINY.setup(
        TINY.parse_scenario(
            {"length": 6, "pawns": [{"id": "r1", "side": "red", "at": 0}], "sequence": True}
        ),
        options,
    )
    doc = {"kind": "roll", "pawn": "r1"}
    action = TINY.parse_action(doc)
    done = step(TINY, board, state, options, "red", doc, lambda sizes: [Die(6, 4)])
    assert (done.action, done.owner, done.rolls, done.dice_needed) == (
        action,
        "red",
        (Die(6, 4),),
        (6,),
    )
    assert done.ruling == TINY.adjudicate(board, state, action, options, (4,))
    wrong = step(TINY, board, state, options, "red", doc, [Die(10, 4)])
    assert (wrong.action, wrong.owner) == (action, "red")
    assert wrong.refusal == Refusal("dice", "red", dice_needed=(6,))
    assert wrong.dice_needed == (6,)
    bad = step(TINY, board, state, options, "red", {"kind": "roll"}, [])
    assert bad.refusal is not None and bad.refusal.check == "well_formed"
    assert all("url" not in e for e in bad.refusal.errors)


def test_an_action_model_without_a_kind_is_of_no_kind_a_phase_lists() -> None:
    """``play``'s phase checks read an action's ``kind`` with "no kind" as the default: such
    an action is in no phase that lists kinds, every phase that lists none allows it, and a
    phase rule rules on it (it is not one of the rule's ``sequence_only`` kinds)."""
    from pydantic import BaseModel

    from app.rules.base import PhaseSpec
    from app.rules.play import _phase_allows, _phase_ruled

    class Kindless(BaseModel):
        unit: str = "u1"

    listing = PhaseSpec(id="move", title="Move", kinds=("move", "retreat"))
    assert _phase_allows(listing, Kindless()) is False
    assert _phase_allows(PhaseSpec(id="free", title="Free"), Kindless()) is True
    assert ZOC.phase_rule is not None and ZOC.phase_rule.sequence_only == ("retreat",)
    assert _phase_ruled(ZOC, Kindless()) is True
    retreat = ZOC.parse_action({"kind": "retreat", "unit": "x", "length": 1})
    assert _phase_ruled(ZOC, retreat) is False and _phase_allows(listing, retreat) is True
    assert TINY.phase_rule is None and _phase_ruled(TINY, Kindless()) is False  # no rule
