"""One step of play: an action document, judged and (when legal) applied, as one pure function.

:func:`step` is the only way the service plays an action -- a submission, the dry run, the
audit's replay (and with it the verification of an export file and the umpire's upgrade
preview), the interpretation what-if and an appeal's corrected action all call it. It runs
the checks in one fixed order, the way python-chess layers ``is_legal`` over
``is_pseudo_legal`` and boardgame.io's reducer orders its guards; the first check that fails
ends the step with a typed :class:`Refusal` (nothing judged past it):

1. **well-formed** -- the document parses as one of the ruleset's action kinds
   (``Refusal.check == "well_formed"``, with pydantic's errors);
2. **owner / seat** -- the kind's owner (:attr:`Kind.owner`: the side of the unit it names,
   the umpire, or anyone) is the seat's own side, or the seat is the umpire
   (``umpire_only``, ``not_owner``);
3. **phase** -- the sequence of play lets the seat act now (:func:`may_act` on the phase's
   ``acts``) and the phase allows the kind (:attr:`PhaseSpec.kinds`, when it lists any)
   (``out_of_sequence``). A ruleset whose rules refuse a kind out of its phase with a cited
   violation declares :attr:`Ruleset.phase_rule` (but for the kinds it lists as
   ``sequence_only``, whose phase the rules do not decide): then the kind's phase is not refused
   here but ruled in step 4 -- by the kit before the judge,
   :func:`app.rules.phases.refused_before_judge`, reading the same ``PhaseSpec.kinds``: the
   names the action gets wrong first (``Kind.names``: an unknown unit is still reported
   first), then the phase, cited with what forbids the action whatever the phase
   (``Kind.despite_phase``) -- and a seat that may act at all gets a ruling;
4. **judge** -- :meth:`Ruleset.adjudicate`: the kit's phase check (step 3's, for a ruleset
   with a phase rule), then the kind's judge, which never checks the phase. Dice: the kind's
   :attr:`Kind.dice` names them (:meth:`Ruleset.dice_needed`). A live submission (``roll`` a
   callable) is judged first with no dice -- an illegal action never rolls, so it cannot
   reveal a roll -- then ``roll(sizes)`` gives the rolls and the action is judged with their
   values. A replay passes the recorded rolls (``roll`` a sequence): they must be of the
   sizes the action needs now (else ``Refusal.check == "dice"``) and the action is judged
   once with them. A dry run passes None: judged with no dice, never applied;
5. **apply** -- a legal ruling is applied by the kind's apply (:meth:`Ruleset.apply`); the
   step then says whether the game is over, where play stands next (:func:`where`) and who
   may read the action's event (:attr:`Kind.private`, :meth:`Ruleset.private_to`).

Steps 2 and 3 are skipped for ``seat=None`` (a dry run or a replay judges *what* was done,
not who may do it); step 3 also with ``enforce_sequence=False`` (the match option).

The step raises only what the ruleset raises while judging (``RulesError``, ``ValueError``,
``LookupError``, pydantic's ``ValidationError``) and what ``roll`` raises; the service turns
those into its problems. Pure: the committed dice stay with the caller, who hands in ``roll``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ValidationError

from app.rules.base import (
    UMPIRE,
    PhaseSpec,
    Position,
    RulesError,
    Ruleset,
    SequenceOfPlay,
)
from app.rules.phases import allows
from app.rules.ruling import Ruling

AnyRuleset = Ruleset[Any, Any, Any, Any]


class Rolled(Protocol):
    """A die roll as the caller records it: its size and value (``app.match.dice.Roll``)."""

    @property
    def sides(self) -> int: ...

    @property
    def value(self) -> int: ...


Roll = Callable[[list[int]], Sequence[Rolled]] | Sequence[Rolled] | None
"""How a step gets its dice: a callable rolling dice of the given sizes (a live submission),
the rolls recorded for this action (a replay), or None (a dry run: no dice)."""


# -- where play stands ------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """Where a game stands: its sequence of play, position and current phase."""

    sequence: SequenceOfPlay
    position: Position
    phase: PhaseSpec
    sides: tuple[str, ...]


def where(ruleset: AnyRuleset, board: Any, state: Any) -> Turn | None:
    """The game's :class:`Turn`, or None when the ruleset declares no sequence of play."""
    sequence = ruleset.sequence_of_play(board)
    if sequence is None:
        return None
    position = ruleset.position(board, state)
    if position is None:
        return None
    sides = sequence.sides or tuple(ruleset.sides(board).names)
    return Turn(sequence, position, sequence.phase(position.phase), tuple(sides))


def acting_side(seat: str, owner: str | None) -> str | None:
    """The side an action is taken for: its owner's side, else the seat's own side; None
    for the umpire acting on nobody's behalf."""
    if owner is not None and owner != UMPIRE:
        return owner
    return None if seat == UMPIRE else seat


def may_act(turn: Turn, seat: str, owner: str | None) -> bool:
    """Whether ``seat`` may submit an action owned by ``owner`` in the current phase."""
    acts = turn.phase.acts
    if acts == "umpire":
        return seat == UMPIRE
    side = acting_side(seat, owner)
    if side is None:
        return True
    phasing = turn.position.phasing_side
    if acts == "phasing":
        return side == phasing
    if acts == "non_phasing":
        return side != phasing
    return acts == "both"


# -- the step ---------------------------------------------------------------------------------

Check = Literal["well_formed", "umpire_only", "not_owner", "out_of_sequence", "dice"]


@dataclass(frozen=True)
class Refusal:
    """Why a step stopped before judging: the check that failed and what it found."""

    check: Check
    owner: str | None = None
    """The action's owner (a side, ``umpire`` or None: anyone), once known."""
    turn: Turn | None = None
    """Where play stands (``out_of_sequence``)."""
    errors: tuple[dict[str, Any], ...] = ()
    """pydantic's errors of a malformed document (``well_formed``)."""
    dice_needed: tuple[int, ...] = ()
    """The sizes the action needs now (``dice``: the recorded rolls are of other sizes)."""


@dataclass(frozen=True)
class Step:
    """One action, played: what it was, whose, the ruling, and what it made.

    ``refusal`` is set when a check before the judge failed (then ``ruling`` is None);
    otherwise ``ruling`` is the judge's ruling and, when it is legal and the step applies,
    ``state`` the new state. ``rolls`` are the rolls the ruling was made with (a live step
    that rolled and was then judged illegal still used them: the caller consumes them)."""

    action: BaseModel | None
    owner: str | None = None
    ruling: Ruling | None = None
    state: Any = None
    rolls: tuple[Any, ...] = ()
    dice_needed: tuple[int, ...] = ()
    private_to: tuple[str, ...] | None = None
    """Seats besides the umpire and the submitter who may read the event; None: everyone."""
    over: bool = False
    turn: Turn | None = None
    """Where play stands after a legal, applied action (None: no sequence of play)."""
    refusal: Refusal | None = None

    @property
    def kind(self) -> str:
        return str(getattr(self.action, "kind", type(self.action).__name__))

    def visible_to(self, *readers: str) -> list[str] | None:
        """Who may read the event: None (every reader), or the private readers, ``readers``
        (the submitter) and the umpire."""
        if self.private_to is None:
            return None
        return sorted({*self.private_to, *readers, UMPIRE})


def die_sizes(sizes: Iterable[int]) -> tuple[int, ...]:
    """Die sizes as a ruleset's hook names them, in order; a size of 0 or less is no die."""
    return tuple(int(s) for s in sizes if int(s) > 0)


def dice_sizes(ruleset: AnyRuleset, board: Any, state: Any, action: BaseModel) -> tuple[int, ...]:
    """The die sizes an action needs, in order (its kind's ``dice``)."""
    return die_sizes(ruleset.dice_needed(board, state, action))


def step(
    ruleset: AnyRuleset,
    board: Any,
    state: Any,
    options: Any,
    seat: str | None,
    action_doc: Any,
    roll: Roll,
    *,
    enforce_sequence: bool = True,
) -> Step:
    """Play one action (see the module docstring for the order of the checks). Pure."""
    # 1. well-formed
    if isinstance(action_doc, BaseModel):
        action = action_doc
    else:
        try:
            action = ruleset.parse_action(action_doc)
        except ValidationError as exc:
            errors = tuple(dict(e) for e in exc.errors(include_url=False))
            return Step(None, refusal=Refusal("well_formed", errors=errors))
    # 2. owner / seat
    owner: str | None = None
    if seat is not None:
        owner = ruleset.actor_side(board, state, action)
        if owner == UMPIRE and seat != UMPIRE:
            return Step(action, owner, refusal=Refusal("umpire_only", owner))
        if owner is not None and seat not in (owner, UMPIRE):
            return Step(action, owner, refusal=Refusal("not_owner", owner))
        # 3. the phase lets the seat act, and allows the kind
        if enforce_sequence:
            turn = where(ruleset, board, state)
            if turn is not None and not (
                may_act(turn, seat, owner)
                and (_phase_ruled(ruleset, action) or _phase_allows(turn.phase, action))
            ):
                return Step(action, owner, refusal=Refusal("out_of_sequence", owner, turn))
    # 4. judge
    sizes = dice_sizes(ruleset, board, state, action)
    if roll is None:  # a dry run: judged with no dice, nothing applied
        ruling = ruleset.adjudicate(board, state, action, options, ())
        return Step(action, owner, ruling, dice_needed=sizes)
    if callable(roll):
        if sizes:  # legality first, with no dice: an illegal action must not roll any
            before = _judged_without_dice(ruleset, board, state, action, options)
            if before is not None and not before.legal:
                return Step(action, owner, before, dice_needed=sizes)
        rolls = tuple(roll(list(sizes)))
    else:
        rolls = tuple(roll)
        if tuple(r.sides for r in rolls) != sizes:
            refusal = Refusal("dice", owner, dice_needed=sizes)
            return Step(action, owner, dice_needed=sizes, refusal=refusal)
    values = tuple(r.value for r in rolls)
    ruling = ruleset.adjudicate(board, state, action, options, values)
    private = ruleset.private_to(board, state, action)
    seen = None if private is None else tuple(private)
    if not ruling.legal:
        return Step(action, owner, ruling, rolls=rolls, dice_needed=sizes, private_to=seen)
    # 5. apply
    new_state = ruleset.apply(board, state, action, ruling)
    over = ruleset.is_over(board, new_state)
    return Step(
        action, owner, ruling, new_state, rolls, sizes, seen, over, where(ruleset, board, new_state)
    )


def _phase_allows(phase: PhaseSpec, action: BaseModel) -> bool:
    return allows(phase, str(getattr(action, "kind", "")))


def _phase_ruled(ruleset: AnyRuleset, action: BaseModel) -> bool:
    """Whether the ruleset's judge rules on the action's phase (its :attr:`Ruleset.phase_rule`
    covers the kind), so the step leaves a kind out of its phase to the judge."""
    rule = ruleset.phase_rule
    return rule is not None and rule.rules_on(str(getattr(action, "kind", "")))


def _judged_without_dice(
    ruleset: AnyRuleset, board: Any, state: Any, action: BaseModel, options: Any
) -> Ruling | None:
    """The ruling on legality alone (no dice); None when the ruleset cannot judge the action
    without its dice."""
    try:
        return ruleset.adjudicate(board, state, action, options, ())
    except ValidationError:
        raise
    except (RulesError, ValueError, LookupError):
        return None
