"""Read-only queries of the ``battlefield`` ruleset: the zone display with its outline, the
allocation options, sight lines and terrain on the table, the cover a unit gets (A.47) and
the scenario check (terrain guidance plus the suggested zone sizes, OZ.Display.B)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict
from shapely.geometry import Polygon

from app.rules.base import InvalidQuery
from app.rules.battlefield import results
from app.rules.battlefield.catalog import OWN
from app.rules.battlefield.models import Board, UnitParams
from app.rules.battlefield.moves import TERRAIN, ZONES, cover_of
from app.rules.battlefield.table import Ctx, outline, road_exit, table_view
from app.rules.dispatch import Query
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


def run_zone(ctx: Ctx, p: oz.ZoneParams) -> dict[str, Any]:
    b, s, o = ctx.board, ctx.state, ctx.options
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
    out["citations"] = OWN.with_implemented([*out["citations"], "OZ.Display.B", "BF.Table"])
    return out


def run_allocation_options(ctx: Ctx, p: oz.AllocationOptionsParams) -> Any:
    b, s, o = ctx.board, ctx.state, ctx.options
    return ZONES.queries()["allocation-options"].run(b.zones, s.zones, o.zones(), p)


def _terrain_query(name: str) -> Callable[[Ctx, Any], Any]:
    """The terrain part's query ``name``, asked of the table as it stands."""

    def run(ctx: Ctx, params: Any) -> Any:
        view = table_view(ctx.board, ctx.state)
        return TERRAIN.queries()[name].run(ctx.board.table, view, ctx.options.terrain(), params)

    return run


def run_scenario_check(ctx: Ctx, params: BaseModel) -> dict[str, Any]:
    b, s, o = ctx.board, ctx.state, ctx.options
    out: dict[str, Any] = TERRAIN.queries()["scenario-check"].run(
        b.table, table_view(b, s), o.terrain(), params
    )
    out["findings"] = [*out["findings"], *zone_sizes(b)]
    out["citations"] = sorted({*out["citations"], "OZ.Display.B"})
    out["interpretations"] = ["bf.zone-diameter"]
    return out


def run_cover(ctx: Ctx, p: UnitParams) -> dict[str, Any]:
    try:
        out = cover_of(ctx, p.unit)
    except KeyError:
        raise InvalidQuery(f"unknown unit {p.unit!r}") from None
    out["citations"] = ctx.cited_ids()
    out["interpretations"] = ctx.relied_ids()
    return out


class _NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


QUERIES: tuple[Query[Ctx, Any], ...] = (
    Query(
        "zone",
        "A zone's display (sectors, In-Transit, contested) and its outline, size and road exit "
        "on the table.",
        oz.ZoneParams,
        run_zone,
        results.Zone,
    ),
    Query(
        "allocation-options",
        "What a side may allocate in a pending assault (its own units only).",
        oz.AllocationOptionsParams,
        run_allocation_options,
        results.AllocationOptions,
    ),
    Query(
        "line-of-sight",
        "Is the sight line between two points clear?",
        tr.LosParams,
        _terrain_query("line-of-sight"),
        results.LineOfSight,
    ),
    Query(
        "terrain-at",
        "The terrain features at a point.",
        tr.TerrainAtParams,
        _terrain_query("terrain-at"),
        results.TerrainAt,
    ),
    Query(
        "scenario-check",
        "Scenario-design guidance: terrain layout and the suggested zone sizes (findings, never "
        "refusals).",
        _NoParams,
        run_scenario_check,
        results.ScenarioCheck,
    ),
    Query(
        "cover",
        "Does a unit get protective cover now (A.47): in cover, Holding and not engaged?",
        UnitParams,
        run_cover,
        results.Cover,
    ),
)
