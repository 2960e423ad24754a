"""Pydantic schemas of the ``zoc`` ruleset: scenario, board, state, options and actions.

The scenario is one JSON document. :meth:`ZocRuleset.setup` splits it into the immutable
:class:`Board` (map, hexsides, countries, cost table, supply sources) and the mutable
:class:`State` (units, markers, weather, phase). See ``docs/rulesets/zoc.md`` for the format.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from app.rules.dispatch import Outcome
from app.rules.geometry.layout_spec import LayoutSpec

_ALIASES = {"storm": "storms", "allsea": "all_sea", "sea": "all_sea"}


def _term(value: object) -> object:
    """Terms as players write them: case, spaces and hyphens do not matter (``All-Sea``,
    ``Partisan Base``, ``Operational Movement``); ``storm`` means storms."""
    if not isinstance(value, str):
        return value
    key = "_".join(value.strip().lower().replace("-", " ").split())
    return _ALIASES.get(key, key)


Weather = Annotated[Literal["clear", "mud", "snow", "storms"], BeforeValidator(_term)]
Phase = Annotated[
    Literal["operational_movement", "combat", "exploitation", "reserve_movement"],
    BeforeValidator(_term),
]
HexsideFeature = Annotated[
    Literal["mountain", "river", "major_river", "all_sea", "strait", "lake", "canal", "border"],
    BeforeValidator(_term),
]
MarkerKind = Annotated[
    Literal["airdrop", "beachhead", "logistics", "partisan_base", "detachment"],
    BeforeValidator(_term),
]

ALL_SEA_TERRAIN = "all_sea"
"""The terrain name of an All-Sea hex (where a Beachhead marker may lie)."""

DEFAULT_TERRAIN_COSTS: dict[str, int | None] = {
    "clear": 1,
    "city": 1,
    "rough": 2,
    "forest": 2,
    "hills": 2,
    "swamp": 3,
    "mountain": 3,
    "all_sea": None,
}
"""Movement points to enter a hex, by terrain (None = impassable). The source gives no costs:
these are this project's documented defaults; a scenario overrides or extends them."""

DEFAULT_HEXSIDE_COSTS: dict[str, int | None] = {
    "mountain": 2,
    "river": 1,
    "major_river": 2,
    "strait": 1,
    "canal": 1,
    "border": 0,
    "all_sea": None,
    "lake": None,
}
"""Extra movement points to cross a hexside, by feature (None = may not be crossed, except an
All-Sea hexside that is a Beachhead Hexside). Documented defaults, scenario data."""

DEFAULT_MAX_SUPPLY_LENGTH = 5
"""Default maximum supply line length in hexes (the source gives none)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- shared parts ---------------------------------------------------------------------------


class MapArea(_Model):
    """A rectangle of hexes (inclusive column and row ranges) sharing default attributes."""

    prefix: str = Field(default="", pattern=r"^[A-Za-z]*$")
    cols: tuple[int, int]
    rows: tuple[int, int]
    terrain: str = "clear"
    country: str | None = None
    weather_zone: str | None = None


class HexSpec(_Model):
    """Per-hex attributes; a null field inherits from the map area that holds the hex."""

    terrain: str | None = None
    country: str | None = None
    weather_zone: str | None = None


class HexInfo(_Frozen):
    """One map hex on the board."""

    terrain: str = "clear"
    country: str | None = None
    weather_zone: str | None = None


class Country(_Frozen):
    """A country and its posture."""

    name: str = ""
    policy_affected: bool = Field(
        default=False, description="Policy Affected (13.6.1): its hexes and units carry no ZOC."
    )


class SideSpec(_Frozen):
    id: str = Field(min_length=1)
    label: str = ""


class Unit(_Model):
    """A unit on (or off) the map."""

    id: str = Field(min_length=1)
    name: str = ""
    side: str
    country: str | None = None
    type: str = "infantry"
    ground: bool = Field(default=True, description="Only ground units exert a ZOC (8).")
    movement_allowance: int = Field(default=0, ge=0)
    steps: int = Field(default=1, ge=1)
    hex: str | None = Field(default=None, description="Current hex; null = off the map.")


class Marker(_Model):
    """A marker on the map."""

    id: str = Field(min_length=1)
    kind: MarkerKind
    hex: str
    side: str | None = None
    hexside: str | None = Field(
        default=None,
        description="Beachhead markers only: the Beachhead Hexside, as 'hexA/hexB'.",
    )


class MovementCosts(_Frozen):
    """Terrain and hexside movement costs; given entries are merged over the defaults."""

    terrain: dict[str, int | None] = Field(default_factory=lambda: dict(DEFAULT_TERRAIN_COSTS))
    hexside: dict[str, int | None] = Field(default_factory=lambda: dict(DEFAULT_HEXSIDE_COSTS))

    @field_validator("terrain")
    @classmethod
    def _merge_terrain(cls, value: dict[str, int | None]) -> dict[str, int | None]:
        _no_negative(value)
        return {**DEFAULT_TERRAIN_COSTS, **value}

    @field_validator("hexside")
    @classmethod
    def _merge_hexside(cls, value: dict[str, int | None]) -> dict[str, int | None]:
        _no_negative(value)
        return {**DEFAULT_HEXSIDE_COSTS, **value}


def _no_negative(costs: dict[str, int | None]) -> None:
    for key, cost in costs.items():
        if cost is not None and cost < 0:
            raise ValueError(f"cost of {key!r} must not be negative")


class SupplySpec(_Frozen):
    """Supply sources per side and the longest supply line, in hexes."""

    sources: dict[str, list[str]] = Field(default_factory=dict)
    max_length: int = Field(default=DEFAULT_MAX_SUPPLY_LENGTH, ge=0)


# -- scenario, board, state -----------------------------------------------------------------


class Scenario(_Model):
    """A ``zoc`` scenario document."""

    title: str = ""
    description: str = ""
    layout: LayoutSpec = Field(default_factory=LayoutSpec)
    areas: list[MapArea] = Field(default_factory=list, description="Rectangles of map hexes.")
    hexes: dict[str, HexSpec] = Field(
        default_factory=dict, description="Extra hexes, or overrides of hexes in an area."
    )
    hexsides: dict[str, list[HexsideFeature]] = Field(
        default_factory=dict, description="Hexside id 'hexA/hexB' (either order) -> features."
    )
    countries: dict[str, Country] = Field(default_factory=dict)
    sides: list[SideSpec] = Field(min_length=2)
    units: list[Unit] = Field(default_factory=list)
    markers: list[Marker] = Field(default_factory=list)
    weather: dict[str, Weather] = Field(
        default_factory=dict, description="Weather zone -> weather; missing zones are clear."
    )
    movement_costs: MovementCosts = Field(default_factory=MovementCosts)
    supply: SupplySpec = Field(default_factory=SupplySpec)
    turn: int = Field(default=1, ge=1)
    phase: Phase = "operational_movement"
    phasing_side: str
    start_positions: dict[str, str | None] | None = Field(
        default=None,
        description="Unit -> hex at the start of the current phase; default: current hexes.",
    )
    moved: list[str] = Field(default_factory=list, description="Units that moved this phase.")


class Board(_Frozen):
    """The immutable part of a game."""

    title: str = ""
    layout: LayoutSpec = Field(default_factory=LayoutSpec)
    hexes: dict[str, HexInfo]
    hexsides: dict[str, tuple[HexsideFeature, ...]] = Field(default_factory=dict)
    countries: dict[str, Country] = Field(default_factory=dict)
    sides: tuple[SideSpec, ...]
    movement_costs: MovementCosts = Field(default_factory=MovementCosts)
    supply: SupplySpec = Field(default_factory=SupplySpec)


class State(_Model):
    """The mutable part of a game."""

    turn: int = 1
    phase: Phase = "operational_movement"
    phasing_side: str
    weather: dict[str, Weather] = Field(default_factory=dict)
    units: list[Unit] = Field(default_factory=list)
    markers: list[Marker] = Field(default_factory=list)
    start_positions: dict[str, str | None] = Field(default_factory=dict)
    moved: list[str] = Field(default_factory=list)


class ZocOptions(_Frozen):
    """Per-game options: each flips one documented interpretation (see ``catalog``)."""

    airdrop_negates_supply_retreat: bool = True
    overrun_exempts_all_ezoc: bool = False
    overrun_exempts_target_stack: bool = True
    reserve_negation: bool = False
    weather_affects_retreat: bool = False
    weather_in_exploitation: bool = True
    storms_stop_on_leaving_start: bool = True
    non_ground_negates: bool = False
    retreat_negated_ezoc_is_free: bool = False
    retreat_ezoc_free_first: bool = True
    retreat_must_move_away: bool = True
    started_in_ezoc_exempt: bool = False


# -- actions --------------------------------------------------------------------------------


class MoveAction(_Model):
    """Move a unit along ``path``: the hexes it enters, in order, NOT including its own hex."""

    kind: Literal["move"] = "move"
    unit: str
    path: list[str] = Field(min_length=1)
    overrun: str | None = Field(
        default=None, description="Enemy unit overrun: the path then ends in that unit's hex."
    )


class RetreatAction(_Model):
    """Retreat a unit along ``path`` (hexes entered); ``length`` comes from the combat result."""

    kind: Literal["retreat"] = "retreat"
    unit: str
    path: list[str] = Field(default_factory=list)
    length: int = Field(ge=0)


class TraceSupplyAction(_Model):
    """Claim a supply line for a unit; with no ``path`` the referee searches for one."""

    kind: Literal["trace_supply"] = "trace_supply"
    unit: str
    path: list[str] | None = None


class SetPhaseAction(_Model):
    """Umpire: start a phase (records every unit's start position) and set the weather."""

    kind: Literal["set_phase"] = "set_phase"
    phase: Phase
    phasing_side: str
    weather: dict[str, Weather] = Field(default_factory=dict)
    turn: int | None = Field(default=None, ge=1)


class PlaceUnitAction(_Model):
    """Umpire: put a unit in a hex, or take it off the map with ``hex: null``."""

    kind: Literal["place_unit"] = "place_unit"
    unit: str
    hex: str | None


class PlaceMarkerAction(_Model):
    """Umpire: place a marker (or move an existing marker with the same id)."""

    kind: Literal["place_marker"] = "place_marker"
    marker: Marker


class RemoveMarkerAction(_Model):
    """Umpire: remove a marker."""

    kind: Literal["remove_marker"] = "remove_marker"
    marker: str


Action = (
    MoveAction
    | RetreatAction
    | TraceSupplyAction
    | SetPhaseAction
    | PlaceUnitAction
    | PlaceMarkerAction
    | RemoveMarkerAction
)


class MoveOutcome(Outcome):
    """What a legal move changes: where the unit ends (before an overrun target's hex)."""

    end_hex: str


# -- query parameters -----------------------------------------------------------------------


class EzocMapParams(_Model):
    side: str
    near: str | None = Field(
        default=None, description="With 'within': only the hexes within that distance of it."
    )
    within: int | None = Field(
        default=None, ge=0, le=200, description="With 'near': the area's radius in hexes."
    )


class ReachableParams(_Model):
    unit: str
    why_not: Literal["frontier", "all"] = Field(
        default="frontier",
        description="Which unreached hexes get their reasons: 'frontier' (default) those the "
        "search refused a step into; 'all' also every other hex within the movement "
        "allowance's distance (zoc.out_of_reach).",
    )


class SupplyParams(_Model):
    unit: str | None = None
    side: str | None = None
