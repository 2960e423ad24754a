"""The umpire's actions (``basic.umpire``): start a phase, place a unit, place or remove a
marker. Only the umpire submits them; each is judged for well-formedness and cited."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app import native
from app.rules.dispatch import NoOutcome
from app.rules.judgement import Problem
from app.rules.ruling import Ruling
from app.rules.zoc.context import Context, effect, illegal, legal
from app.rules.zoc.models import (
    PlaceMarkerAction,
    PlaceUnitAction,
    RemoveMarkerAction,
    SetPhaseAction,
    State,
)
from app.rules.zoc.setup import marker_problem, normalized_marker

if TYPE_CHECKING:  # the pure module's; at run time the build in use (app/native.py)
    from app.rules.zoc.index import moved_to
else:
    moved_to = native.selected("app.rules.zoc.index").moved_to


def judge_set_phase(ctx: Context, action: SetPhaseAction) -> Ruling:
    sides = {s.id for s in ctx.board.sides}
    if action.phasing_side not in sides:
        return illegal(
            ctx,
            Problem(
                "zoc.unknown_side", f"There is no side {action.phasing_side!r}.", ["basic.umpire"]
            ),
        )
    zones = {h.weather_zone for h in ctx.board.hexes.values() if h.weather_zone is not None}
    for zone in action.weather:
        if zone not in zones:
            return illegal(
                ctx,
                Problem(
                    "zoc.unknown_zone", f"No hex lies in weather zone {zone!r}.", ["basic.umpire"]
                ),
            )
    weather = {**ctx.state.weather, **action.weather}
    return legal(
        ctx,
        f"The {action.phase} phase of {action.phasing_side} begins; unit positions are recorded "
        "as their start positions.",
        [
            effect(
                ctx,
                "zoc.phase_started",
                f"{action.phase} ({action.phasing_side})",
                ["basic.umpire", "8.2.operational.started-in"],
                details={
                    "phase": action.phase,
                    "phasing_side": action.phasing_side,
                    "weather": weather,
                },
            )
        ],
        {"phase": action.phase, "phasing_side": action.phasing_side, "weather": weather},
    )


def judge_place_unit(ctx: Context, action: PlaceUnitAction) -> Ruling:
    if action.unit not in ctx.units:
        return illegal(
            ctx, Problem("zoc.unknown_unit", f"There is no unit {action.unit!r}.", ["basic.umpire"])
        )
    if action.hex is not None and not ctx.on_map(action.hex):
        return illegal(
            ctx,
            Problem(
                "zoc.off_map",
                f"Hex {action.hex!r} is not on the map.",
                ["basic.umpire"],
                hex=action.hex,
                unit=action.unit,
            ),
        )
    where = action.hex or "off the map"
    return legal(
        ctx,
        f"The umpire puts {action.unit} {'in ' if action.hex else ''}{where}.",
        [effect(ctx, "zoc.unit_placed", where, ["basic.umpire"], unit=action.unit, hex=action.hex)],
        {"unit": action.unit, "hex": action.hex},
    )


def judge_place_marker(ctx: Context, action: PlaceMarkerAction) -> Ruling:
    marker = action.marker
    problem = marker_problem(
        marker, ctx.board.layout.layout(), ctx.board.hexes, {s.id for s in ctx.board.sides}
    )
    if problem is not None:
        sections = ["basic.umpire"] + (["8.clar.beachhead"] if marker.kind == "beachhead" else [])
        return illegal(ctx, Problem("zoc.bad_marker", problem, sections, hex=marker.hex))
    return legal(
        ctx,
        f"The umpire places {marker.kind} marker {marker.id} in {marker.hex}.",
        [effect(ctx, "zoc.marker_placed", marker.kind, ["basic.umpire"], hex=marker.hex)],
        {"marker": normalized_marker(marker).model_dump(mode="json")},
    )


def judge_remove_marker(ctx: Context, action: RemoveMarkerAction) -> Ruling:
    if all(m.id != action.marker for m in ctx.state.markers):
        return illegal(
            ctx,
            Problem(
                "zoc.unknown_marker", f"There is no marker {action.marker!r}.", ["basic.umpire"]
            ),
        )
    return legal(
        ctx,
        f"The umpire removes marker {action.marker}.",
        [effect(ctx, "zoc.marker_removed", action.marker, ["basic.umpire"])],
        {"marker": action.marker},
    )


def apply_set_phase(board: object, state: State, action: SetPhaseAction, _: NoOutcome) -> State:
    """The phase begins: weather set, start positions recorded (8.2), moved list cleared."""
    new = state.model_copy(deep=True)
    new.phase = action.phase
    new.phasing_side = action.phasing_side
    new.weather.update(action.weather)
    if action.turn is not None:
        new.turn = action.turn
    new.start_positions = {u.id: u.hex for u in new.units}
    new.moved = []
    return new


def apply_place_unit(board: object, state: State, action: PlaceUnitAction, _: NoOutcome) -> State:
    return moved_to(state, action.unit, action.hex)


def apply_place_marker(
    board: object, state: State, action: PlaceMarkerAction, _: NoOutcome
) -> State:
    new = state.model_copy(deep=True)
    marker = normalized_marker(action.marker)
    new.markers = [m for m in new.markers if m.id != marker.id] + [marker]
    return new


def apply_remove_marker(
    board: object, state: State, action: RemoveMarkerAction, _: NoOutcome
) -> State:
    new = state.model_copy(deep=True)
    new.markers = [m for m in new.markers if m.id != action.marker]
    return new
