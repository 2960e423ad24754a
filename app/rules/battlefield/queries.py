"""Read-only queries of the ``battlefield`` ruleset: the zone display with its outline, the
allocation options, sight lines and terrain on the table, the cover a unit gets (A.47) and
the scenario check (terrain guidance plus the suggested zone sizes, OZ.Display.B)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from shapely.geometry import Polygon

from app.rules.base import InvalidQuery, QuerySpec
from app.rules.battlefield import results
from app.rules.battlefield.compose import Judgement
from app.rules.battlefield.models import Board, Options, State, UnitParams
from app.rules.battlefield.moves import TERRAIN, ZONES, cover_of
from app.rules.battlefield.table import outline, road_exit, table_view
from app.rules.objective_zones import models as oz
from app.rules.terrain import models as tr

SUGGESTED: dict[str, tuple[float, float]] = {
    "A": (150, 250),
    "B": (150, 250),
    "C": (200, 400),
    "D": (250, 500),
    "E": (250, 500),
    "F": (250, 400),
}
"""Suggested largest diameters in yards by class (OZ.Display.B); Class F: its width."""
F_DEPTH = (150.0, 200.0)


def _load(board: Any, state: Any, options: Any) -> tuple[Board, State, Options]:
    b = board if isinstance(board, Board) else Board.model_validate(board)
    s = state if isinstance(state, State) else State.model_validate(state)
    o = options if isinstance(options, Options) else Options.model_validate(options or {})
    return b, s, o


def size_of(shape: Polygon) -> tuple[float, float]:
    """(longer, shorter) side of the smallest rectangle around an outline (bf.zone-diameter)."""
    rect = shape.minimum_rotated_rectangle
    xs = list(rect.exterior.coords)
    sides = sorted(
        (
            ((xs[i][0] - xs[i + 1][0]) ** 2 + (xs[i][1] - xs[i + 1][1]) ** 2) ** 0.5
            for i in range(2)
        ),
        reverse=True,
    )
    return round(sides[0], 2), round(sides[1], 2)


def zone_sizes(board: Board) -> list[dict[str, Any]]:
    findings = []
    for zid, zone in board.zones.zones.items():
        width, depth = size_of(outline(board, zid))
        lo, hi = SUGGESTED[zone.zone_class]
        ok = width <= hi
        note = f"{zid} (class {zone.zone_class}) is {width:g} yards across; suggested {lo:g}-{hi:g}"
        if zone.zone_class == "F":
            ok = ok and F_DEPTH[0] <= depth <= F_DEPTH[1] and width >= lo
            note += f", {depth:g} deep; suggested {F_DEPTH[0]:g}-{F_DEPTH[1]:g}"
        findings.append(
            {
                "section": "OZ.Display.B",
                "ok": ok,
                "note": note,
                "zone": zid,
                "width": width,
                "depth": depth,
            }
        )
    return findings


def run_zone(board: Any, state: Any, options: Any, params: Any) -> dict[str, Any]:
    b, s, o = _load(board, state, options)
    p = params if isinstance(params, oz.ZoneParams) else oz.ZoneParams.model_validate(params)
    if p.zone not in b.outlines:
        raise InvalidQuery(f"unknown zone {p.zone!r}")
    out: dict[str, Any] = ZONES.queries()["zone"].run(b.zones, s.zones, o.zones(), p)
    shape = outline(b, p.zone)
    exits = road_exit(b.table.features, shape)
    width, depth = size_of(shape)
    out.update(
        outline=b.outlines[p.zone],
        width=width,
        depth=depth,
        road_exit=None
        if exits is None
        else [round(exits.centroid.x, 2), round(exits.centroid.y, 2)],
    )
    out["citations"] = [*out["citations"], "OZ.Display.B", "BF.Table"]
    return out


def run_allocation_options(board: Any, state: Any, options: Any, params: Any) -> Any:
    b, s, o = _load(board, state, options)
    return ZONES.queries()["allocation-options"].run(b.zones, s.zones, o.zones(), params)


def _terrain_query(name: str) -> Any:
    def run(board: Any, state: Any, options: Any, params: Any) -> Any:
        b, s, o = _load(board, state, options)
        return TERRAIN.queries()[name].run(b.table, table_view(b, s), o.terrain(), params)

    return run


def run_scenario_check(board: Any, state: Any, options: Any, params: Any) -> dict[str, Any]:
    b, s, o = _load(board, state, options)
    out: dict[str, Any] = TERRAIN.queries()["scenario-check"].run(
        b.table, table_view(b, s), o.terrain(), params
    )
    out["findings"] = [*out["findings"], *zone_sizes(b)]
    out["citations"] = sorted({*out["citations"], "OZ.Display.B"})
    out["interpretations"] = ["bf.zone-diameter"]
    return out


def run_cover(board: Any, state: Any, options: Any, params: Any) -> dict[str, Any]:
    b, s, o = _load(board, state, options)
    p = params if isinstance(params, UnitParams) else UnitParams.model_validate(params)
    j = Judgement(b, s, o)
    try:
        out = cover_of(j, p.unit)
    except KeyError:
        raise InvalidQuery(f"unknown unit {p.unit!r}") from None
    out["citations"] = [c.section for c in j.citations]
    out["interpretations"] = [i.id for i in j.interpretations]
    return out


class _NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


SPECS: dict[str, QuerySpec] = {
    "zone": QuerySpec(
        "zone",
        "A zone's display (sectors, In-Transit, contested) and its "
        "outline, size and road exit on the table.",
        oz.ZoneParams,
        run_zone,
        result=results.Zone,
    ),
    "allocation-options": QuerySpec(
        "allocation-options",
        "What a side may allocate in a pending assault (its own units only).",
        oz.AllocationOptionsParams,
        run_allocation_options,
        result=results.AllocationOptions,
    ),
    "line-of-sight": QuerySpec(
        "line-of-sight",
        "Is the sight line between two points clear?",
        tr.LosParams,
        _terrain_query("line-of-sight"),
        result=results.LineOfSight,
    ),
    "terrain-at": QuerySpec(
        "terrain-at",
        "The terrain features at a point.",
        tr.TerrainAtParams,
        _terrain_query("terrain-at"),
        result=results.TerrainAt,
    ),
    "scenario-check": QuerySpec(
        "scenario-check",
        "Scenario-design guidance: terrain layout "
        "and the suggested zone sizes (findings, never refusals).",
        _NoParams,
        run_scenario_check,
        result=results.ScenarioCheck,
    ),
    "cover": QuerySpec(
        "cover",
        "Does a unit get protective cover now (A.47): in cover, Holding and not engaged?",
        UnitParams,
        run_cover,
        result=results.Cover,
    ),
}
