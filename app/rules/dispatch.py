"""The declarations a ruleset package wires into its :class:`~app.rules.base.Ruleset`.

* :class:`Kind` -- one action kind: its pydantic model, who may submit it, the judge that rules
  on it and the function that applies it. A ruleset lists its kinds in ``Ruleset.kinds``; the
  base then parses, dispatches, judges and applies every action through that table.
* :class:`Query` -- one read-only query: its parameter model, the function answering it and
  the model of its answer. A ruleset lists them in ``Ruleset.query_table``.
* :class:`Sealed` -- a ruleset's sealed orders (simultaneous secret decisions): which are open,
  how one side's order is judged before it is accepted, the dice the revealed orders need,
  their resolution and its apply. A ruleset with sealed orders sets ``Ruleset.sealed``.
* An **offer** -- ``Ruleset.offer``, the function listing what a seat may do now
  (``offer(board, state, options, seat) -> AvailableActions``).

Judges and queries take the ruleset's per-ruling **context** (``Ruleset.context``: board,
state, options and dice, with the bookkeeping of :mod:`app.rules.judgement`) and the typed
action or parameters, never ``Any``. An ``apply`` gets the board, the state, the typed action
and the typed **outcome** of the legal ruling (``Kind.outcome``, validated by the base from
the ruling's details), never the untyped details themselves.

Pure: no I/O, clock or randomness.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from app.rules.judgement import Problem
from app.rules.ruling import Ruling

if TYPE_CHECKING:
    from app.rules.base import SealedDecision

CtxT = TypeVar("CtxT")
BoardT = TypeVar("BoardT")
StateT = TypeVar("StateT")
ActT = TypeVar("ActT", bound=BaseModel)
OutT = TypeVar("OutT", bound=BaseModel)
ParT = TypeVar("ParT", bound=BaseModel)

Owner = Literal["unit", "umpire", "anyone"]
"""Who owns an action: the side of the unit it names (``action.unit``), the umpire, or any
seat."""


class Outcome(BaseModel):
    """Base of the typed outcomes ``apply`` receives: the facts of a legal ruling that the
    new state depends on (extra details of the ruling are ignored)."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class NoOutcome(Outcome):
    """For kinds whose ``apply`` needs nothing beyond the action."""


@dataclass(frozen=True)
class Kind(Generic[CtxT, BoardT, StateT, ActT, OutT]):
    """One action kind of a ruleset's dispatch table, with every fact about the kind.

    ``judge(ctx, action) -> Ruling``; ``apply(board, state, action, outcome) -> new state``
    (called only for a legal ruling; never mutates its inputs); ``outcome`` is the model of
    the facts ``apply`` needs, read from the legal ruling's details.

    The facts :func:`app.rules.play.step` asks of a kind (the base's ``actor_side``,
    ``dice_needed`` and ``private_to`` read them; nothing ruleset-wide dispatches on the
    action's type):

    * ``owner`` -- whose seat may submit it: the side of the unit it names (``unit``; which
      unit: ``unit_of``, default ``action.unit``), the umpire's, or anyone's. With the
      phase's ``acts`` and ``kinds`` (:class:`~app.rules.base.PhaseSpec`) this is "may this
      seat do it now";
    * ``dice(board, state, action)`` -- the sizes of the dice it needs, in order (None: none);
    * ``private(board, state, action)`` -- the seats besides the umpire and the submitter
      who may read its event (None, or a function answering None: every reader).

    What the kit checks before the judge, for a ruleset whose rules refuse a kind out of its
    phase (``Ruleset.phase_rule``; :meth:`~app.rules.base.Ruleset.adjudicate`, in this
    order; the judge itself never checks the phase):

    * ``names(ctx, action)`` -- what the rules check before the phase (a unit or zone the
      action names that does not exist…): the first such problem, or None;
    * the phase -- the generic :func:`~app.rules.phases.out_of_phase` of the sequence's
      ``PhaseSpec.kinds``, worded by the ruleset's ``PhaseRule``;
    * ``despite_phase(ctx, action)`` -- the problems cited with a phase refusal because they
      forbid the action whatever the phase (a defender's counter-charge…); after the phase's
      reason, or before it with ``despite_first``;
    * ``phase_of_part`` -- True for a kind whose judge asks a part's ruleset (its
      ``adjudicate``), whose own phase rule decides the kind's phase: the kit checks none.

    The judge is called only when none of these refuses the action. In its phase the kit
    asks neither ``names`` nor ``despite_phase``: the judge rules from its first check, those
    rules of the kind included, but never checks the phase.
    """

    model: type[ActT]
    judge: Callable[[CtxT, ActT], Ruling]
    apply: Callable[[BoardT, StateT, ActT, OutT], StateT]
    outcome: type[OutT]
    owner: Owner = "unit"
    dice: Callable[[BoardT, StateT, ActT], Sequence[int]] | None = None
    private: Callable[[BoardT, StateT, ActT], Sequence[str] | None] | None = None
    unit_of: Callable[[ActT], str] | None = None
    names: Callable[[CtxT, ActT], Problem | None] | None = None
    despite_phase: Callable[[CtxT, ActT], Sequence[Problem]] | None = None
    despite_first: bool = False
    phase_of_part: bool = False

    def owning_unit(self, action: ActT) -> str:
        """The unit whose side owns the action (``owner == "unit"``)."""
        if self.unit_of is not None:
            return self.unit_of(action)
        return str(getattr(action, "unit", ""))

    def dice_needed(self, board: BoardT, state: StateT, action: ActT) -> Sequence[int]:
        return () if self.dice is None else self.dice(board, state, action)

    def private_to(self, board: BoardT, state: StateT, action: ActT) -> Sequence[str] | None:
        return None if self.private is None else self.private(board, state, action)


@dataclass(frozen=True)
class Query(Generic[CtxT, ParT]):
    """One read-only query: ``run(ctx, params)`` answers with plain JSON; ``result`` is the
    answer's model (:class:`~app.rules.base.QueryResultModel`) for the OpenAPI document."""

    name: str
    description: str
    params: type[ParT]
    run: Callable[[CtxT, ParT], Any]
    result: Any = None


@dataclass(frozen=True)
class Sealed(Generic[BoardT, StateT]):
    """A ruleset's sealed orders, as the base's sealed hooks ask them
    (:meth:`~app.rules.base.Ruleset.sealed_decisions` and the four after it):

    * ``decisions(board, state)`` -- the sealed decisions open now, by id;
    * ``judge(board, state, decision, side, order, options)`` -- one side's order judged
      before it is accepted (options coerced by the base);
    * ``dice(board, state, decision_id, orders)`` -- the die sizes the revealed orders need;
    * ``resolve(board, state, decision_id, orders, options, dice)`` -- the ruling on them;
    * ``apply(board, state, decision_id, orders, ruling)`` -- the state after a resolution.
    """

    decisions: Callable[[BoardT, StateT], Mapping[str, SealedDecision]]
    judge: Callable[[BoardT, StateT, SealedDecision, str, BaseModel, Any], Ruling]
    dice: Callable[[BoardT, StateT, str, Mapping[str, BaseModel]], Sequence[int]]
    resolve: Callable[[BoardT, StateT, str, Mapping[str, BaseModel], Any, Sequence[int]], Ruling]
    apply: Callable[[BoardT, StateT, str, Mapping[str, BaseModel], Ruling], StateT]
