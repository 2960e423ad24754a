"""The dice of the objective-zones action kinds that roll (d10s read 0-9, ``oz.d10``): a
bombardment's (OZ.Basic.G), a morale test's (OZ.Morale) and an engaged melee's round
(OZ.PostMelee.D.4). Each is its kind's ``Kind.dice`` (the ``KINDS`` table of ``ruleset``)."""

from __future__ import annotations

from app.rules.objective_zones import engaged, fire, morale
from app.rules.objective_zones.models import (
    Board,
    Bombard,
    ContinueMelee,
    MoraleTest,
    State,
)
from app.rules.objective_zones.sequence import PHASES
from app.rules.objective_zones.zones import judging
from app.rules.phases import is_open


def bombard(board: Board, state: State, a: Bombard) -> list[int]:
    """A bombardment's dice (OZ.Basic.G)."""
    return fire.bombard_dice(judging(board, state, board.options), a)


def morale_test(board: Board, state: State, a: MoraleTest) -> list[int]:
    """A morale test's die, when the unit owes one (OZ.Morale)."""
    return morale.dice_needed(board, state, a)


def continue_melee(board: Board, state: State, a: ContinueMelee) -> list[int]:
    """The dice of an engaged melee's next round (OZ.PostMelee.D.4); none out of its phase,
    where the round is refused before its judge."""
    if not is_open(PHASES, state.phase, a.kind):
        return []
    return engaged.dice_needed(judging(board, state, board.options), a)
