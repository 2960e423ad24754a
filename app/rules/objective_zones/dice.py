"""The dice an objective-zones action needs (d10s read 0-9, ``oz.d10``): a bombardment's
(OZ.Basic.G), a morale test's (OZ.Morale) and an engaged melee's round (OZ.PostMelee.D.4)."""

from __future__ import annotations

from app.rules.objective_zones import engaged, fire, morale
from app.rules.objective_zones.models import (
    Action,
    Board,
    Bombard,
    ContinueMelee,
    MoraleTest,
    State,
)
from app.rules.objective_zones.zones import judging


def dice_needed(board: Board, state: State, action: Action) -> list[int]:
    if isinstance(action, Bombard):
        return fire.bombard_dice(judging(board, state, board.options), action)
    if isinstance(action, MoraleTest):
        return morale.dice_needed(board, state, action)
    if isinstance(action, ContinueMelee):
        return engaged.dice_needed(judging(board, state, board.options), action)
    return []
