"""``terrain``: what a seat may do now (``Ruleset.available_actions``).

The terrain definitions give no sequence of play (a project default: every side may act at
any time). Every unit of the seat's side still on the table may ``move``, ``charge`` and be
ordered to ``hold`` (Holding or Advancing, A.47), and may ``fire`` while an enemy unit
remains; a unit whose equipment was destroyed by a broken wheel (A.46) acts no more. The
umpire sees every side's units.
"""

from __future__ import annotations

from app.rules.base import AvailableActions
from app.rules.offer import offer, seat_sides
from app.rules.terrain.catalog import CATALOG
from app.rules.terrain.models import Board, Options, State

NO_SEQUENCE = (
    "The terrain definitions give no sequence of play: any side may act at any time "
    "(project default)."
)


def available_actions(board: Board, state: State, options: Options, seat: str) -> AvailableActions:
    sides = seat_sides((s.id for s in board.sides), seat)
    acting = [u for u in state.units if u.side in sides and not u.destroyed]
    units = ((unit.id, [(kind, ()) for kind in _kinds(state, unit.side)]) for unit in acting)
    destroyed = [u.id for u in state.units if u.side in sides and u.destroyed]
    notes = [NO_SEQUENCE]
    if destroyed:
        notes.append(f"Destroyed by a broken wheel, no longer acting: {', '.join(destroyed)}.")
    return offer(CATALOG.cite, units, more=("A.46",) if destroyed else (), notes=notes)


def _kinds(state: State, side: str) -> tuple[str, ...]:
    """Every kind, and ``fire`` only while an enemy unit remains."""
    enemies = any(u.side != side and not u.destroyed for u in state.units)
    return ("move", "charge", "fire", "hold") if enemies else ("move", "charge", "hold")
