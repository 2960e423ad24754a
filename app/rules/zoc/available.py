"""``zoc``: what a seat may do now (``Ruleset.available_actions``).

* Movement phases (Operational Movement, Exploitation, Reserve Movement): each ground unit
  of the phasing side on the map that has not moved this phase may ``move`` -- the same
  pseudo-legal gate a move is judged by first (``basic.phase``).
(The phases and the kinds each allows are the sequence's ``PhaseSpec.kinds``.)

* Combat: both sides' ground units on the map may ``retreat`` when a combat result tells
  them to (8.2.retreat, basic.retreat).
* Any phase: a unit on the map may ``trace_supply`` (8.2.supply, basic.supply).
* The umpire acts for every side and alone uses the umpire actions (basic.umpire).
"""

from __future__ import annotations

from app.rules.base import UMPIRE, AvailableActions
from app.rules.offer import Opening, offer, seat_sides
from app.rules.phases import is_open
from app.rules.zoc.catalog import CATALOG
from app.rules.zoc.context import Context
from app.rules.zoc.models import Board, State, Unit, ZocOptions
from app.rules.zoc.movement import Mover
from app.rules.zoc.sequence import PHASES, UMPIRE_KINDS


def available_actions(
    board: Board, state: State, options: ZocOptions, seat: str
) -> AvailableActions:
    ctx = Context(board, state, options)
    sides = seat_sides((s.id for s in board.sides), seat)
    moving = is_open(PHASES, state.phase, "move")
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
    if unit.ground:
        out.append(("retreat", ("8.2.retreat", "basic.retreat")))
    out.append(("trace_supply", ("8.2.supply", "basic.supply")))
    return [o for o in out if is_open(PHASES, ctx.state.phase, o[0])]
