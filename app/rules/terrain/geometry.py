"""Measured-table geometry for the ``terrain`` ruleset (shapely; pure, yards).

Every feature becomes one shapely polygon: a ``polygon`` as drawn, a ``line`` buffered to its
``width`` with flat ends. A path is the polyline from a unit's position through its waypoints.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import shapely
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry

from app.rules.memo import ByIdentity
from app.rules.terrain.models import DEFAULT_FORD_WIDTH, Board, Feature, Options, Unit

HEAVY = frozenset({"heavy_woods"})
LIGHT = frozenset({"light_woods", "orchard"})
ROUGH = frozenset({"rough", "marsh", "beach"})
BUSHES = frozenset({"bushes", "high_grass"})
SIGHT_BLOCKING = HEAVY | LIGHT | BUSHES
CROSSINGS = frozenset({"bridge", "ford"})
WATER = frozenset({"stream", "river"})
TOLERANCE = 1e-6
"""Yards below which a length counts as zero (touching an edge is not entering)."""


def shape_of(feature: Feature) -> BaseGeometry:
    """The feature's area as a shapely geometry (possibly invalid; setup checks that)."""
    if feature.polygon is not None:
        return Polygon(feature.polygon)
    assert feature.line is not None
    width = feature.width if feature.width is not None else DEFAULT_FORD_WIDTH
    return LineString(feature.line).buffer(width / 2, cap_style="flat")


@dataclass(frozen=True)
class Placed:
    """A feature with its geometry."""

    feature: Feature
    shape: BaseGeometry
    bounds: tuple[float, float, float, float]
    """The shape's bounding box (min x, min y, max x, max y)."""

    @property
    def id(self) -> str:
        return self.feature.id

    @property
    def kind(self) -> str:
        return self.feature.kind


def _placed(board: Board) -> tuple[Placed, ...]:
    shapes = [shape_of(f) for f in board.features]
    return tuple(Placed(f, s, tuple(s.bounds)) for f, s in zip(board.features, shapes, strict=True))


_PLACED_OF: ByIdentity[tuple[Placed, ...]] = ByIdentity(_placed)


def placed(board: Board) -> tuple[Placed, ...]:
    """The board's features with their geometry, built once per board (boards never change)."""
    return _PLACED_OF(board)


def may_meet(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two bounding boxes overlap or touch: if not, the shapes share no point."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def path_line(start: Sequence[float], waypoints: Sequence[Sequence[float]]) -> LineString:
    return LineString([tuple(start), *(tuple(p) for p in waypoints)])


@dataclass(frozen=True)
class Piece:
    """One stretch of a path inside a feature: from ``start`` to ``end`` yards along it."""

    start: float
    end: float

    @property
    def length(self) -> float:
        return self.end - self.start


def pieces(line: LineString, shape: BaseGeometry) -> list[Piece]:
    """The stretches of ``line`` inside ``shape`` (edges included), in path order.

    Found by walking the path's segments, so the measure along the path is exact even when a
    path crosses itself.
    """
    out: list[Piece] = []
    coords = shapely.get_coordinates(line).tolist()
    single = len(coords) == 2  # one segment: the line itself, not a copy of it
    walked = 0.0
    for a, b in itertools.pairwise(coords):
        seg = line if single else LineString([a, b])
        seg_len = seg.length
        if seg_len <= TOLERANCE:
            continue
        parts = _lines(seg.intersection(shape))
        if parts:
            # each part's two ends, located along the segment in one call
            ends = [e for part in parts for e in _ends(part)]
            along = shapely.line_locate_point(seg, shapely.points(ends)).tolist()
            for d0, d1 in zip(along[::2], along[1::2], strict=True):
                lo, hi = min(d0, d1), max(d0, d1)
                if hi - lo > TOLERANCE:
                    out.append(Piece(walked + lo, walked + hi))
        walked += seg_len
    out.sort(key=lambda p: p.start)
    merged: list[Piece] = []
    for p in out:
        if merged and p.start <= merged[-1].end + TOLERANCE:
            merged[-1] = Piece(merged[-1].start, max(merged[-1].end, p.end))
        else:
            merged.append(p)
    return merged


def _ends(part: LineString) -> tuple[list[float], list[float]]:
    """The first and last points of a line."""
    xy = shapely.get_coordinates(part)
    return xy[0].tolist(), xy[-1].tolist()


def _lines(geom: BaseGeometry) -> list[LineString]:
    if geom.is_empty:
        return []
    if isinstance(geom, LineString):
        return [geom]
    parts = getattr(geom, "geoms", ())
    out: list[LineString] = []
    for g in parts:
        out.extend(_lines(g))
    return out


def inside_yards(line: LineString, shape: BaseGeometry) -> float:
    return sum(p.length for p in pieces(line, shape))


def point_at(line: LineString, distance: float) -> tuple[float, float]:
    pt = line.interpolate(distance)
    return (round(pt.x, 3), round(pt.y, 3))


def unit_in(unit: Unit, shape: BaseGeometry, options: Options) -> bool:
    """Is the unit in the feature (interpretation ``terrain.in-feature``)?"""
    pos = Point(unit.at)
    if options.in_feature == "footprint" and unit.frontage > 0:
        return bool(shape.intersects(pos.buffer(unit.frontage / 2)))
    return bool(shape.covers(pos))


def point_in(at: Sequence[float], shape: BaseGeometry) -> bool:
    return bool(shape.covers(Point(tuple(at))))


def max_width(shape: BaseGeometry) -> float:
    """The widest part of an area: twice its largest inscribed circle's radius."""
    if shape.is_empty:
        return 0.0
    radius_line = shapely.maximum_inscribed_circle(shape, 0.01)
    return float(2 * radius_line.length)


def sight_line(a: Sequence[float], b: Sequence[float]) -> LineString:
    return LineString([tuple(a), tuple(b)])


def yards(value: float) -> float:
    """Lengths as reported in rulings: yards to 0.01."""
    return round(value + 0.0, 2)


def yards_text(value: float) -> str:
    """Yards as written in messages: to 0.01, without trailing zeros (60.5, not 60)."""
    return f"{yards(value):.2f}".rstrip("0").rstrip(".")
