"""``zoc``: what a seat may do now (``Ruleset.available_actions``).

* Movement phases (Operational Movement, Exploitation, Reserve Movement): each ground unit
  of the phasing side on the map that has not moved this phase may ``move`` -- the same
  pseudo-legal gate a move is judged by first (``basic.phase``).
* Combat: both sides' ground units on the map may ``retreat`` when a combat result tells
  them to (8.2.retreat, basic.retreat).
* Any phase: a unit on the map may ``trace_supply`` (8.2.supply, basic.supply).
* The umpire acts for every side and alone uses the umpire actions (basic.umpire).
"""

from __future__ import annotations

from app.rules.base import UMPIRE, AvailableActions, UnitActions
from app.rules.zoc.catalog import CATALOG
from app.rules.zoc.context import Context
from app.rules.zoc.models import MOVEMENT_PHASES, Board, State, ZocOptions
from app.rules.zoc.movement import Mover

UMPIRE_KINDS = ("set_phase", "place_unit", "place_marker", "remove_marker")


def available_actions(
    board: Board, state: State, options: ZocOptions, seat: str
) -> AvailableActions:
    ctx = Context(board, state, options)
    sides = {s.id for s in board.sides} if seat == UMPIRE else {seat}
    units: list[UnitActions] = []
    cited: list[str] = ["basic.phase"]
    for unit in state.units:
        if unit.side not in sides or unit.hex is None:
            continue
        kinds: list[str] = []
        sections: list[str] = []
        if state.phase in MOVEMENT_PHASES and Mover(ctx, unit).may_move() is None:
            kinds.append("move")
            sections.append("basic.phase")
        if state.phase == "combat" and unit.ground:
            kinds.append("retreat")
            sections += ["8.2.retreat", "basic.retreat"]
        kinds.append("trace_supply")
        sections += ["8.2.supply", "basic.supply"]
        cited += sections
        units.append(
            UnitActions(
                unit=unit.id,
                kinds=tuple(kinds),
                citations=tuple(CATALOG.cite(s) for s in dict.fromkeys(sections)),
            )
        )
    kinds = sorted({k for u in units for k in u.kinds})
    if seat == UMPIRE:
        kinds += UMPIRE_KINDS
        cited.append("basic.umpire")
    notes = [
        f"{state.phase.replace('_', ' ')} phase of {state.phasing_side}: "
        + (
            "only the phasing side's ground units that have not moved yet may move."
            if state.phase in MOVEMENT_PHASES
            else "no unit moves; retreats follow combat results."
        )
    ]
    return AvailableActions(
        kinds=tuple(kinds),
        units=tuple(units),
        citations=tuple(CATALOG.cite(s) for s in dict.fromkeys(cited)),
        notes=tuple(notes),
    )
