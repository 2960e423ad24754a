"""``terrain``: what a seat may do now (``Ruleset.available_actions``).

The terrain definitions give no sequence of play (a project default: every side may act at
any time). Every unit of the seat's side still on the table may ``move``, ``charge`` and be
ordered to ``hold`` (Holding or Advancing, A.47), and may ``fire`` while an enemy unit
remains; a unit whose equipment was destroyed by a broken wheel (A.46) acts no more. The
umpire sees every side's units.
"""

from __future__ import annotations

from app.rules.base import UMPIRE, AvailableActions, UnitActions
from app.rules.ruling import Citation
from app.rules.terrain.catalog import CATALOG
from app.rules.terrain.models import Board, State

NO_SEQUENCE = (
    "The terrain definitions give no sequence of play: any side may act at any time "
    "(project default)."
)


def available_actions(board: Board, state: State, seat: str) -> AvailableActions:
    sides = {s.id for s in board.sides} if seat == UMPIRE else {seat}
    units: list[UnitActions] = []
    for unit in state.units:
        if unit.side not in sides or unit.destroyed:
            continue
        enemies = any(u.side != unit.side and not u.destroyed for u in state.units)
        kinds = ("move", "charge", "fire", "hold") if enemies else ("move", "charge", "hold")
        units.append(UnitActions(unit=unit.id, kinds=kinds))
    destroyed = [u.id for u in state.units if u.side in sides and u.destroyed]
    notes = [NO_SEQUENCE]
    citations: tuple[Citation, ...] = ()
    if destroyed:
        notes.append(f"Destroyed by a broken wheel, no longer acting: {', '.join(destroyed)}.")
        citations = (CATALOG.cite("A.46"),)
    return AvailableActions(
        kinds=tuple(sorted({k for u in units for k in u.kinds})),
        units=tuple(units),
        citations=citations,
        notes=tuple(notes),
    )
