"""Scenario -> board + state for the ``terrain`` ruleset, checked against A.2x, A.3x, A.4x.

Every inconsistency becomes one error (``loc``, ``msg``, ``section``) of one
:class:`InvalidScenario`; nothing is silently repaired.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shapely.geometry import LineString, Point

from app.rules.judgement import Judgement
from app.rules.refs import UnitRefs, repeats
from app.rules.terrain.catalog import CATALOG
from app.rules.terrain.geometry import HEAVY, LIGHT, ROUGH, max_width, shape_of, yards_text
from app.rules.terrain.ground import closed_reason
from app.rules.terrain.models import (
    DEFAULT_MOVEMENT,
    MOVEMENT_YARDS,
    OBSTACLE_YARDS,
    Board,
    Feature,
    Options,
    Scenario,
    State,
    Unit,
    UnitSpec,
)

MAX_STREAM_WIDTH = 40.0  # A.22
FORD_BRIDGE_GAP = 50.0  # A.24
STOCKADE_CAPACITY = (1, 5)  # A.32
FORT_CAPACITY = (6, 12)  # A.36


def edges_of(point: tuple[float, float], width: float, height: float) -> set[str]:
    """The table edges a point lies on (within a yard)."""
    x, y = point
    out = set()
    for name, gap in (("west", x), ("east", width - x), ("south", y), ("north", height - y)):
        if abs(gap) <= 1.0:
            out.add(name)
    return out


def road_end_edges(feature: Feature, width: float, height: float) -> tuple[set[str], set[str]]:
    """The table edges each end of a road drawn as a line lies on (A.35; one definition for
    setup's refusal and ``scenario-check``'s note)."""
    assert feature.line is not None
    return (
        edges_of(feature.line[0], width, height),
        edges_of(feature.line[-1], width, height),
    )


def road_problem(feature: Feature, width: float, height: float) -> str | None:
    """Why a road drawn as a line breaks A.35 (None when it does not, or is not a line road)."""
    if feature.kind != "road" or feature.line is None:
        return None
    first, last = road_end_edges(feature, width, height)
    if not first or not last:
        return f"road {feature.id} must leave the table at both ends"
    if not any(a != b for a in first for b in last):
        return f"road {feature.id} leaves by one edge only; it needs two different edges"
    line = LineString(feature.line)
    mid_x = LineString([(width / 2, 0), (width / 2, height)])
    mid_y = LineString([(0, height / 2), (width, height / 2)])
    if not (line.intersects(mid_x) or line.intersects(mid_y)):
        return f"road {feature.id} does not cross the table's mid-line"
    return None


def _check_numbers(check: Judgement, scenario: Scenario) -> None:
    """T.Scenario: the numbers the text leaves to the scenario are within their bounds."""
    lo, hi = OBSTACLE_YARDS
    for kind, delay in scenario.obstacle_yards.items():
        # T.Scenario, A.31: a fence or wall delays a crossing, so by more than 0 yards; a
        # strict comparison, so -0.0 (== 0.0) is refused as 0 is
        if not lo < delay <= hi:
            check.invalid(
                ["obstacle_yards", kind],
                f"a {kind.replace('_', ' ')} crossing costs {delay:g} yards: "
                f"give more than 0 and at most {hi:,.0f} yards (A.31: it delays)",
                "T.Scenario",
                "A.31",
                code="terrain.scenario.obstacle_yards",
            )
    lo, hi = MOVEMENT_YARDS
    for key, allowance in scenario.movement_defaults.items():
        # T.Scenario: an allowance is given for a type of unit the scenario can hold
        if key not in DEFAULT_MOVEMENT:
            check.invalid(
                ["movement_defaults", key],
                f"{key!r} is not a unit type; give one of {', '.join(DEFAULT_MOVEMENT)}",
                "T.Scenario",
                code="terrain.scenario.movement_type",
            )
            continue
        # T.Scenario: an allowance is more than 0 yards
        if not lo < allowance <= hi:
            check.invalid(
                ["movement_defaults", key],
                f"{key.replace('_', ' ')} moves {allowance:g} yards: "
                f"give more than 0 and at most {hi:,.0f}",
                "T.Scenario",
                code="terrain.scenario.movement_allowance",
            )


def placed_unit(u: UnitSpec, defaults: Mapping[str, float]) -> Unit:
    """The unit a scenario entry places on the table; its allowance from ``defaults`` (by
    type, a dismounted cavalry unit's as such) when the entry gives none."""
    key = "dismounted_cavalry" if u.type == "cavalry" and not u.mounted else u.type
    return Unit(
        id=u.id,
        side=u.side,
        type=u.type,
        order=u.order,
        limbered=u.limbered,
        mounted=u.mounted,
        at=u.at,
        movement=u.movement if u.movement is not None else defaults[key],
        frontage=u.frontage,
    )


def build(scenario: Scenario, options: Options) -> tuple[Board, State]:
    check = Judgement(CATALOG)
    _check_numbers(check, scenario)

    sides = [s.id for s in scenario.sides]
    if repeats(sides):
        check.invalid(["sides"], "duplicate side id", "T.Scenario")
    shapes = {}
    seen: set[str] = set()
    for i, f in enumerate(scenario.features):
        loc: list[Any] = ["features", i]
        if f.id in seen:
            check.invalid([*loc, "id"], f"duplicate feature {f.id}", "T.Scenario")
        seen.add(f.id)
        shape = shape_of(f)
        if shape.is_empty or not shape.is_valid or shape.area <= 0:
            check.invalid(
                [*loc, "polygon" if f.polygon else "line"], "not a valid area", "T.Scenario"
            )
            continue
        shapes[f.id] = shape
        # A.12, A.47: only a road has sunken sections; A.36: only a large fort's wall is a
        # section on the table. On any other kind the text gives the flag no meaning.
        if f.sunken and f.kind != "road":
            check.invalid(
                [*loc, "sunken"],
                f"{f.id} is {f.kind.replace('_', ' ')}: only a road has sunken sections "
                "(drop sunken, or draw a road)",
                "A.12",
                "A.47",
                code="terrain.scenario.sunken_not_road",
            )
        if f.partial and f.kind != "fort":
            check.invalid(
                [*loc, "partial"],
                f"{f.id} is {f.kind.replace('_', ' ')}: only a large fort may be a section of "
                "its wall on the table (drop partial, or draw a fort)",
                "A.36",
                code="terrain.scenario.partial_not_fort",
            )
        # A.22: a stream marker is at most 40 yards wide
        if f.kind == "stream":
            width = f.width if f.line is not None and f.width else max_width(shape)
            if width > MAX_STREAM_WIDTH + 1e-6:
                check.invalid(
                    [*loc, "width"],
                    f"stream {f.id} is {yards_text(width)} yards wide (max 40)",
                    "A.22",
                    code="terrain.scenario.stream_too_wide",
                )
        # A.32 / A.36: garrison capacities
        if f.kind == "stockade" and f.capacity is not None:
            lo, hi = STOCKADE_CAPACITY
            if not lo <= f.capacity <= hi:
                check.invalid(
                    [*loc, "capacity"],
                    "a stockade or small fort holds 1-5 stands",
                    "A.32",
                    code="terrain.scenario.stockade_capacity",
                )
        if f.kind == "fort" and f.capacity is not None and not f.partial:
            lo, hi = FORT_CAPACITY
            if not lo <= f.capacity <= hi:
                check.invalid(
                    [*loc, "capacity"],
                    "a whole large fort holds 6-12 stands",
                    "A.36",
                    code="terrain.scenario.fort_capacity",
                )
        if f.kind == "earthworks" and f.works is None:
            check.invalid(
                [*loc, "works"],
                "earthworks are prepared or hasty",
                "A.41",
                code="terrain.scenario.works_kind",
            )

    # A.35: a road leaves by two different edges and crosses a mid-line (terrain.road-exits)
    if options.roads_must_exit:
        for i, f in enumerate(scenario.features):
            problem = road_problem(f, scenario.table.width, scenario.table.height)
            if problem is not None:
                check.invalid(
                    ["features", i, "line"], problem, "A.35", code="terrain.scenario.road_exits"
                )

    by_id = {f.id: f for f in scenario.features}
    bridges = [fid for fid, f in by_id.items() if f.kind == "bridge" and fid in shapes]
    fords = [fid for fid, f in by_id.items() if f.kind == "ford" and fid in shapes]
    # A.24: no ford within 50 yards of a bridge (edge to edge)
    for fid in fords:
        for bid in bridges:
            gap = shapes[fid].distance(shapes[bid])
            if gap < FORD_BRIDGE_GAP:
                i = scenario.features.index(by_id[fid])
                check.invalid(
                    ["features", i],
                    f"ford {fid} is {yards_text(gap)} yards from bridge {bid}",
                    "A.24",
                    code="terrain.scenario.ford_near_bridge",
                )
    # A.23: every river has a ford and/or a bridge
    for i, f in enumerate(scenario.features):
        if f.kind == "river" and f.id in shapes:
            crossing = [c for c in fords + bridges if shapes[c].intersects(shapes[f.id])]
            if not crossing:
                check.invalid(
                    ["features", i],
                    f"river {f.id} has no ford or bridge",
                    "A.23",
                    code="terrain.scenario.river_uncrossable",
                )

    board = Board(
        title=scenario.title,
        layout=scenario.layout,
        table=scenario.table,
        sides=list(scenario.sides),
        features=list(scenario.features),
        options=options,
        obstacle_yards=dict(scenario.obstacle_yards),
        steep_slope_cost=scenario.steep_slope_cost,
    )
    defaults = {**DEFAULT_MOVEMENT, **scenario.movement_defaults}
    units: list[Unit] = []
    refs = UnitRefs(sides)
    for i, u in enumerate(scenario.units):
        loc = ["units", i]
        if refs.duplicate(u.id):
            check.invalid([*loc, "id"], f"duplicate unit {u.id}", "T.Scenario")
        if refs.unknown_side(u.side):
            check.invalid([*loc, "side"], f"unknown side {u.side}", "T.Scenario")
        x, y = u.at
        if not (0 <= x <= scenario.table.width and 0 <= y <= scenario.table.height):
            check.invalid([*loc, "at"], "position off the table", "T.Scenario")
        unit = placed_unit(u, defaults)
        # a unit may not start where it could never be (A.43, A.44, A.45, A.46)
        for f in scenario.features:
            shape = shapes.get(f.id)
            if shape is None or not shape.covers(Point(u.at)):
                continue
            if f.kind in HEAVY | LIGHT | ROUGH:
                reason = closed_reason(unit, f.kind, options)
                if reason is not None:
                    check.invalid(
                        [*loc, "at"],
                        f"{u.id} may not stand in {f.id}: {reason[1]}",
                        reason[0],
                        code="terrain.scenario.closed_ground",
                    )
            if f.kind == "building" and u.type == "cavalry" and u.mounted:
                check.invalid(
                    [*loc, "mounted"],
                    f"{u.id} must dismount to hold {f.id}",
                    "A.43",
                    code="terrain.scenario.mounted_in_building",
                )
        units.append(unit)
    check.raise_if_refused("the terrain scenario is inconsistent")
    postures = {u.id: u.posture for u in scenario.units if u.posture != "holding"}
    return board, State(units=units, postures=postures)
