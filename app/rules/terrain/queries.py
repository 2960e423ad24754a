"""Read-only queries: ``line-of-sight``, ``terrain-at``, ``scenario-check`` (guidance) and
``cover`` (A.47)."""

from __future__ import annotations

from typing import Any

from shapely.geometry import box
from shapely.ops import unary_union

from app.rules.base import InvalidQuery
from app.rules.dispatch import Query
from app.rules.terrain import results
from app.rules.terrain.cover import cover
from app.rules.terrain.geometry import (
    BUSHES,
    HEAVY,
    LIGHT,
    ROUGH,
    placed,
    point_in,
)
from app.rules.terrain.ground import Ctx, closed_reason, movement_cap
from app.rules.terrain.models import (
    LosParams,
    Options,
    ScenarioCheckParams,
    TerrainAtParams,
    Unit,
    UnitParams,
)
from app.rules.terrain.setup import road_end_edges, road_problem
from app.rules.terrain.sight import line_of_sight

_TYPES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("formed infantry", {"type": "infantry", "order": "formed"}),
    ("skirmish infantry", {"type": "infantry", "order": "skirmish"}),
    ("formed cavalry", {"type": "cavalry", "order": "formed"}),
    ("skirmish cavalry", {"type": "cavalry", "order": "skirmish"}),
    ("limbered artillery", {"type": "artillery", "limbered": True}),
    ("unlimbered artillery", {"type": "artillery", "limbered": False}),
    ("wagon", {"type": "wagon"}),
    ("limber", {"type": "limber"}),
)


def run_line_of_sight(ctx: Ctx, params: LosParams) -> dict[str, Any]:
    return line_of_sight(ctx.board, ctx.options, params.from_, params.to)


def _meaning(kind: str, options: Options) -> tuple[dict[str, str], list[str]]:
    out: dict[str, str] = {}
    cited: list[str] = []
    for label, spec in _TYPES:
        probe = Unit(
            id="probe",
            side="-",
            order=spec.get("order", "formed"),
            limbered=spec.get("limbered", True),
            mounted=True,
            at=(0, 0),
            movement=1.0,
            type=spec["type"],
        )
        closed = closed_reason(probe, kind, options)
        cap = movement_cap(probe, kind, options)
        if closed:
            out[label] = f"closed ({closed[0]})"
            cited.append(closed[0])
        elif cap:
            out[label] = f"at most {cap[1]:g} yards ({cap[0]})"
            cited.append(cap[0])
        elif kind in ROUGH and spec["type"] in ("wagon", "limber", "artillery"):
            out[label] = "may enter; d10 showing 0 destroys it (A.46)"
            cited.append("A.46")
        else:
            out[label] = "normal"
    return out, cited


_NOTES = {
    "bushes": ("A.42", "blocks line of sight only"),
    "high_grass": ("A.42", "blocks line of sight only"),
    "building": ("A.43", "protective position; mounted cavalry must dismount"),
    "ford": ("A.24", "movement halved; a unit halted here may not fire and blocks it"),
    "stream": ("A.22", "fordable unless steep-banked or marked otherwise"),
    "river": ("A.23", "crossed at fords and bridges"),
    "earthworks": ("A.41", "prepared: earthworks; hasty: protective position"),
    "protective_cover": ("A.47", "protective cover for a Holding melee defender"),
    "stockade": ("A.32", "garrison of 1-5 stands"),
    "fort": ("A.36", "6-12 stands in as many sectors"),
    "road": ("A.35", "road"),
}


def run_terrain_at(ctx: Ctx, params: TerrainAtParams) -> dict[str, Any]:
    board, options = ctx.board, ctx.options
    x, y = params.at
    if not (0 <= x <= board.table.width and 0 <= y <= board.table.height):
        raise InvalidQuery("that point is off the table")
    features = []
    cited: list[str] = []
    for pl in placed(board):
        if not point_in(params.at, pl.shape):
            continue
        entry: dict[str, Any] = {"feature": pl.id, "kind": pl.kind}
        if pl.kind in HEAVY | LIGHT | ROUGH:
            entry["by_unit_type"], c = _meaning(pl.kind, options)
            cited += c
            entry["blocks_sight"] = pl.kind in HEAVY | LIGHT
            cited.append("A.44" if pl.kind in HEAVY else "A.45" if pl.kind in LIGHT else "A.46")
        elif pl.kind in _NOTES:
            section, note = _NOTES[pl.kind]
            entry["note"] = note
            entry["blocks_sight"] = pl.kind in BUSHES
            cited.append(section)
        features.append(entry)
    return {
        "at": [x, y],
        "features": features,
        "open": not features,
        "citations": sorted({*cited, "A.4"}),
    }


def run_scenario_check(ctx: Ctx, params: ScenarioCheckParams) -> dict[str, Any]:
    """Scenario-design guidance (A.1x, A.2x, A.3x): findings, never refusals."""
    board = ctx.board
    table = box(0, 0, board.table.width, board.table.height)
    shapes = placed(board)
    hindering = [p.shape for p in shapes if p.kind in HEAVY | LIGHT | ROUGH | {"river"}]
    covered = unary_union(hindering).intersection(table).area if hindering else 0.0
    open_share = round(1 - covered / table.area, 3)
    kinds = {p.kind for p in shapes}
    findings: list[dict[str, Any]] = []

    def note(section: str, ok: bool, text: str) -> None:
        findings.append({"section": section, "ok": ok, "note": text})

    layout = board.layout
    if layout == "rolling_hills":
        note("A.11", "road" in kinds, "a main road is needed")
    if layout == "rough":
        note("A.12", 0.4 <= open_share <= 0.6, f"about half open; {open_share:.0%} open")
        note("A.12", "road" in kinds, "a road crosses open ground")
    if layout == "wooded":
        note("A.13", open_share >= 0.7, f"at least 70% open; {open_share:.0%} open")
    if layout == "river_valley":
        note("A.14", "river" in kinds and "bridge" in kinds, "a river and a road bridge")
    # A.21: rough near water should preferably be marsh
    water = [p.shape for p in shapes if p.kind in ("stream", "river")]
    for p in shapes:
        if p.kind == "rough" and water and any(p.shape.distance(w) < 50 for w in water):
            note("A.21", True, f"{p.id} lies by water: consider marsh")
    # A.35: roads leave by two edges; bridges over rivers, bridge or ford over streams
    for p in shapes:
        if p.kind != "road":
            continue
        f = p.feature
        if f.line is not None:
            ends = road_end_edges(f, board.table.width, board.table.height)
            on_edge = sum(1 for e in ends if e)
            problem = road_problem(f, board.table.width, board.table.height)
            note("A.35", problem is None, problem or f"road {p.id} leaves by {on_edge} edge(s)")
        for w in shapes:
            if w.kind not in ("stream", "river") or not p.shape.intersects(w.shape):
                continue
            need = ("bridge",) if w.kind == "river" else ("bridge", "ford")
            spot = p.shape.intersection(w.shape)
            ok = any(c.kind in need and c.shape.intersects(spot) for c in shapes)
            note("A.35", ok, f"road {p.id} meets {w.kind} {w.id}: needs {' or '.join(need)}")
    for p in shapes:
        if p.kind == "building" and p.feature.hasty_works:
            note("A.43", True, f"hasty works at {p.id} are for looks: no added protection")
        if p.kind in ("stockade", "fort"):
            note(
                "A.32" if p.kind == "stockade" else "A.36",
                True,
                f"{p.id} holds {p.feature.capacity or '?'} stands",
            )
    for section in ("A.31", "A.33", "A.34"):
        note(section, True, "layout guidance only; nothing to check")
    cited = sorted({f["section"] for f in findings} | {"A.1", "A.2", "A.3"})
    return {"layout": layout, "open_share": open_share, "findings": findings, "citations": cited}


def run_cover(ctx: Ctx, p: UnitParams) -> dict[str, Any]:
    try:
        return cover(ctx, p.unit)
    except KeyError:
        raise InvalidQuery(f"no unit {p.unit!r} on the table") from None


QUERIES: tuple[Query[Ctx, Any], ...] = (
    Query(
        "line-of-sight",
        "Is the sight line between two points (`from`, `to` as 'x,y' yards) clear? Lists each "
        "blocking feature with its clause.",
        LosParams,
        run_line_of_sight,
        results.LineOfSight,
    ),
    Query(
        "terrain-at",
        "The features at a point (`at` as 'x,y' yards) and what each means for every unit type.",
        TerrainAtParams,
        run_terrain_at,
        results.TerrainAt,
    ),
    Query(
        "scenario-check",
        "Scenario-design guidance (A.1x-A.3x): findings, never refusals.",
        ScenarioCheckParams,
        run_scenario_check,
        results.ScenarioCheck,
    ),
    Query(
        "cover",
        "Does a unit (`unit`) have protective cover now (A.47), and does it count in a melee "
        "(only while Holding)? Prepared works (A.41) are listed apart.",
        UnitParams,
        run_cover,
        results.Cover,
    ),
)
