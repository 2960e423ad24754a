"""``zoi``: what a seat may do now (``Ruleset.available_actions``).

Each unit is offered a kind only if the ruling on that kind would accept some action of it,
by the same predicates the rulings use (never a copy of their conditions):

* Movement phase: a unit may ``move`` when :func:`~app.rules.zoi.movement.may_move` -- it
  belongs to the phasing side (``sequence``), has not moved this phase (``movement``) and some
  first step of a move is legal for it (a unit hemmed in by enemies and closed terrain, with
  no change it may make, has no move).
* Melee phase: a unit may make a ``melee_retreat`` when
  :func:`~app.rules.zoi.retreat.may_melee_retreat` -- it is a combat formation (a leader is
  not, 14.melee-retreat) and some hex next to it is open to a retreat.
* Other phases (charges, fire, morale recovery) have no action of rule 14 here: nothing to
  submit but the end of the phase.
* The umpire acts for every side and alone sets the phase (``sequence``).
"""

from __future__ import annotations

from app.rules.base import UMPIRE, AvailableActions, UnitActions
from app.rules.zoi.catalog import CATALOG
from app.rules.zoi.models import ZoiBoard, ZoiOptions, ZoiState
from app.rules.zoi.movement import may_move
from app.rules.zoi.retreat import may_melee_retreat
from app.rules.zoi.zones import Game


def available_actions(
    board: ZoiBoard, state: ZoiState, options: ZoiOptions, seat: str
) -> AvailableActions:
    game = Game(board, state, options)
    sides = {s.id for s in board.sides} if seat == UMPIRE else {seat}
    gone = set(state.eliminated)
    units: list[UnitActions] = []
    for unit in state.units:
        if unit.side not in sides or unit.id in gone:
            continue
        if state.phase == "movement" and may_move(game, unit):
            units.append(
                UnitActions(
                    unit=unit.id,
                    kinds=("move",),
                    citations=(CATALOG.cite("sequence"), CATALOG.cite("movement")),
                )
            )
        elif state.phase == "melee" and may_melee_retreat(game, unit):
            units.append(
                UnitActions(
                    unit=unit.id,
                    kinds=("melee_retreat",),
                    citations=(CATALOG.cite("sequence"), CATALOG.cite("14.melee-retreat")),
                )
            )
    kinds = sorted({k for u in units for k in u.kinds})
    cited = ["sequence", *(["movement"] if state.phase == "movement" else [])]
    if state.phase == "melee":
        cited.append("14.melee-retreat")
    if seat == UMPIRE:
        kinds.append("set_phase")
    notes: tuple[str, ...] = ()
    if not units and seat != UMPIRE:
        notes = (f"No unit of {seat} acts in the {state.phase.replace('_', ' ')} phase here.",)
    return AvailableActions(
        kinds=tuple(kinds),
        units=tuple(units),
        citations=tuple(CATALOG.cite(s) for s in cited),
        notes=notes,
    )
