"""``zoi``: what a seat may do now (``Ruleset.available_actions``).

* Movement phase: each unit of the phasing side that has not moved this phase may ``move``
  (``sequence``: moves belong to the phasing side's movement phase; ``movement``: once per
  phase).
* Melee phase: either side's units may make a ``melee_retreat`` when a melee drives them out
  (14.melee-retreat).
* Other phases (charges, fire, morale recovery) have no action of rule 14 here: nothing to
  submit but the end of the phase.
* The umpire acts for every side and alone sets the phase (``sequence``).
"""

from __future__ import annotations

from app.rules.base import UMPIRE, AvailableActions, UnitActions
from app.rules.zoi.catalog import CATALOG
from app.rules.zoi.models import ZoiBoard, ZoiState


def available_actions(board: ZoiBoard, state: ZoiState, seat: str) -> AvailableActions:
    sides = {s.id for s in board.sides} if seat == UMPIRE else {seat}
    gone = set(state.eliminated)
    units: list[UnitActions] = []
    for unit in state.units:
        if unit.side not in sides or unit.id in gone:
            continue
        if state.phase == "movement" and unit.side == state.phasing and unit.id not in state.moved:
            units.append(
                UnitActions(
                    unit=unit.id,
                    kinds=("move",),
                    citations=(CATALOG.cite("sequence"), CATALOG.cite("movement")),
                )
            )
        elif state.phase == "melee":
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
