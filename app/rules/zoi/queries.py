"""Read-only queries of the ``zoi`` ruleset for front ends: zone map, reachable, defensive fire."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict

from app.rules.base import InvalidQuery
from app.rules.dispatch import Query
from app.rules.zoi import results, search
from app.rules.zoi.catalog import CATALOG, I_CARRE_DF, INTERPRETATIONS_BY_ID
from app.rules.zoi.zones import Game, is_combat


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ZoneMapParams(_Params):
    side: str
    """The side whose units project the zones shown."""


class ReachableParams(_Params):
    unit: str


class DefensiveFireParams(_Params):
    side: str | None = None
    """The side whose units may be fired on (default: the phasing side)."""


@cache
def _cited(sections: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    return tuple(CATALOG.cite(s).model_dump(mode="json") for s in sections)


def _cite(*sections: str) -> list[dict[str, Any]]:
    """The citations of an answer as JSON (each built once per group of sections)."""
    return [dict(c) for c in _cited(sections)]


def _check_side(game: Game, side: str) -> None:
    if side not in game.side_ids():
        raise InvalidQuery(f"unknown side {side!r}; sides: {', '.join(game.side_ids())}")


def zone_map(game: Game, side: str) -> dict[str, Any]:
    """Every hex in a zone projected by ``side``: by which units, across which hexside."""
    _check_side(game, side)
    hexes = []
    for h in sorted(game.zone):
        sources = [s for s in game.zone[h] if s.side == side]
        if not sources:
            continue
        hexes.append(
            {
                "hex": h,
                "sources": [
                    {
                        "unit": s.unit,
                        "type": s.type,
                        "subtype": s.subtype,
                        "formation": s.formation,
                        "direction": s.direction,
                        "direction_name": game.layout.direction_name(s.direction),
                        "hexside": s.hexside,
                        "cavalry": s.cavalry,
                    }
                    for s in sources
                ],
            }
        )
    carres = []
    for u in game.state.units:
        if u.side == side and u.formation == "carre" and is_combat(u):
            carres.append(
                {
                    "unit": u.id,
                    "hex": u.hex,
                    "adjacent": [n for _, n in game.adjacent_on_map(u.hex)],
                }
            )
    return {
        "side": side,
        "hexes": hexes,
        "carres": carres,
        "citations": _cite("14", "14.zone", "14.front", "14.carre"),
    }


def reachable(game: Game, unit_id: str) -> dict[str, Any]:
    """Hexes the unit can reach by entering hexes only, with the fire chances of each path.

    For each hex the Pareto-best paths are listed: no other path is both cheaper in movement
    points and gives the enemy fewer opportunity-fire chances.
    """
    unit = search.unit_named(game, unit_id)
    if unit is None:
        raise InvalidQuery(f"unknown unit {unit_id!r}")
    hexes = search.reachable_hexes(game, unit)
    return {
        "unit": unit.id,
        "start": unit.hex,
        "ma": unit.ma,
        "already_moved": unit.id in game.state.moved,
        "hexes": hexes,
        "citations": _cite(
            "movement",
            "14.zone",
            "14.stop.infantry-artillery",
            "14.exit.infantry-artillery",
            "14.stop.cavalry",
            "14.cavalry-passes",
            "14.opportunity.exit",
            "14.carre",
        ),
    }


def defensive_fire(game: Game, side: str | None) -> dict[str, Any]:
    """Units of ``side`` in an enemy zone (or next to an enemy carré) and who may fire at them."""
    target_side = side or game.state.phasing
    _check_side(game, target_side)
    consulted: set[str] = set()
    targets = []
    for u in game.state.units:
        if u.side != target_side or not is_combat(u):
            continue
        zone_by = sorted({s.unit for s in game.enemy_zone(u.hex, target_side, consulted)})
        carre_by = game.enemy_carres(u.hex, target_side)
        if carre_by:
            consulted.add(I_CARRE_DF)
            if not game.options.carre_adjacent_in_defensive_fire:
                carre_by = []
        if zone_by or carre_by:
            targets.append(
                {
                    "unit": u.id,
                    "hex": u.hex,
                    "by": sorted(set(zone_by) | set(carre_by)),
                    "zone_by": zone_by,
                    "carre_by": carre_by,
                }
            )
    sections = ["14.defensive-fire"] + (["14.carre"] if I_CARRE_DF in consulted else [])
    return {
        "side": target_side,
        "targets": targets,
        "citations": _cite(*sections),
        "interpretations": [
            {
                "id": i,
                "option": INTERPRETATIONS_BY_ID[i].option,
                "value": getattr(game.options, INTERPRETATIONS_BY_ID[i].option or "", None),
            }
            for i in sorted(consulted)
        ],
    }


def run_zone_map(game: Game, p: ZoneMapParams) -> dict[str, Any]:
    return zone_map(game, p.side)


def run_reachable(game: Game, p: ReachableParams) -> dict[str, Any]:
    return reachable(game, p.unit)


def run_defensive_fire(game: Game, p: DefensiveFireParams) -> dict[str, Any]:
    return defensive_fire(game, p.side)


QUERIES: tuple[Query[Game, Any], ...] = (
    Query(
        name="zone-map",
        description="Hexes in the zones projected by a side's units: which units, across "
        "which front hexside; plus that side's carrés and their adjacent hexes.",
        params=ZoneMapParams,
        run=run_zone_map,
        result=results.ZoneMap,
    ),
    Query(
        name="reachable",
        description="Hexes a unit can reach this phase, with the movement points and the "
        "opportunity-fire chances of each Pareto-best path.",
        params=ReachableParams,
        run=run_reachable,
        result=results.Reachable,
    ),
    Query(
        name="defensive-fire",
        description="Units of a side (default: phasing) that may be fired on in the defensive "
        "fire segment, and the enemy units entitled to fire at each.",
        params=DefensiveFireParams,
        run=run_defensive_fire,
        result=results.DefensiveFire,
    ),
)
"""The ``zoi`` queries, answered through :meth:`ZoiRuleset.context`."""
