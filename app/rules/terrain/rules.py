"""Movement, charge and fire through terrain (A.22-A.24, A.41-A.47).

Each check is one early rule with its clause. :func:`judge_path` walks the features a path
crosses, in the order it enters them, and collects problems, effects and wheel checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from shapely.geometry import LineString

from app.rules.ruling import Citation, Effect, InterpretationRef, Ruling, Violation
from app.rules.terrain.catalog import CATALOG, INTERPRETATION_BY_ID
from app.rules.terrain.geometry import (
    BUSHES,
    HEAVY,
    LIGHT,
    ROUGH,
    SIGHT_BLOCKING,
    TOLERANCE,
    Piece,
    Placed,
    may_meet,
    path_line,
    pieces,
    placed,
    point_at,
    point_in,
    sight_line,
    unit_in,
    yards,
    yards_text,
)
from app.rules.terrain.models import Board, Options, State, Unit

WHEELED = frozenset({"wagon", "limber", "artillery"})
OBSTACLES = frozenset({"fence", "stone_wall"})
HEAVY_SKIRMISH_CAP = 60.0  # A.44
LIGHT_FORMED_CAP = 40.0  # A.45
PROLONGE_CAP = 20.0  # A.45
ROUGH_INFANTRY_CAP = 60.0  # A.46


# -- who counts as what -------------------------------------------------------------------


def is_skirmish(unit: Unit, options: Options) -> bool:
    """Skirmish order (unformed troops too under ``unformed_counts_as: skirmish``)."""
    if unit.order == "skirmish":
        return True
    return unit.order == "unformed" and options.unformed_counts_as == "skirmish"


def is_limber(unit: Unit, options: Options) -> bool:
    if unit.type == "limber":
        return True
    return unit.type == "artillery" and unit.limbered and options.limbered_guns_as_limbers


def closed_reason(unit: Unit, kind: str, options: Options) -> tuple[str, str] | None:
    """(clause, reason) when woods or rough are closed to the unit, else None."""
    if kind in HEAVY:
        if unit.type == "wagon" or is_limber(unit, options):
            return "A.44", "heavy woods are closed to wagons and limbers"
        if unit.type == "artillery" and options.guns_in_heavy_woods == "closed":
            return "A.44", "heavy woods are closed to guns (interpretation)"
        if unit.type in ("infantry", "cavalry") and not is_skirmish(unit, options):
            return "A.44", f"heavy woods are closed to formed {unit.type}"
        return None
    if kind in LIGHT:
        if unit.type == "wagon" or is_limber(unit, options):
            return "A.45", "light woods are closed to wagons and limbers"
        return None
    if kind in ROUGH and unit.type == "cavalry" and not is_skirmish(unit, options):
        return "A.46", "rough is closed to formed cavalry"
    return None


def movement_cap(unit: Unit, kind: str, options: Options) -> tuple[str, float, str] | None:
    """(clause, yards, why) of the movement/charge maximum in woods or rough, else None."""
    if kind in HEAVY:
        if unit.type == "artillery" and not unit.limbered:
            return "A.45", PROLONGE_CAP, "unlimbered guns go by prolonge"
        if is_skirmish(unit, options):
            return "A.44", HEAVY_SKIRMISH_CAP, "skirmishers in heavy woods"
        return None
    if kind in LIGHT:
        if unit.type == "artillery" and not unit.limbered:
            return "A.45", PROLONGE_CAP, "unlimbered guns go by prolonge"
        if unit.type in ("infantry", "cavalry") and not is_skirmish(unit, options):
            return "A.45", LIGHT_FORMED_CAP, "formed troops in light woods"
        return None
    if kind in ROUGH and unit.type == "infantry" and not is_skirmish(unit, options):
        return "A.46", ROUGH_INFANTRY_CAP, "formed infantry in rough"
    return None


# -- the per-ruling context ---------------------------------------------------------------


@dataclass
class Ctx:
    board: Board
    state: State
    options: Options
    cited: list[str] = field(default_factory=list)
    relied: list[str] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def cite(self, *sections: str) -> tuple[Citation, ...]:
        for s in sections:
            if s not in self.cited:
                self.cited.append(s)
        return tuple(CATALOG.cite(s) for s in sections)

    def rely(self, *ids: str) -> None:
        for i in ids:
            if i not in self.relied:
                self.relied.append(i)

    def violate(
        self,
        code: str,
        message: str,
        sections: Sequence[str],
        *,
        unit: str | None = None,
        step: int | None = None,
        **details: Any,
    ) -> None:
        self.violations.append(
            Violation(
                code=code,
                message=message,
                unit=unit,
                step=step,
                citations=self.cite(*sections),
                details=details,
            )
        )

    def effect(
        self,
        kind: str,
        message: str,
        sections: Sequence[str],
        *,
        unit: str | None = None,
        by: Sequence[str] = (),
        **details: Any,
    ) -> None:
        self.effects.append(
            Effect(
                kind=kind,
                message=message,
                unit=unit,
                by=tuple(by),
                citations=self.cite(*sections),
                details=details,
            )
        )

    def ruling(self, ok_summary: str) -> Ruling:
        refs = []
        for iid in self.relied:
            interp = INTERPRETATION_BY_ID[iid]
            value = getattr(self.options, interp.option) if interp.option else None
            refs.append(
                InterpretationRef(id=iid, text=interp.reading, option=interp.option, value=value)
            )
        legal = not self.violations
        summary = ok_summary if legal else "; ".join(v.message for v in self.violations)
        return Ruling(
            legal=legal,
            summary=summary,
            violations=tuple(self.violations),
            effects=tuple(self.effects),
            citations=tuple(CATALOG.cite(s) for s in self.cited),
            interpretations=tuple(refs),
            details=self.details,
        )


def in_feature(ctx: Ctx, unit: Unit, shape: Any) -> bool:
    """Is ``unit`` in the feature? Names ``terrain.in-feature`` whenever the answer is yes or
    the other reading would answer differently (the ruling then depends on the reading)."""
    inside = unit_in(unit, shape, ctx.options)
    other = ctx.options.model_copy(
        update={"in_feature": "centre" if ctx.options.in_feature == "footprint" else "footprint"}
    )
    if inside or unit_in(unit, shape, other) != inside:
        ctx.rely("terrain.in-feature")
    return inside


def find_unit(state: State, uid: str) -> Unit | None:
    return next((u for u in state.units if u.id == uid), None)


# -- paths ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Crossing:
    """A feature a path spends yards in."""

    where: Placed
    parts: tuple[Piece, ...]
    started_inside: bool

    @property
    def yards(self) -> float:
        return sum(p.length for p in self.parts)

    @property
    def entries(self) -> tuple[Piece, ...]:
        """Pieces that are real entries (not the stretch the unit started in)."""
        return tuple(p for p in self.parts if not (self.started_inside and p.start <= TOLERANCE))


def crossings(board: Board, line: LineString) -> list[Crossing]:
    """Features the path spends yards in, ordered by where it first enters them."""
    start = line.coords[0]
    bounds = line.bounds
    out = []
    for pl in placed(board):
        if not may_meet(bounds, pl.bounds):
            continue  # the path cannot spend a yard in a feature whose box it misses
        parts = pieces(line, pl.shape)
        if parts:
            out.append(Crossing(pl, tuple(parts), point_in(start, pl.shape)))
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
    cross = crossings(ctx.board, line)
    end = line.coords[-1]
    by_feature: dict[str, float] = {}
    for c in cross:
        by_feature[c.where.id] = yards(c.yards)
    ctx.details.update(path_yards=yards(total), yards_by_feature=by_feature)
    table = ctx.board.table
    for n, (x, y) in enumerate(waypoints):
        if not (0 <= x <= table.width and 0 <= y <= table.height):
            ctx.violate(
                "terrain.off_table", f"waypoint {n} is off the table", (), unit=unit.id, step=n
            )
    if total <= TOLERANCE:
        ctx.violate("terrain.no_path", "the path has no length", (), unit=unit.id)
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
            delay = ctx.board.obstacle_yards.get(kind, 0.0) * len(c.entries)
            extra += delay
            extra_sections.append("A.31")
            ctx.effect(
                "terrain.obstacle_crossed",
                f"{unit.id} crosses {kind.replace('_', ' ')} "
                f"{fid}: {delay:g} yards of its allowance",
                ("A.31", "A.11", "T.Scenario"),
                unit=unit.id,
                feature=fid,
                yards=yards(delay),
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
                    feature=fid,
                    yards=yards(c.yards),
                    extra=yards(added),
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
                ctx.violate(
                    "terrain.closed",
                    f"{unit.id} may not enter {fid}: {reason[1]}",
                    (reason[0],),
                    unit=unit.id,
                    feature=fid,
                    kind=kind,
                )
                continue
            # A.45: formed troops may not charge in or through light woods
            if (
                charge
                and kind in LIGHT
                and unit.type in ("infantry", "cavalry")
                and not is_skirmish(unit, opts)
            ):
                ctx.violate(
                    "terrain.no_charge",
                    f"formed {unit.id} may not charge through light woods {fid}",
                    ("A.45",),
                    unit=unit.id,
                    feature=fid,
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
                    feature=fid,
                    cap=limit,
                    yards_in_feature=yards(c.yards),
                    counted=yards(counted),
                )
                if counted > limit + TOLERANCE:
                    ctx.violate(
                        "terrain.over_cap",
                        f"{unit.id} goes {yards_text(counted)} yards, "
                        f"over the {limit:g}-yard maximum in {fid}",
                        (clause,),
                        unit=unit.id,
                        feature=fid,
                        cap=limit,
                        counted=yards(counted),
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
                ctx.violate(
                    "terrain.ford_blocked",
                    f"{', '.join(blockers)} halted in ford {fid}: nobody may pass through it",
                    ("A.24",),
                    unit=unit.id,
                    feature=fid,
                    by=blockers,
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
            ford_yards=yards(ford_yards),
            cost=yards(cost),
            allowance=yards(allowance),
        )
    ctx.details.update(cost=yards(cost), allowance=yards(allowance))
    if not charge and cost > allowance + TOLERANCE:
        sections = [*(("A.24",) if ford_yards > TOLERANCE else ()), *extra_sections]
        ctx.violate(
            "terrain.over_allowance",
            f"{unit.id} needs {yards_text(cost)} yards of {yards_text(allowance)}",
            tuple(dict.fromkeys(sections)),
            unit=unit.id,
            cost=yards(cost),
            allowance=yards(allowance),
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
        ctx.violate(
            "terrain.river_crossing",
            f"river {f.id} is crossed only at a ford or bridge",
            ("A.23",),
            unit=unit.id,
            feature=f.id,
        )
    elif f.steep_banks or not f.fordable:
        ctx.violate(
            "terrain.steep_banks",
            f"stream {f.id} is crossed only at a ford or bridge",
            ("A.22",),
            unit=unit.id,
            feature=f.id,
        )
    else:
        ctx.effect(
            "terrain.stream_waded",
            f"{unit.id} wades stream {f.id}",
            ("A.22",),
            unit=unit.id,
            feature=f.id,
            yards=yards(wet),
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
            feature=c.where.id,
            at=list(at),
            roll=roll,
            pending=roll is None,
        )
        if roll == 0:
            ctx.effect(
                "terrain.equipment_destroyed",
                f"{unit.id} breaks a wheel in {c.where.id}: the equipment is destroyed",
                ("A.46",),
                unit=unit.id,
                feature=c.where.id,
                at=list(at),
            )
            ctx.details["destroyed_at"] = list(at)
            return


def _arrival(ctx: Ctx, unit: Unit, end: tuple[float, ...]) -> None:
    """Where the unit halts: fords, buildings, works, cover."""
    moved = unit.model_copy(update={"at": (end[0], end[1])})
    reach = max(unit.frontage / 2, 0.0)  # the footprint's radius (terrain.in-feature)
    footprint = (end[0] - reach, end[1] - reach, end[0] + reach, end[1] + reach)
    for pl in placed(ctx.board):
        f = pl.feature
        halts = f.kind in ("ford", "building", "earthworks", "protective_cover", "stone_wall")
        if not (halts or (f.kind == "fort" and f.partial) or (f.kind == "road" and f.sunken)):
            continue
        if not may_meet(footprint, pl.bounds):
            continue  # under either reading the unit is not in a feature its box misses
        if not in_feature(ctx, moved, pl.shape):
            continue
        if f.kind == "ford":
            ctx.effect(
                "terrain.stopped_in_ford",
                f"{unit.id} halts in ford {f.id}: it may not fire and blocks the ford",
                ("A.24",),
                unit=unit.id,
                feature=f.id,
            )
        elif f.kind == "building":
            if unit.type == "cavalry" and unit.mounted:
                ctx.violate(
                    "terrain.must_dismount",
                    f"mounted {unit.id} may not occupy building {f.id}",
                    ("A.43",),
                    unit=unit.id,
                    feature=f.id,
                )
                continue
            ctx.effect(
                "terrain.protective_position",
                f"{unit.id} holds building {f.id}",
                ("A.43", "A.47"),
                unit=unit.id,
                feature=f.id,
                hasty_works_add_nothing=f.hasty_works,
            )
        elif f.kind == "earthworks":
            if f.works == "prepared":
                ctx.effect(
                    "terrain.earthworks",
                    f"{unit.id} occupies prepared works {f.id}",
                    ("A.41",),
                    unit=unit.id,
                    feature=f.id,
                )
            else:
                ctx.effect(
                    "terrain.protective_position",
                    f"{unit.id} occupies hasty works {f.id}",
                    ("A.41", "A.47"),
                    unit=unit.id,
                    feature=f.id,
                )
        elif f.kind == "fort" and f.partial:
            ctx.effect(
                "terrain.earthworks",
                f"{unit.id} holds the fort wall section {f.id}: prepared earthworks",
                ("A.36", "A.41"),
                unit=unit.id,
                feature=f.id,
            )
        elif f.kind == "stone_wall" or (f.kind == "road" and f.sunken):
            clause = "A.31" if f.kind == "stone_wall" else "A.12"
            what = "behind stone wall" if f.kind == "stone_wall" else "in sunken road"
            ctx.effect(
                "terrain.protective_position",
                f"{unit.id} is {what} {f.id}",
                (clause, "A.47"),
                unit=unit.id,
                feature=f.id,
            )
        elif f.kind == "protective_cover":
            ctx.effect(
                "terrain.protective_position",
                f"{unit.id} is in protective cover {f.id}",
                ("A.47",),
                unit=unit.id,
                feature=f.id,
            )


# -- line of sight ----------------------------------------------------------------------------


def line_of_sight(
    board: Board, options: Options, a: Sequence[float], b: Sequence[float]
) -> dict[str, Any]:
    """Which features block the sight line from ``a`` to ``b`` (A.42, A.44, A.45)."""
    line = sight_line(a, b)
    blocked_by: list[dict[str, Any]] = []
    ignored: list[str] = []
    ignored_sections: set[str] = set()
    relied: list[str] = []
    for pl in placed(board):
        if pl.kind not in SIGHT_BLOCKING:
            continue
        inside = sum(p.length for p in pieces(line, pl.shape)) if line.length > 0 else 0.0
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


def judge_fire(ctx: Ctx, unit: Unit, target: Unit) -> None:
    for pl in placed(ctx.board):
        if pl.kind == "ford" and in_feature(ctx, unit, pl.shape):
            ctx.violate(
                "terrain.no_fire_in_ford",
                f"{unit.id} is halted in ford {pl.id} and may not fire",
                ("A.24",),
                unit=unit.id,
                feature=pl.id,
            )
    los = line_of_sight(ctx.board, ctx.options, unit.at, target.at)
    ctx.rely(*los["interpretations"])
    ctx.cite(*los["citations"])
    for block in los["blocked_by"]:
        if unit.type == "artillery" and block["kind"] in HEAVY | LIGHT:
            # A.44 / A.45: woods stop an artillery kill zone, not only the sight line
            ctx.violate(
                "terrain.kill_zone_blocked",
                f"{block['feature']} stops {unit.id}'s kill zone",
                (block["section"],),
                unit=unit.id,
                feature=block["feature"],
            )
            continue
        ctx.violate(
            "terrain.los_blocked",
            f"{block['feature']} blocks the line of sight",
            (block["section"],),
            unit=unit.id,
            feature=block["feature"],
        )
    ctx.details.update(line_of_sight=los)
