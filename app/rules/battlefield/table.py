"""The table: the per-ruling judgement type, zone outlines, road exits, and which units stand
on the table (pure, yards)."""

from __future__ import annotations

from collections.abc import Sequence

from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from app.rules.battlefield.catalog import INTERPRETATION_BY_ID, OWN
from app.rules.battlefield.models import EDGE_TOLERANCE, Board, Options, State
from app.rules.judgement import Catalogs, GameJudgement, Problem
from app.rules.objective_zones import models as oz
from app.rules.objective_zones.catalog import CATALOG as OZ_CATALOG
from app.rules.ruling import Ruling
from app.rules.terrain import models as tr
from app.rules.terrain.catalog import CATALOG as TERRAIN_CATALOG
from app.rules.terrain.geometry import HEAVY, LIGHT, placed, shape_of

Ctx = GameJudgement[Board, State, Options]
"""One battlefield judgement: the kit's bookkeeping and the game it judges. It gathers the
rulings of the ``terrain`` and ``objective-zones`` parts it asks (:meth:`Judgement.take`);
every citation keeps the ruleset that defines its section."""

SOURCES = Catalogs(OWN, OZ_CATALOG, TERRAIN_CATALOG)
"""Battlefield's own sections first, then the parts' (each cited as its home ruleset)."""


def judging(board: Board, state: State, options: Options, dice: Sequence[int] = ()) -> Ctx:
    """A fresh judgement of this game."""
    return GameJudgement(SOURCES, INTERPRETATION_BY_ID, board, state, options, dice)


def refused(j: Ctx, problems: Sequence[Problem]) -> Ruling:
    """A refusal as the battlefield's judges word one: every problem rejected in order, the
    summary their messages joined."""
    for p in problems:
        j.reject_problem(p)
    return j.finish("")


WOODS = HEAVY | LIGHT
"""Features that stop an artillery kill zone (A.44, A.45)."""


def outline(board: Board, zone: str) -> Polygon:
    return Polygon(board.outlines[zone])


def outlines(board: Board) -> dict[str, Polygon]:
    return {zid: Polygon(pts) for zid, pts in board.outlines.items()}


def on_border(shape: Polygon, at: Sequence[float]) -> bool:
    return bool(shape.exterior.distance(Point(tuple(at))) <= EDGE_TOLERANCE)


def road_area(features: Sequence[tr.Feature]) -> BaseGeometry | None:
    roads = [shape_of(f) for f in features if f.kind == "road"]
    return unary_union(roads) if roads else None


def road_exit(features: Sequence[tr.Feature], shape: Polygon) -> BaseGeometry | None:
    """Where roads cross the zone's border (interpretation ``bf.road-exit``), or None."""
    roads = road_area(features)
    if roads is None:
        return None
    spot = roads.intersection(shape.exterior)
    return None if spot.is_empty else spot


def at_road_exit(features: Sequence[tr.Feature], shape: Polygon, at: Sequence[float]) -> bool:
    spot = road_exit(features, shape)
    return spot is not None and spot.distance(Point(tuple(at))) <= EDGE_TOLERANCE


def woods_on(board: Board, line: LineString) -> list[tuple[str, str]]:
    """(feature id, clause) of every wood the line runs through (A.44, A.45)."""
    out = []
    for pl in placed(board.table):
        if pl.kind in WOODS and line.intersection(pl.shape).length > 1e-6:
            out.append((pl.id, "A.44" if pl.kind in HEAVY else "A.45"))
    return out


def zone_unit(state: State, uid: str) -> oz.Unit | None:
    return next((u for u in state.zones.units if u.id == uid), None)


def table_unit(state: State, uid: str) -> tr.Unit | None:
    return next((u for u in state.table.units if u.id == uid), None)


def off_table(board: Board, state: State) -> set[str]:
    """Units on a zone's display (in a zone other than Class A): not on the table."""
    return {
        u.id
        for u in state.zones.units
        if u.zone is not None and board.zones.zones[u.zone].zone_class != "A"
    }


def table_view(board: Board, state: State, moved: tr.Unit | None = None) -> tr.State:
    """The terrain state of the units on the table (``moved`` replacing its own entry)."""
    away = off_table(board, state)
    units = [u for u in state.table.units if u.id not in away]
    if moved is not None:
        units = [moved if u.id == moved.id else u for u in units]
        if all(u.id != moved.id for u in units):
            units.append(moved)
    return state.table.model_copy(update={"units": units})


def sync_table(board: Board, before: State, zones: oz.State) -> State:
    """The state after the zone part changed: units it removed are gone from the table,
    attackers it placed in a zone stand where their charge ended."""
    gone = set(zones.removed) - set(before.zones.removed)
    old = {u.id: u for u in before.zones.units}
    charges = {c.unit: c for c in before.table.charges}
    units = []
    for u in before.table.units:
        if u.id in gone:
            u = u.model_copy(update={"destroyed": True})
        now = next((z for z in zones.units if z.id == u.id), None)
        was = old.get(u.id)
        if (
            now is not None
            and was is not None
            and now.zone
            and was.zone != now.zone
            and u.id in charges
        ):
            u = u.model_copy(update={"at": tuple(charges[u.id].path[-1])})
        units.append(u)
    table = before.table.model_copy(update={"units": units})
    return before.model_copy(update={"table": table, "zones": zones})
