"""The answers of the ``objective-zones`` queries, as models (same JSON as the queries)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from app.rules.base import QueryResultModel as R


class Sector(R):
    holder: str | None = Field(description="A side, `engaged`, or null when empty.")
    units: list[str]


class ZoneDisplay(R):
    """`zone`: a zone's display."""

    zone: str
    name: str
    zone_class: str = Field(alias="class")
    capacity: int
    trafficability: int
    gun_limit: int
    road: bool
    adjacent: list[str]
    sectors: dict[str, Sector]
    guns: list[str]
    in_transit: list[str]
    contested: bool
    contested_by: str | None
    citations: list[str]
    interpretations: list[str] = Field(
        description="Readings the display relies on (the capacity of Classes C and E)."
    )


class GarrisonPlace(R):
    unit: str
    sector: int | None


class _Allocation(R):
    zone: str
    side: str
    decision: str
    sectors: list[int]
    citations: list[str]


class DefenderOptions(_Allocation):
    role: Literal["defender"]
    garrison: list[GarrisonPlace]
    guns: list[str]
    in_transit: list[str]
    outside: list[str]
    must_flee: list[str]
    undefended_if_garrison_only: list[int]


class AttackerOptions(_Allocation):
    role: Literal["attacker"]
    assaulting: list[str]
    batteries: list[str]
    infantry_needed_per_sector: int
    every_sector: bool


AllocationOptions = Annotated[DefenderOptions | AttackerOptions, Field(discriminator="role")]
