"""Pydantic schemas of the ``terrain`` ruleset: scenario, board, state, options, actions.

Coordinates are yards on the table, ``[x, y]``; ``(0, 0)`` is a table corner.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from app.rules.dispatch import Outcome

Point = tuple[float, float]

FeatureKind = Literal[
    "heavy_woods",
    "light_woods",
    "orchard",
    "rough",
    "marsh",
    "beach",
    "bushes",
    "high_grass",
    "building",
    "stream",
    "river",
    "road",
    "bridge",
    "ford",
    "earthworks",
    "protective_cover",
    "stockade",
    "fort",
    "hill",
    "fence",
    "stone_wall",
    "open",
]
UnitType = Literal["infantry", "cavalry", "artillery", "wagon", "limber"]
Order = Literal["formed", "skirmish", "unformed"]
Posture = Literal["holding", "advancing"]
"""A unit's posture (A.47: a defender gets its protective cover in a melee only if Holding)."""

DEFAULT_MOVEMENT: dict[str, float] = {
    "infantry": 120.0,
    "cavalry": 240.0,
    "dismounted_cavalry": 120.0,
    "artillery": 120.0,
    "wagon": 100.0,
    "limber": 180.0,
}
"""Movement allowances in yards when a scenario gives none (the text gives no rates)."""

DEFAULT_OBSTACLE_YARDS: dict[str, float] = {"fence": 10.0, "stone_wall": 20.0}
"""Yards of allowance a crossing of a fence or stone wall costs (scenario data; the text says
only that they delay briefly, A.31). A scenario's ``obstacle_yards`` overrides only the kinds
it names (:func:`with_default_obstacles`); setup refuses a delay outside ``OBSTACLE_YARDS``."""

OBSTACLE_YARDS = (0.0, 10_000.0)
"""Bounds of a scenario's obstacle delay (T.Scenario): more than 0 (A.31: fences and walls
*delay*, briefly -- never how briefly, but a delay of 0 or less, ``-0.0`` included, is no
delay) and at most 10,000 yards. Since terrain 0.8.0; before, 0 was accepted."""

MOVEMENT_YARDS = (0.0, 10_000.0)
"""Bounds of a movement allowance (T.Scenario): more than 0 (every unit the text names moves)
and at most 10,000 yards, as a unit's own ``movement``."""

ObstacleKind = Literal["fence", "stone_wall"]


def _default_obstacles() -> dict[ObstacleKind, float]:
    return {
        "fence": DEFAULT_OBSTACLE_YARDS["fence"],
        "stone_wall": DEFAULT_OBSTACLE_YARDS["stone_wall"],
    }


DEFAULT_STEEP_SLOPE_COST = 2.0
"""Yards of allowance each yard on a steep slope costs (scenario data; the text gives none)."""

DEFAULT_FORD_WIDTH = 30.0
"""A ford drawn as a line with no width counts as 30 yards wide (A.24)."""


def with_default_obstacles(given: dict[str, float]) -> dict[str, float]:
    """The obstacle delays in force: the documented defaults, overridden by the kinds given."""
    return {**DEFAULT_OBSTACLE_YARDS, **given}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Table(_Model):
    width: float = Field(gt=0, le=100_000, description="Table width in yards (x axis).")
    height: float = Field(gt=0, le=100_000, description="Table depth in yards (y axis).")


class Side(_Model):
    id: str = Field(min_length=1, max_length=40)
    label: str = ""


class Feature(_Model):
    """A terrain feature: a ``polygon`` (ring of points) or a centre ``line`` with a ``width``."""

    id: str = Field(min_length=1, max_length=60)
    kind: FeatureKind
    name: str = ""
    polygon: list[Point] | None = Field(default=None, max_length=500)
    line: list[Point] | None = Field(default=None, max_length=500)
    width: float | None = Field(default=None, gt=0, le=10_000)
    steep_banks: bool = False
    fordable: bool = True
    works: Literal["prepared", "hasty"] | None = None
    hasty_works: bool = False
    capacity: int | None = Field(default=None, ge=0, le=100)
    slope: Literal["gentle", "steep"] = Field(
        default="gentle", description="Hills: gentle (A.11) or steep (A.12) slopes."
    )
    sunken: bool = Field(
        default=False,
        description="Roads only: a sunken section (A.12, A.47); refused on any other kind.",
    )
    partial: bool = Field(
        default=False,
        description="Forts only: only a section of the wall is on the table (A.36); refused "
        "on any other kind.",
    )

    @model_validator(mode="after")
    def _one_shape(self) -> Feature:
        if (self.polygon is None) == (self.line is None):
            raise ValueError("give exactly one of polygon or line")
        if self.polygon is not None and len(self.polygon) < 3:
            raise ValueError("a polygon needs at least 3 points")
        if self.line is not None and len(self.line) < 2:
            raise ValueError("a line needs at least 2 points")
        if self.line is not None and self.width is None and self.kind != "ford":
            raise ValueError("a line feature needs a width")
        return self


class UnitSpec(_Model):
    id: str = Field(min_length=1, max_length=60)
    side: str
    type: UnitType
    order: Order = "formed"
    limbered: bool = True
    mounted: bool = True
    at: Point
    movement: float | None = Field(default=None, gt=0, le=10_000)
    frontage: float = Field(default=0.0, ge=0, le=1_000, description="Frontage in yards.")
    posture: Posture = "holding"


class Scenario(_Model):
    title: str = ""
    layout: Literal["rolling_hills", "rough", "wooded", "river_valley"] | None = None
    table: Table
    sides: list[Side] = Field(min_length=1, max_length=8)
    features: list[Feature] = Field(default_factory=list, max_length=500)
    units: list[UnitSpec] = Field(default_factory=list, max_length=500)
    movement_defaults: dict[str, float] = Field(
        default_factory=dict,
        description="Allowances in yards by unit type (keys of DEFAULT_MOVEMENT), overriding "
        "only the types named; each more than 0 and at most 10,000 (refused at setup).",
    )
    obstacle_yards: dict[ObstacleKind, float] = Field(
        default_factory=_default_obstacles,
        description="Yards a fence or stone wall crossing costs, overriding only the kinds "
        "named; each more than 0 and at most 10,000 (refused at setup).",
    )
    steep_slope_cost: float = Field(default=DEFAULT_STEEP_SLOPE_COST, ge=1, le=10)


class Options(_Model):
    """Per-game options; each selects one reading of an ambiguous clause."""

    unformed_counts_as: Literal["formed", "skirmish"] = "formed"
    in_feature: Literal["centre", "footprint"] = "centre"
    cap_scope: Literal["whole_move", "in_feature"] = "whole_move"
    shared_edge: Literal["once", "each"] = "once"
    ford_halving: Literal["ford_part", "whole_move"] = "ford_part"
    wheel_check: Literal["per_entry", "per_move"] = "per_entry"
    limbered_guns_as_limbers: bool = True
    guns_in_heavy_woods: Literal["closed", "prolonge"] = "closed"
    los_from_inside: Literal["blocked", "sees_out"] = "blocked"
    roads_must_exit: bool = True
    hills_block_sight: bool = True
    move_advances: bool = False


class Unit(_Model):
    id: str
    side: str
    type: UnitType
    order: Order
    limbered: bool
    mounted: bool
    at: Point
    movement: float
    frontage: float = 0.0
    destroyed: bool = False


class Board(_Model):
    title: str = ""
    layout: str | None = None
    table: Table
    sides: list[Side]
    features: list[Feature]
    options: Options = Field(default_factory=Options)
    obstacle_yards: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_OBSTACLE_YARDS))
    """Every obstacle kind's delay: a stored board naming only some kinds gets the defaults
    of the others (as setup gives them)."""
    steep_slope_cost: float = DEFAULT_STEEP_SLOPE_COST

    _obstacles = field_validator("obstacle_yards")(
        classmethod(lambda cls, v: with_default_obstacles(v))
    )


class Charge(_Model):
    unit: str
    path: list[Point]


class State(_Model):
    units: list[Unit]
    charges: list[Charge] = Field(default_factory=list)
    postures: dict[str, Posture] = Field(default_factory=dict)
    """Units not Holding (A.47): a unit not listed is Holding (interpretation
    ``terrain.posture``)."""


class Move(_Model):
    """Move a unit along ``path``: the waypoints after its current position, in yards."""

    kind: Literal["move"] = "move"
    unit: str
    path: list[Point] = Field(min_length=1, max_length=100)


class DeclareCharge(_Model):
    """Declare a charge along ``path`` (waypoints after the unit's position)."""

    kind: Literal["charge"] = "charge"
    unit: str
    path: list[Point] = Field(min_length=1, max_length=100)


class Fire(_Model):
    """A unit fires at a target unit (terrain checks only: sight line and fords)."""

    kind: Literal["fire"] = "fire"
    unit: str
    target: str


class Hold(_Model):
    """Order a unit to Holding or Advancing (A.47)."""

    kind: Literal["hold"] = "hold"
    unit: str
    posture: Posture = "holding"


class MoveOutcome(Outcome):
    """Where a move's unit was destroyed by a broken wheel (A.46), if it was."""

    destroyed_at: Point | None = None


Action = Move | DeclareCharge | Fire | Hold
"""Every terrain action (discriminated by ``kind``)."""


def parse_point(value: Any) -> Any:
    """Accept ``"x,y"`` (query strings) as well as ``[x, y]``."""
    if isinstance(value, str):
        parts = value.split(",")
        if len(parts) != 2:
            raise ValueError("a point is 'x,y' in yards")
        return (float(parts[0]), float(parts[1]))
    return value


class LosParams(_Model):
    from_: Point = Field(alias="from")
    to: Point

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)

    _points = field_validator("from_", "to", mode="before")(
        classmethod(lambda cls, v: parse_point(v))
    )


class UnitParams(_Model):
    unit: str


class TerrainAtParams(_Model):
    at: Point

    _points = field_validator("at", mode="before")(classmethod(lambda cls, v: parse_point(v)))


class ScenarioCheckParams(_Model):
    pass
