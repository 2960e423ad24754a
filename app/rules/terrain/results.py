"""The answers of the ``terrain`` queries, as models (the queries return the same JSON)."""

from __future__ import annotations

from pydantic import Field

from app.rules.base import QueryResultModel as R


class Blocking(R):
    feature: str
    kind: str
    section: str
    yards: float = Field(description="Length of the sight line inside the feature.")


class LineOfSight(R):
    """`line-of-sight`: is the line clear, and what blocks it."""

    clear: bool
    blocked_by: list[Blocking]
    ignored: list[str]
    yards: float
    citations: list[str]
    interpretations: list[str]


class FeatureAt(R):
    feature: str
    kind: str
    by_unit_type: dict[str, str] | None = Field(
        default=None, description="Closed ground, limits, rough: what it means per unit type."
    )
    blocks_sight: bool | None = None
    note: str | None = None


class TerrainAt(R):
    """`terrain-at`: the features at a point."""

    at: tuple[float, float]
    features: list[FeatureAt]
    open: bool
    citations: list[str]


class Finding(R):
    section: str
    ok: bool
    note: str


class ScenarioCheck(R):
    """`scenario-check`: scenario-design guidance."""

    layout: str
    open_share: float
    findings: list[Finding]
    citations: list[str]


class Cover(R):
    """`cover`: the cover a unit has now (A.47; prepared earthworks A.41, fort walls A.36)."""

    unit: str
    posture: str
    features: list[str]
    earthworks: list[str]
    in_cover: bool
    cover_in_melee: bool
    citations: list[str]
    interpretations: list[str]
