"""Movement and charges through terrain (A.11-A.12, A.22-A.24, A.31, A.41-A.47).

Each check is one rule with its clause. :func:`judge_path` walks the features a path crosses,
in the order it enters them, and records every problem, effect and wheel check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shapely.geometry import LineString

from app.rules.dispatch import NoOutcome
from app.rules.ruling import Ruling
from app.rules.terrain.cover import advanced, advances
from app.rules.terrain.geometry import (
    BUSHES,
    HEAVY,
    LIGHT,
    ROUGH,
    TOLERANCE,
    Piece,
    Placed,
    may_meet,
    path_line,
    pieces,
    placed,
    point_at,
    point_in,
    split,
    yards,
    yards_text,
)
from app.rules.terrain.ground import (
    OBSTACLES,
    WHEELED,
    Ctx,
    actor,
    closed_reason,
    find_unit,
    in_feature,
    is_skirmish,
    movement_cap,
)
from app.rules.terrain.models import (
    Board,
    Charge,
    DeclareCharge,
    Move,
    MoveOutcome,
    Options,
    State,
    Unit,
)


@dataclass(frozen=True)
class Crossing:
    """A feature a path spends yards in."""

    where: Placed
    parts: tuple[Piece, ...]
    started_inside: bool
    shared_edge: bool = False
    """A stretch along an edge shared with another feature was counted once
    (``terrain.shared-edge``)."""

    @property
    def yards(self) -> float:
        return sum(p.length for p in self.parts)

    @property
    def entries(self) -> tuple[Piece, ...]:
        """Pieces that are real entries (not the stretch the unit started in)."""
        return tuple(p for p in self.parts if not (self.started_inside and p.start <= TOLERANCE))


def crossings(board: Board, line: LineString, options: Options | None = None) -> list[Crossing]:
    """Features the path spends yards in, ordered by where it first enters them; a stretch
    along an edge two features share counts once (``terrain.shared-edge``, :func:`split`)."""
    start = line.coords[0]
    bounds = line.bounds
    once = (options or board.options).shared_edge == "once"
    # the path cannot spend a yard in a feature whose box it misses
    near = [pl for pl in placed(board) if may_meet(bounds, pl.bounds)]
    out = [
        Crossing(sp.where, sp.parts, point_in(start, sp.where.shape), sp.shared)
        for sp in split(line, near, once=once)
    ]
    out.sort(key=lambda c: (c.parts[0].start, c.where.id))
    return out


def wheel_checks(
    unit: Unit, cross: Sequence[Crossing], options: Options
) -> list[tuple[Crossing, Piece]]:
    """The d10 checks a wheeled unit owes on this path (A.46, ``terrain.wheel-check``)."""
    if unit.type not in WHEELED:
        return []
    rough = [c for c in cross if c.where.kind in ROUGH]
    if options.wheel_check == "per_move":
        first = min(((c, c.parts[0]) for c in rough), key=lambda cp: cp[1].start, default=None)
        return [first] if first else []
    checks = [(c, p) for c in rough for p in c.entries]
    checks.sort(key=lambda cp: cp[1].start)
    return checks


def read_d10(value: int) -> int:
    """A rolled 10 reads as 0 (``terrain.d10-zero``)."""
    return 0 if value == 10 else value


def judge_path(
    ctx: Ctx, unit: Unit, waypoints: Sequence[Sequence[float]], *, charge: bool, dice: Sequence[int]
) -> tuple[LineString, list[Crossing]]:
    """Apply every terrain clause to one path; fill ``ctx`` with problems and effects."""
    opts = ctx.options
    line = path_line(unit.at, waypoints)
    total = line.length
    cross = crossings(ctx.board, line, opts)
    if any(c.shared_edge for c in cross):
        ctx.rely("terrain.shared-edge")
    end = line.coords[-1]
    by_feature: dict[str, float] = {}
    for c in cross:
        by_feature[c.where.id] = yards(c.yards)
    ctx.details.update(path_yards=yards(total), yards_by_feature=by_feature)
    table = ctx.board.table
    for n, (x, y) in enumerate(waypoints):
        if not (0 <= x <= table.width and 0 <= y <= table.height):
            ctx.reject(
                "terrain.off_table",
                f"waypoint {n} is off the table",
                ("T.Scenario",),
                unit=unit.id,
                step=n,
            )
    if total <= TOLERANCE:
        ctx.reject("terrain.no_path", "the path has no length", ("T.Scenario",), unit=unit.id)
        return line, cross

    ford_yards = 0.0
    extra = 0.0
    extra_sections: list[str] = []
    for c in cross:
        kind = c.where.kind
        fid = c.where.id
        if kind in OBSTACLES and c.entries:
            # A.31 (A.11): fences and low walls delay; the delay is scenario data
            ctx.rely("terrain.wall-delay")
            delay = ctx.board.obstacle_yards[kind] * len(c.entries)
            extra += delay
            extra_sections.append("A.31")
            ctx.effect(
                "terrain.obstacle_crossed",
                f"{unit.id} crosses {kind.replace('_', ' ')} "
                f"{fid}: {delay:g} yards of its allowance",
                ("A.31", "A.11", "T.Scenario"),
                unit=unit.id,
                details={"feature": fid, "yards": yards(delay)},
            )
            continue
        if kind == "hill":
            if c.where.feature.slope == "steep":
                ctx.rely("terrain.steep-slope")
                added = (ctx.board.steep_slope_cost - 1) * c.yards
                extra += added
                extra_sections.append("A.12")
                ctx.effect(
                    "terrain.steep_slope",
                    f"{unit.id} climbs the steep slopes of {fid}",
                    ("A.12", "T.Scenario"),
                    unit=unit.id,
                    details={"feature": fid, "yards": yards(c.yards), "extra": yards(added)},
                )
            else:
                ctx.cite("A.11")  # gentle slopes: no effect on movement
            continue
        # A.44 / A.45 / A.46: closed ground
        if kind in HEAVY | LIGHT | ROUGH:
            if unit.type in ("infantry", "cavalry") and unit.order == "unformed":
                ctx.rely("terrain.formed-troops")
            if unit.type == "artillery" and unit.limbered and kind in HEAVY | LIGHT:
                ctx.rely("terrain.limbered-guns")
            if unit.type == "artillery" and not unit.limbered and kind in HEAVY:
                ctx.rely("terrain.guns-heavy-woods")
                ctx.cite("A.44")  # the reading of A.44 decides whether guns may go in
            reason = closed_reason(unit, kind, opts)
            if reason is not None:
                ctx.reject(
                    "terrain.closed",
                    f"{unit.id} may not enter {fid}: {reason[1]}",
                    (reason[0],),
                    unit=unit.id,
                    details={"feature": fid, "kind": kind},
                )
                continue
            # A.45: formed troops may not charge in or through light woods
            if (
                charge
                and kind in LIGHT
                and unit.type in ("infantry", "cavalry")
                and not is_skirmish(unit, opts)
            ):
                ctx.reject(
                    "terrain.no_charge",
                    f"formed {unit.id} may not charge through light woods {fid}",
                    ("A.45",),
                    unit=unit.id,
                    details={"feature": fid},
                )
                continue
            cap = movement_cap(unit, kind, opts)
            if cap is not None:
                clause, limit, why = cap
                ctx.rely("terrain.cap-scope")
                counted = total if opts.cap_scope == "whole_move" else c.yards
                ctx.effect(
                    "terrain.movement_capped",
                    f"{why}: at most {limit:g} yards",
                    (clause,),
                    unit=unit.id,
                    details={
                        "feature": fid,
                        "cap": limit,
                        "yards_in_feature": yards(c.yards),
                        "counted": yards(counted),
                    },
                )
                if counted > limit + TOLERANCE:
                    ctx.reject(
                        "terrain.over_cap",
                        f"{unit.id} goes {yards_text(counted)} yards, "
                        f"over the {limit:g}-yard maximum in {fid}",
                        (clause,),
                        unit=unit.id,
                        details={"feature": fid, "cap": limit, "counted": yards(counted)},
                    )
            else:
                ctx.cite("A.45" if kind in LIGHT else "A.46" if kind in ROUGH else "A.44")
        elif kind in BUSHES:
            ctx.cite("A.42")  # bushes touch sight only, never movement
        elif kind == "ford":
            ctx.rely("terrain.ford-halving")
            ford_yards += c.yards
            blockers = [
                u.id
                for u in ctx.state.units
                if u.id != unit.id and not u.destroyed and in_feature(ctx, u, c.where.shape)
            ]
            if blockers:
                ctx.reject(
                    "terrain.ford_blocked",
                    f"{', '.join(blockers)} halted in ford {fid}: nobody may pass through it",
                    ("A.24",),
                    unit=unit.id,
                    details={"feature": fid, "by": blockers},
                )
        elif kind in ("stream", "river"):
            _water(ctx, unit, c, line)

    # allowance (scenario data), with A.24 halving in fords
    allowance = unit.movement
    cost = total + extra
    if ford_yards > TOLERANCE:
        if opts.ford_halving == "ford_part":
            cost = total + extra + ford_yards
        else:
            allowance = unit.movement / 2
        ctx.effect(
            "terrain.halved",
            "movement is halved in the ford",
            ("A.24",),
            unit=unit.id,
            details={
                "ford_yards": yards(ford_yards),
                "cost": yards(cost),
                "allowance": yards(allowance),
            },
        )
    ctx.details.update(cost=yards(cost), allowance=yards(allowance))
    if not charge and cost > allowance + TOLERANCE:
        # the allowance itself is scenario data (T.Scenario), cited when no clause changed it
        sections = [*(("A.24",) if ford_yards > TOLERANCE else ()), *extra_sections]
        ctx.reject(
            "terrain.over_allowance",
            f"{unit.id} needs {yards_text(cost)} yards of {yards_text(allowance)}",
            tuple(dict.fromkeys(sections)) or ("T.Scenario",),
            unit=unit.id,
            details={"cost": yards(cost), "allowance": yards(allowance)},
        )

    if ctx.violations or charge:
        return line, cross
    _wheels(ctx, unit, line, cross, dice)
    if not any(e.kind == "terrain.equipment_destroyed" for e in ctx.effects):
        _arrival(ctx, unit, end)
    return line, cross


def _water(ctx: Ctx, unit: Unit, c: Crossing, line: LineString) -> None:
    """A.22 / A.23: streams and rivers outside fords and bridges."""
    water = c.where.shape
    for pl in placed(ctx.board):
        if pl.kind in ("ford", "bridge"):
            water = water.difference(pl.shape)
    wet = sum(p.length for p in pieces(line, water))
    f = c.where.feature
    if wet <= TOLERANCE:
        # crossed only at fords or bridges: the clause that allows no other crossing decides
        if f.kind == "river":
            ctx.rely("terrain.river-crossing")
            ctx.cite("A.23")
        elif f.steep_banks or not f.fordable:
            ctx.cite("A.22")
        return
    if f.kind == "river":
        ctx.rely("terrain.river-crossing")
        ctx.reject(
            "terrain.river_crossing",
            f"river {f.id} is crossed only at a ford or bridge",
            ("A.23",),
            unit=unit.id,
            details={"feature": f.id},
        )
    elif f.steep_banks or not f.fordable:
        ctx.reject(
            "terrain.steep_banks",
            f"stream {f.id} is crossed only at a ford or bridge",
            ("A.22",),
            unit=unit.id,
            details={"feature": f.id},
        )
    else:
        ctx.effect(
            "terrain.stream_waded",
            f"{unit.id} wades stream {f.id}",
            ("A.22",),
            unit=unit.id,
            details={"feature": f.id, "yards": yards(wet)},
        )


def _wheels(
    ctx: Ctx, unit: Unit, line: LineString, cross: Sequence[Crossing], dice: Sequence[int]
) -> None:
    checks = wheel_checks(unit, cross, ctx.options)
    if not checks:
        return
    ctx.rely("terrain.wheel-check")
    for n, (c, piece) in enumerate(checks):
        roll = read_d10(dice[n]) if n < len(dice) else None
        if roll is not None:
            ctx.rely("terrain.d10-zero")
        at = point_at(line, piece.start)
        ctx.effect(
            "terrain.wheel_check",
            f"d10 for a broken wheel entering {c.where.id}",
            ("A.46",),
            unit=unit.id,
            details={"feature": c.where.id, "at": list(at), "roll": roll, "pending": roll is None},
        )
        if roll == 0:
            ctx.effect(
                "terrain.equipment_destroyed",
                f"{unit.id} breaks a wheel in {c.where.id}: the equipment is destroyed",
                ("A.46",),
                unit=unit.id,
                details={"feature": c.where.id, "at": list(at)},
            )
            ctx.details["destroyed_at"] = list(at)
            return


def _arrival(ctx: Ctx, unit: Unit, end: tuple[float, ...]) -> None:
    """Where the unit halts: fords, buildings, works, cover."""
    reach = max(unit.frontage / 2, 0.0)  # the footprint's radius (terrain.in-feature)
    footprint = (end[0] - reach, end[1] - reach, end[0] + reach, end[1] + reach)
    moved: Unit | None = None  # the unit where it halts, made for the first feature it may be in
    for pl in placed(ctx.board):
        f = pl.feature
        halts = f.kind in ("ford", "building", "earthworks", "protective_cover", "stone_wall")
        if not (halts or (f.kind == "fort" and f.partial) or (f.kind == "road" and f.sunken)):
            continue
        if not may_meet(footprint, pl.bounds):
            continue  # under either reading the unit is not in a feature its box misses
        if moved is None:
            moved = unit.model_copy(update={"at": (end[0], end[1])})
        if not in_feature(ctx, moved, pl.shape):
            continue
        if f.kind == "ford":
            ctx.effect(
                "terrain.stopped_in_ford",
                f"{unit.id} halts in ford {f.id}: it may not fire and blocks the ford",
                ("A.24",),
                unit=unit.id,
                details={"feature": f.id},
            )
        elif f.kind == "building":
            if unit.type == "cavalry" and unit.mounted:
                ctx.reject(
                    "terrain.must_dismount",
                    f"mounted {unit.id} may not occupy building {f.id}",
                    ("A.43",),
                    unit=unit.id,
                    details={"feature": f.id},
                )
                continue
            ctx.effect(
                "terrain.protective_position",
                f"{unit.id} holds building {f.id}",
                ("A.43", "A.47"),
                unit=unit.id,
                details={"feature": f.id, "hasty_works_add_nothing": f.hasty_works},
            )
        elif f.kind == "earthworks":
            if f.works == "prepared":
                ctx.effect(
                    "terrain.earthworks",
                    f"{unit.id} occupies prepared works {f.id}",
                    ("A.41",),
                    unit=unit.id,
                    details={"feature": f.id},
                )
            else:
                ctx.effect(
                    "terrain.protective_position",
                    f"{unit.id} occupies hasty works {f.id}",
                    ("A.41", "A.47"),
                    unit=unit.id,
                    details={"feature": f.id},
                )
        elif f.kind == "fort" and f.partial:
            ctx.effect(
                "terrain.earthworks",
                f"{unit.id} holds the fort wall section {f.id}: prepared earthworks",
                ("A.36", "A.41"),
                unit=unit.id,
                details={"feature": f.id},
            )
        elif f.kind == "stone_wall" or (f.kind == "road" and f.sunken):
            clause = "A.31" if f.kind == "stone_wall" else "A.12"
            what = "behind stone wall" if f.kind == "stone_wall" else "in sunken road"
            ctx.effect(
                "terrain.protective_position",
                f"{unit.id} is {what} {f.id}",
                (clause, "A.47"),
                unit=unit.id,
                details={"feature": f.id},
            )
        elif f.kind == "protective_cover":
            ctx.effect(
                "terrain.protective_position",
                f"{unit.id} is in protective cover {f.id}",
                ("A.47",),
                unit=unit.id,
                details={"feature": f.id},
            )


# -- the actions ----------------------------------------------------------------------------


def judge_move(ctx: Ctx, a: Move) -> Ruling:
    unit = actor(ctx, a.unit)
    if unit is None:
        return ctx.finish("")
    judge_path(ctx, unit, a.path, charge=False, dice=ctx.dice)
    advances(ctx)
    end = a.path[-1]
    return ctx.finish(
        f"{unit.id} moves {ctx.details.get('path_yards')} yards to ({end[0]:g}, {end[1]:g})"
    )


def judge_charge(ctx: Ctx, a: DeclareCharge) -> Ruling:
    unit = actor(ctx, a.unit)
    if unit is None:
        return ctx.finish("")
    judge_path(ctx, unit, a.path, charge=True, dice=())
    advances(ctx)
    return ctx.finish(f"{unit.id} may charge along the declared path")


def dice_needed(board: Board, state: State, a: Move) -> list[int]:
    """A d10 for each broken-wheel check the move owes (A.46)."""
    unit = find_unit(state, a.unit)
    if unit is None or unit.destroyed:
        return []
    line = path_line(unit.at, a.path)
    if line.length <= 0:
        return []
    return [10] * len(wheel_checks(unit, crossings(board, line, board.options), board.options))


def apply_move(board: Board, state: State, a: Move, out: MoveOutcome) -> State:
    """The unit stands at the path's end, or where a broken wheel destroyed it (A.46)."""
    units = []
    for u in state.units:
        if u.id == a.unit:
            if out.destroyed_at is not None:
                u = u.model_copy(update={"at": tuple(out.destroyed_at), "destroyed": True})
            else:
                u = u.model_copy(update={"at": tuple(a.path[-1])})
        units.append(u)
    return advanced(board, state.model_copy(update={"units": units}, deep=True), a.unit)


def apply_charge(board: Board, state: State, a: DeclareCharge, out: NoOutcome) -> State:
    """The declared path is kept for the charge (one per unit)."""
    charges = [c for c in state.charges if c.unit != a.unit]
    charges.append(Charge(unit=a.unit, path=list(a.path)))
    return advanced(board, state.model_copy(update={"charges": charges}, deep=True), a.unit)
