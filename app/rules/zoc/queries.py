"""Read-only queries of the ``zoc`` ruleset for front ends: EZOC map, reachable, supply."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.rules.base import InvalidQuery
from app.rules.dispatch import Query
from app.rules.zoc import results
from app.rules.zoc.catalog import CATALOG
from app.rules.zoc.context import Context, unit_ids
from app.rules.zoc.models import EzocMapParams, ReachableParams, SupplyParams, Unit
from app.rules.zoc.movement import reachable
from app.rules.zoc.supply import trace


def ezoc_map(ctx: Context, p: EzocMapParams) -> dict[str, Any]:
    """Every hex in EZOC for a side (see :data:`QUERIES`). Its ``citations`` are in the
    catalog's order, not in first-cited order: which section a map cites first depends on
    the hexes it lists, so only a fixed order makes an area's citations the whole map's cut
    to the same sections."""
    side = p.side
    if side not in {s.id for s in ctx.board.sides}:
        raise InvalidQuery(f"unknown side {side!r}")
    if (p.near is None) != (p.within is None):
        raise InvalidQuery("give both 'near' and 'within' (an area), or neither (the whole map)")
    if p.near is None:  # the whole map: every projection of the state at once (kept per state)
        zones = ctx.zone_map()
        area = sorted(zones.into)
        ezoc_in: Callable[[str, str], list[Unit]] = zones.ezoc
        via = zones.via_beachhead
        blocked_in, silent_in = zones.blocked, zones.silent
    else:  # the hexes within ``within`` of ``near``: only the units next to them are looked at
        if p.near not in ctx.board.hexes:
            raise InvalidQuery(f"hex {p.near!r} is not on the map")
        on_map = ctx.board.hexes
        layout = ctx.board.layout.layout()
        area = sorted(h for h in layout.within(p.near, p.within or 0) if h in on_map)
        lazy = ctx.zones
        ezoc_in = lazy.ezoc
        via = set()
        if lazy.all_beachhead_sides:  # only a Beachhead marker lets a ZOC across sea
            via = {(u.id, h) for h in area for u in lazy.into(h) if lazy.via_beachhead(u.id, h)}
        blocked_in, silent_in = lazy.blocked_in(area), lazy.silent_in(area)
    hexes: dict[str, Any] = {}
    for hex_id in area:
        ezoc = ezoc_in(hex_id, side)
        if not ezoc:
            continue
        negators = ctx.negators(hex_id, side, None)
        sections = ["8", "8.1"]
        if side == ctx.state.phasing_side:
            sections.append("8.1.clar.nonphasing")
        if negators:
            sections.extend(ctx.negation_cites(negators))
        ignored = ctx.ignored_markers(hex_id)
        if ignored:
            sections.append("8.1.clar.markers")
        via_beachhead = sorted(u.id for u in ezoc if (u.id, hex_id) in via)
        if via_beachhead:
            sections.extend(["8.exc.sea", "8.clar.beachhead"])
        hexes[hex_id] = {
            "by": unit_ids(ezoc),
            "negated": bool(negators),
            "negated_by": [n.as_json() for n in negators],
            "markers_not_negating": ignored,
            "across_beachhead_hexside": via_beachhead,
            "weather": ctx.weather(hex_id),
            "citations": [c.section for c in ctx.cite(*sections)],
        }
    blocked = []
    for b in blocked_in:
        if b.side == side:
            continue
        ctx.cite(b.section)
        blocked.append(b.as_json())
    silent = []
    for s in silent_in:
        if s.side == side:
            continue
        ctx.cite(s.section)
        silent.append({"unit": s.unit, "reason": s.reason, "section": s.section})
    return {
        "side": side,
        "phase": ctx.state.phase,
        "phasing_side": ctx.state.phasing_side,
        "hexes": hexes,
        "blocked": blocked,
        "no_zoc": silent,
        "citations": CATALOG.in_order(ctx.cited_ids()),
        "interpretations": [i.id for i in ctx.interpretations()],
    }


def reachable_hexes(ctx: Context, p: ReachableParams) -> dict[str, Any]:
    """Where a unit can move in the current phase (see :data:`QUERIES`)."""
    unit = ctx.units.get(p.unit)
    if unit is None:
        raise InvalidQuery(f"unknown unit {p.unit!r}")
    if unit.hex is None:
        raise InvalidQuery(f"unit {p.unit!r} is not on the map")
    return reachable(ctx, unit, p.why_not)


def supply(ctx: Context, p: SupplyParams) -> dict[str, Any]:
    """Supply status of a unit or of a side's units (see :data:`QUERIES`)."""
    if (p.unit is None) == (p.side is None):
        raise InvalidQuery("give exactly one of 'unit' or 'side'")
    if p.unit is not None:
        unit = ctx.units.get(p.unit)
        if unit is None:
            raise InvalidQuery(f"unknown unit {p.unit!r}")
        result = trace(ctx, unit).as_json(ctx)
        result["citations"] = ctx.cited_ids()
        result["interpretations"] = [i.id for i in ctx.interpretations()]
        return result
    if p.side not in {s.id for s in ctx.board.sides}:
        raise InvalidQuery(f"unknown side {p.side!r}")
    units = {
        u.id: trace(ctx, u).as_json(ctx)
        for u in ctx.state.units
        if u.side == p.side and u.hex is not None and u.ground
    }
    return {
        "side": p.side,
        "units": units,
        "in_supply": sorted(k for k, v in units.items() if v["in_supply"]),
        "out_of_supply": sorted(k for k, v in units.items() if not v["in_supply"]),
        "citations": ctx.cited_ids(),
        "interpretations": [i.id for i in ctx.interpretations()],
    }


QUERIES: tuple[Query[Context, Any], ...] = (
    Query(
        name="ezoc-map",
        description="Every hex in EZOC for a side: projecting units, negation (by what), and "
        "the projections section 8 blocks, with the clause that blocks them; on the whole map, "
        "or in the hexes within 'within' of hex 'near'.",
        params=EzocMapParams,
        run=ezoc_map,
        result=results.EzocMap,
    ),
    Query(
        name="reachable",
        description="For a unit in the current phase: each reachable hex with its cheapest "
        "legal path, cost and whether the unit must stop there; each hex in range it cannot "
        "reach, with the reasons and citations.",
        params=ReachableParams,
        run=reachable_hexes,
        result=results.Reachable,
    ),
    Query(
        name="supply",
        description="Supply status of a unit (param unit) or of every unit of a side (param "
        "side): the supply line found, or the hexes that blocked it and why.",
        params=SupplyParams,
        run=supply,
        result=results.Supply,
    ),
)
"""The ``zoc`` queries, answered through :meth:`ZocRuleset.context`."""
