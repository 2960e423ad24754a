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

from app.rules.base import UMPIRE, AvailableActions
from app.rules.offer import Opening, offer, seat_sides
from app.rules.zoc.catalog import CATALOG
from app.rules.zoc.context import Context
from app.rules.zoc.models import MOVEMENT_PHASES, Board, State, Unit, ZocOptions
from app.rules.zoc.movement import Mover

UMPIRE_KINDS = ("set_phase", "place_unit", "place_marker", "remove_marker")


def available_actions(
    board: Board, state: State, options: ZocOptions, seat: str
) -> AvailableActions:
    ctx = Context(board, state, options)
    sides = seat_sides((s.id for s in board.sides), seat)
    moving = state.phase in MOVEMENT_PHASES
    units = (
        (unit.id, _openings(ctx, unit, moving))
        for unit in state.units
        if unit.side in sides and unit.hex is not None
    )
    umpire = seat == UMPIRE
    note = (
        "only the phasing side's ground units that have not moved yet may move."
        if moving
        else "no unit moves; retreats follow combat results."
    )
    return offer(
        CATALOG.cite,
        units,
        lead=("basic.phase",),
        more=("basic.umpire",) if umpire else (),
        extra_kinds=UMPIRE_KINDS if umpire else (),
        notes=(f"{state.phase.replace('_', ' ')} phase of {state.phasing_side}: {note}",),
    )


def _openings(ctx: Context, unit: Unit, moving: bool) -> list[Opening]:
    out: list[Opening] = []
    if moving and Mover(ctx, unit).may_move() is None:
        out.append(("move", ("basic.phase",)))
    if ctx.state.phase == "combat" and unit.ground:
        out.append(("retreat", ("8.2.retreat", "basic.retreat")))
    out.append(("trace_supply", ("8.2.supply", "basic.supply")))
    return out
