"""Read-only objective-zones queries: a zone's display (``zone``) and what a side may
allocate in a pending assault (``allocation-options``, its own units only)."""

from __future__ import annotations

from typing import Any

from app.rules.base import InvalidQuery
from app.rules.dispatch import Query
from app.rules.objective_zones import results
from app.rules.objective_zones.combat import decision_id
from app.rules.objective_zones.models import (
    AllocationOptionsParams,
    ZoneParams,
)
from app.rules.objective_zones.zones import (
    Ctx,
    battalions,
    contested,
    garrison,
    in_zone,
    pending_assault,
    rely_capacity,
    sector_status,
)


def run_zone(ctx: Ctx, p: ZoneParams) -> dict[str, Any]:
    zone = ctx.board.zones.get(p.zone)
    if zone is None:
        raise InvalidQuery(f"unknown zone {p.zone!r}")
    ctx.cite("OZ", "OZ.Display", "OZ.Class", "OZ.Capacity", "OZ.Basic.B", "OZ.Basic.D")
    if zone.fort:
        ctx.cite("A.36")  # a whole large fort: its sectors are its 6-12 stands
    rely_capacity(ctx, zone)  # the number of sectors shown rests on the capacity reading
    status = sector_status(ctx.state, zone)
    sectors = {
        str(n): {
            "holder": status[n],
            "units": sorted(
                u.id
                for u in garrison(ctx.state, zone.id)
                if u.sector == n and u.type != "artillery"
            ),
        }
        for n in range(1, zone.capacity + 1)
    }
    is_contested, why = contested(ctx.state, zone)
    return {
        "zone": zone.id,
        "name": zone.name,
        "class": zone.zone_class,
        "capacity": zone.capacity,
        "trafficability": zone.trafficability,
        "gun_limit": zone.gun_limit,
        "road": zone.road,
        "adjacent": zone.adjacent,
        "sectors": sectors,
        "guns": sorted(u.id for u in garrison(ctx.state, zone.id) if u.type == "artillery"),
        "in_transit": sorted(u.id for u in in_zone(ctx.state, zone.id) if u.at == "transit"),
        "contested": is_contested,
        "contested_by": why,
        "citations": ctx.cited_ids(),
        "interpretations": [ref.id for ref in ctx.interpretations()],
    }


def run_allocation_options(ctx: Ctx, p: AllocationOptionsParams) -> dict[str, Any]:
    zone = ctx.board.zones.get(p.zone)
    if zone is None:
        raise InvalidQuery(f"unknown zone {p.zone!r}")
    assault = pending_assault(ctx.state, zone.id)
    if assault is None:
        raise InvalidQuery(f"no assault on {zone.id} is pending")
    if p.side not in (assault.attacker, assault.defender):
        raise InvalidQuery(f"{p.side} takes no part in the assault on {zone.id}")
    ctx.cite("OZ.Assault.B.1")
    sectors = list(range(1, zone.capacity + 1))
    own = [u for u in ctx.state.units if u.side == p.side]
    if p.side == assault.defender:
        ctx.cite("OZ.Assault.B.2", "OZ.Assault.B.3", "OZ.Basic.F")
        gar = battalions(garrison(ctx.state, zone.id, p.side))
        result: dict[str, Any] = {
            "role": "defender",
            "garrison": [{"unit": u.id, "sector": u.sector} for u in gar],
            "guns": [u.id for u in garrison(ctx.state, zone.id, p.side) if u.type == "artillery"],
            "in_transit": [
                u.id
                for u in in_zone(ctx.state, zone.id)
                if u.side == p.side and u.at == "transit" and u.type != "artillery"
            ],
            "outside": [u.id for u in own if u.zone is None and u.type != "artillery"]
            if ctx.options.outside_reinforcements
            else [],
            "must_flee": [
                u.id
                for u in in_zone(ctx.state, zone.id)
                if u.side == p.side and u.at == "transit" and u.type == "artillery"
            ],
            "undefended_if_garrison_only": [n for n in sectors if n not in {u.sector for u in gar}],
        }
    else:
        ctx.cite("OZ.Assault.B.4", "OZ.Assault.B.5")
        result = {
            "role": "attacker",
            "assaulting": list(assault.units),
            "batteries": [u.id for u in own if u.type == "artillery" and u.zone is None],
            "infantry_needed_per_sector": 1,
            "every_sector": ctx.options.attack_every_sector,
        }
    return {
        "zone": zone.id,
        "side": p.side,
        "decision": decision_id(zone.id, assault.turn),
        "sectors": sectors,
        **result,
        "citations": ctx.cited_ids(),
    }


QUERIES: tuple[Query[Ctx, Any], ...] = (
    Query(
        "zone",
        "A zone's display: class, capacity, trafficability, gun limit, garrison sectors (who "
        "holds each), In-Transit box, contested or not.",
        ZoneParams,
        run_zone,
        results.ZoneDisplay,
    ),
    Query(
        "allocation-options",
        "What a side may allocate in a pending assault on a zone (its own units only; never "
        "the other side's order).",
        AllocationOptionsParams,
        run_allocation_options,
        results.AllocationOptions,
    ),
)
