"""The answers of the ``battlefield`` queries, as models (the queries return the same JSON).
Most extend the answers of the ``objective-zones`` and ``terrain`` queries they build on."""

from __future__ import annotations

from pydantic import Field

from app.rules.objective_zones.results import AllocationOptions, ZoneDisplay
from app.rules.terrain.results import Cover as TerrainCover
from app.rules.terrain.results import Finding, LineOfSight, TerrainAt
from app.rules.terrain.results import ScenarioCheck as TerrainScenarioCheck


class Zone(ZoneDisplay):
    """`zone`: the zone's display plus its outline on the table."""

    outline: list[tuple[float, float]]
    width: float = Field(description="Longer side of the smallest rectangle around it (yards).")
    depth: float
    road_exit: tuple[float, float] | None


class ZoneSize(Finding):
    zone: str
    width: float
    depth: float


class ScenarioCheck(TerrainScenarioCheck):
    """`scenario-check`: the terrain guidance plus the suggested zone sizes."""

    findings: list[ZoneSize | Finding]
    interpretations: list[str]


class Cover(TerrainCover):
    """`cover`: the cover a unit has now (A.47), a zone garrison's too."""

    zone_garrison: bool


__all__ = [
    "AllocationOptions",
    "Cover",
    "LineOfSight",
    "ScenarioCheck",
    "TerrainAt",
    "Zone",
    "ZoneSize",
]
