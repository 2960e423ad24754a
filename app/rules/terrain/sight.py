"""Line of sight and fire across terrain (A.11, A.24, A.42, A.44, A.45): what blocks a sight
line, woods that stop an artillery kill zone, no fire from a ford."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.rules.dispatch import NoOutcome
from app.rules.ruling import Ruling
from app.rules.terrain.geometry import (
    HEAVY,
    LIGHT,
    SIGHT_BLOCKING,
    TOLERANCE,
    pieces,
    placed,
    point_in,
    sight_line,
    split,
    yards,
)
from app.rules.terrain.ground import Ctx, actor, in_feature, on_table
from app.rules.terrain.models import Board, Fire, Options, State, Unit


def line_of_sight(
    board: Board, options: Options, a: Sequence[float], b: Sequence[float]
) -> dict[str, Any]:
    """Which features block the sight line from ``a`` to ``b`` (A.42, A.44, A.45)."""
    line = sight_line(a, b)
    blocked_by: list[dict[str, Any]] = []
    ignored: list[str] = []
    ignored_sections: set[str] = set()
    relied: list[str] = []
    blocking = [pl for pl in placed(board) if pl.kind in SIGHT_BLOCKING]
    # a stretch along an edge two side-by-side features share is in one of them (the reading
    # terrain.shared-edge, as for movement), not in each: its yards count once
    once = options.shared_edge == "once"
    splits = {sp.where.id: sp for sp in split(line, blocking, once=once)} if line.length else {}
    for pl in blocking:
        sp = splits.get(pl.id)
        if sp is None:
            continue
        if sp.shared:
            relied.append("terrain.shared-edge")
        inside = sum(p.length for p in sp.parts)
        if inside <= TOLERANCE:
            continue
        holds_end = point_in(a, pl.shape) or point_in(b, pl.shape)
        if holds_end:
            relied.append("terrain.los-own-feature")
        clause = "A.44" if pl.kind in HEAVY else "A.45" if pl.kind in LIGHT else "A.42"
        if holds_end and options.los_from_inside == "sees_out":
            ignored.append(pl.id)
            ignored_sections.add(clause)
            continue
        blocked_by.append(
            {"feature": pl.id, "kind": pl.kind, "section": clause, "yards": yards(inside)}
        )
    for pl in placed(board):
        if pl.kind != "hill" or line.length <= 0:
            continue
        if sum(p.length for p in pieces(line, pl.shape)) <= TOLERANCE:
            continue
        relied.append("terrain.hill-sight")  # under either reading: it decides the line
        if not options.hills_block_sight:
            continue
        if point_in(a, pl.shape) or point_in(b, pl.shape):
            continue  # a unit on the hill sees over it (and is seen)
        blocked_by.append(
            {
                "feature": pl.id,
                "kind": "hill",
                "section": "A.11",
                "yards": yards(line.intersection(pl.shape).length),
            }
        )
    return {
        "clear": not blocked_by,
        "blocked_by": blocked_by,
        "ignored": ignored,
        "yards": yards(line.length),
        "citations": sorted(
            {x["section"] for x in blocked_by}
            | ignored_sections
            | ({"A.11"} if "terrain.hill-sight" in relied else set())
        )
        or ["A.4"],
        "interpretations": sorted(set(relied)),
    }


def fire_checks(ctx: Ctx, unit: Unit, target: Unit) -> None:
    for pl in placed(ctx.board):
        if pl.kind == "ford" and in_feature(ctx, unit, pl.shape):
            ctx.reject(
                "terrain.no_fire_in_ford",
                f"{unit.id} is halted in ford {pl.id} and may not fire",
                ("A.24",),
                unit=unit.id,
                details={"feature": pl.id},
            )
    los = line_of_sight(ctx.board, ctx.options, unit.at, target.at)
    ctx.rely(*los["interpretations"])
    ctx.cite(*los["citations"])
    for block in los["blocked_by"]:
        if unit.type == "artillery" and block["kind"] in HEAVY | LIGHT:
            # A.44 / A.45: woods stop an artillery kill zone, not only the sight line
            ctx.reject(
                "terrain.kill_zone_blocked",
                f"{block['feature']} stops {unit.id}'s kill zone",
                (block["section"],),
                unit=unit.id,
                details={"feature": block["feature"]},
            )
            continue
        ctx.reject(
            "terrain.los_blocked",
            f"{block['feature']} blocks the line of sight",
            (block["section"],),
            unit=unit.id,
            details={"feature": block["feature"]},
        )
    ctx.details.update(line_of_sight=los)


def judge_fire(ctx: Ctx, a: Fire) -> Ruling:
    unit = actor(ctx, a.unit)
    if unit is None:
        return ctx.finish("")
    target = on_table(ctx, a.target)
    if target is None:
        return ctx.finish("")
    fire_checks(ctx, unit, target)
    return ctx.finish(f"{unit.id} has a clear line of sight to {target.id}")


def apply_fire(board: Board, state: State, a: Fire, out: NoOutcome) -> State:
    """Fire changes nothing the terrain rules keep."""
    return state.model_copy(deep=True)
