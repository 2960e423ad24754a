"""Whose move it is: the seats a game is waiting for, from its sequence of play and its open
sealed decisions. Used by ``GET /games?my_turn=`` and the "your turn" notification.

* A phase whose ``acts`` is ``phasing`` waits for the phasing side, ``non_phasing`` for the
  other sides, ``both`` for every side, ``umpire`` for the umpire.
* A ruleset without a sequence of play waits for every side (any of them may act).
* Every side of an open sealed decision is waited for until its order is in (the submitted
  sides are passed in by the caller, who reads them from the database).
* A finished game waits for nobody.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from app.rules.base import UMPIRE, Ruleset
from app.service import match as mt

AnyRuleset = Ruleset[Any, Any, Any, Any]


def phase_seats(ruleset: AnyRuleset, board: Any, state: Any) -> frozenset[str]:
    """The seats the sequence of play waits for (every side without one)."""
    sides = tuple(ruleset.sides(board).names)
    turn = mt.where(ruleset, board, state)
    if turn is None:
        return frozenset(sides)
    acts, phasing = turn.phase.acts, turn.position.phasing_side
    if acts == "phasing":
        return frozenset({phasing} if phasing else ())
    if acts == "non_phasing":
        return frozenset(s for s in turn.sides if s != phasing)
    if acts == "both":
        return frozenset(turn.sides)
    if acts == "umpire":
        return frozenset({UMPIRE})
    return frozenset()


def sealed_seats(
    ruleset: AnyRuleset,
    board: Any,
    state: Any,
    submitted: Mapping[str, Collection[str]] | None = None,
) -> dict[str, frozenset[str]]:
    """Open sealed decision id -> the sides still to submit (``submitted``: decision id ->
    sides whose order is in; none when omitted)."""
    done = submitted or {}
    return {
        decision.id: frozenset(s for s in decision.sides if s not in done.get(decision.id, ()))
        for decision in ruleset.sealed_decisions(board, state).values()
    }


def awaited(
    ruleset: AnyRuleset,
    board: Any,
    state: Any,
    *,
    active: bool = True,
    submitted: Mapping[str, Collection[str]] | None = None,
) -> frozenset[str]:
    """Every seat the game waits for."""
    if not active:
        return frozenset()
    seats = set(phase_seats(ruleset, board, state))
    for waiting in sealed_seats(ruleset, board, state, submitted).values():
        seats |= waiting
    return frozenset(seats)
