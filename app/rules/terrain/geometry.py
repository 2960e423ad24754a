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


def _overlap(a: Sequence[Piece], b: Sequence[Piece]) -> list[Piece]:
    """The stretches two sorted lists of pieces have in common (longer than TOLERANCE)."""
    out = []
    for p in a:
        for q in b:
            lo, hi = max(p.start, q.start), min(p.end, q.end)
            if hi - lo > TOLERANCE:
                out.append(Piece(lo, hi))
    return out


def _minus(parts: Sequence[Piece], cut: Piece) -> list[Piece]:
    """``parts`` without the stretch ``cut``."""
    out = []
    for p in parts:
        if cut.end <= p.start or cut.start >= p.end:
            out.append(p)
            continue
        if cut.start - p.start > TOLERANCE:
            out.append(Piece(p.start, cut.start))
        if p.end - cut.end > TOLERANCE:
            out.append(Piece(cut.end, p.end))
    return out


SIDE_STEP = 0.01
"""Yards to either side of a shared edge at which the two features are told apart."""


def _opposite_sides(line: LineString, stretch: Piece, a: BaseGeometry, b: BaseGeometry) -> bool:
    """Whether ``a`` and ``b`` lie on opposite sides of the path along ``stretch`` (an edge two
    features side by side share), not on one side (coincident edges of overlapping features,
    e.g. woods drawn on a hill's outline)."""
    mid = (stretch.start + stretch.end) / 2
    p0 = line.interpolate(max(mid - SIDE_STEP, stretch.start))
    p1 = line.interpolate(min(mid + SIDE_STEP, stretch.end))
    c = line.interpolate(mid)
    # the path's direction at mid; where it turns back there (out along the edge and back:
    # p0 and p1 are one point), the way it came in
    for q0, q1 in ((p0, p1), (p0, c)):
        dx, dy = q1.x - q0.x, q1.y - q0.y
        norm = (dx * dx + dy * dy) ** 0.5
        if norm > 0:
            break
    else:
        return False
    nx, ny = -dy / norm * SIDE_STEP, dx / norm * SIDE_STEP
    left, right = Point(c.x + nx, c.y + ny), Point(c.x - nx, c.y - ny)
    a_left, a_right = bool(a.covers(left)), bool(a.covers(right))
    b_left, b_right = bool(b.covers(left)), bool(b.covers(right))
    return a_left != a_right and b_left != b_right and a_left != b_left


@dataclass(frozen=True)
class Split:
    """A feature's stretches of a path once shared edges are given to one feature."""

    where: Placed
    parts: tuple[Piece, ...]
    shared: bool
    """The path runs along an edge it shares with another feature (the ruling then depends on
    ``terrain.shared-edge``, whichever reading is in force)."""


def _holding(parts: Sequence[Piece], stretch: Piece) -> Piece:
    """The piece of ``parts`` that holds ``stretch``."""
    for p in parts:
        if p.start <= stretch.start + TOLERANCE and p.end >= stretch.end - TOLERANCE:
            return p
    return stretch


def split(line: LineString, features: Sequence[Placed], *, once: bool = True) -> list[Split]:
    """Each feature's stretches of ``line`` (edges included, :func:`pieces`), in the order of
    ``features``, with a stretch running along an edge two side-by-side features share counted
    once (``once``; reading ``terrain.shared-edge``): for the feature the unit is already moving
    in there (its stretch began earlier), else the one it goes on in (its stretch ends later),
    else the one listed first. With ``once=False`` it counts in each (the alternative reading).

    Overlapping features (a wood on a hill) keep their common yards in both, even along
    coincident edges: only an edge with the two features on opposite sides is shared.
    """
    found = [(pl, pieces(line, pl.shape)) for pl in features]
    found = [(pl, parts) for pl, parts in found if parts]
    result = {pl.id: list(parts) for pl, parts in found}
    shared: set[str] = set()
    if len(found) > 1:
        edges = {pl.id: pieces(line, pl.shape.boundary) for pl, _ in found}
        for n, (a, a_parts) in enumerate(found):
            for b, b_parts in found[n + 1 :]:
                if not may_meet(a.bounds, b.bounds):
                    continue
                for stretch in _overlap(edges[a.id], edges[b.id]):
                    if not _opposite_sides(line, stretch, a.shape, b.shape):
                        continue
                    shared.update((a.id, b.id))
                    if not once:
                        continue
                    pa, pb = _holding(a_parts, stretch), _holding(b_parts, stretch)
                    if abs(pa.start - pb.start) > TOLERANCE:
                        loser = b if pa.start < pb.start else a
                    elif abs(pa.end - pb.end) > TOLERANCE:
                        loser = a if pb.end > pa.end else b
                    else:
                        loser = b
                    result[loser.id] = _minus(result[loser.id], stretch)
    return [Split(pl, tuple(result[pl.id]), pl.id in shared) for pl, _ in found if result[pl.id]]


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
