"""The answers of the ``zoi`` queries, as models (the queries return the same JSON)."""

from __future__ import annotations

from typing import Any

from app.rules.base import QueryResultModel as R
from app.rules.ruling import Citation


class ZoneSource(R):
    unit: str
    type: str
    subtype: str | None
    formation: str | None
    direction: int
    direction_name: str
    hexside: str
    cavalry: bool


class ZoneHex(R):
    hex: str
    sources: list[ZoneSource]


class Carre(R):
    unit: str
    hex: str
    adjacent: list[str]


class ZoneMap(R):
    """`zone-map`: hexes in the zones a side projects, and that side's carrés."""

    side: str
    hexes: list[ZoneHex]
    carres: list[Carre]
    citations: list[Citation]


class OpportunityFire(R):
    hex: str
    step: int
    by: list[str]
    reason: str | None


class WalkedPath(R):
    path: list[str]
    mp_spent: int
    mp_left: int
    must_stop: bool
    opportunity_fire: list[OpportunityFire]


class ReachHex(R):
    hex: str
    paths: list[WalkedPath]


class Reachable(R):
    """`reachable`: hexes a unit can reach, with the Pareto-best paths."""

    unit: str
    start: str
    ma: int
    already_moved: bool
    hexes: list[ReachHex]
    citations: list[Citation]


class Target(R):
    unit: str
    hex: str
    by: list[str]
    zone_by: list[str]
    carre_by: list[str]


class InterpretationUsed(R):
    id: str
    option: str | None
    value: Any


class DefensiveFire(R):
    """`defensive-fire`: units of a side that may be fired on, and by whom."""

    side: str
    targets: list[Target]
    citations: list[Citation]
    interpretations: list[InterpretationUsed]
