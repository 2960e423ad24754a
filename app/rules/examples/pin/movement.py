"""P.1 and P.2: judging and applying a move."""

from __future__ import annotations

from app.rules.dispatch import NoOutcome
from app.rules.examples.pin.models import Board, Move, Options, State
from app.rules.judgement import GameJudgement
from app.rules.ruling import Ruling

Ctx = GameJudgement[Board, State, Options]


def _next_to(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a != b and abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1


def judge_move(ctx: Ctx, action: Move) -> Ruling:
    unit = next((u for u in ctx.state.units if u.id == action.unit), None)
    if unit is None:
        ctx.reject("pin.unknown_unit", f"There is no unit {action.unit!r}.", ["P.1"])
        return ctx.finish("")
    x, y = action.to
    if not _next_to(unit.at, action.to):
        ctx.reject("pin.not_adjacent", f"{action.to} is not next to {unit.id}.", ["P.1"])
    if not (0 <= x < ctx.board.width and 0 <= y < ctx.board.height):
        ctx.reject("pin.off_board", f"{action.to} is off the board.", ["P.1"])
    if any(u.at == action.to for u in ctx.state.units):
        ctx.reject("pin.occupied", f"{action.to} is not free.", ["P.1"])
    enemies = [u.id for u in ctx.state.units if u.side != unit.side and _next_to(u.at, unit.at)]
    if enemies:
        ctx.reject("pin.pinned", f"{unit.id} is next to {', '.join(enemies)}.", ["P.2"])
    else:
        ctx.cite("P.2")  # no enemy next to it: P.2 decided that it may move
    ctx.cite("P.1")
    return ctx.finish(f"{unit.id} moves to {action.to}.")


def apply_move(board: Board, state: State, action: Move, outcome: NoOutcome) -> State:
    units = [
        u.model_copy(update={"at": action.to}) if u.id == action.unit else u for u in state.units
    ]
    return State(units=units)
