"""The answers of the ``zoc`` queries, as models (the queries return the same JSON)."""

from __future__ import annotations

from pydantic import Field

from app.rules.base import QueryResultModel as R


class Negator(R):
    kind: str = Field(description="`unit` or `marker`.")
    id: str


class EzocHex(R):
    by: list[str] = Field(description="Enemy units projecting a ZOC into the hex.")
    negated: bool
    negated_by: list[Negator]
    markers_not_negating: list[str]
    across_beachhead_hexside: list[str]
    weather: str
    citations: list[str]


class BlockedProjection(R):
    unit: str
    from_: str = Field(alias="from")
    to: str
    reason: str
    section: str


class NoZoc(R):
    unit: str
    reason: str
    section: str


class EzocMap(R):
    """`ezoc-map`: every hex in an enemy ZOC for `side`, negation, blocked projections."""

    side: str
    phase: str
    phasing_side: str | None
    hexes: dict[str, EzocHex]
    blocked: list[BlockedProjection]
    no_zoc: list[NoZoc]
    citations: list[str]
    interpretations: list[str]


class Reason(R):
    code: str
    message: str
    citations: list[str]


class Stop(R):
    reason: str
    by: list[str]
    message: str
    citations: list[str]


class ReachableHex(R):
    cost: int
    path: list[str]
    must_stop: bool
    stop: Stop | None


class Reachable(R):
    """`reachable`: each reachable hex with its cheapest legal path; why others are not."""

    unit: str
    phase: str
    start: str
    movement_allowance: int
    can_move: bool
    reason: Reason | None = Field(default=None, description="Present when it cannot move.")
    started_in_ezoc: bool | None = Field(default=None, description="Present when it can.")
    reachable: dict[str, ReachableHex]
    unreachable: dict[str, list[Reason]]
    citations: list[str]
    interpretations: list[str] = Field(default_factory=list)


class SupplyBlock(R):
    hex: str
    code: str
    message: str
    by: list[str]
    citations: list[str]


class UnitSupply(R):
    unit: str
    side: str
    in_supply: bool
    path: list[str]
    length: int
    source: str | None
    max_length: int
    blocked: list[SupplyBlock] | None = Field(default=None, description="When out of supply.")
    reason: Reason | None = None


class UnitSupplyReport(UnitSupply):
    """`supply?unit=`: one unit's supply line."""

    citations: list[str]
    interpretations: list[str]


class SideSupply(R):
    """`supply?side=`: every ground unit of a side."""

    side: str
    units: dict[str, UnitSupply]
    in_supply: list[str]
    out_of_supply: list[str]
    citations: list[str]
    interpretations: list[str]


Supply = UnitSupplyReport | SideSupply
