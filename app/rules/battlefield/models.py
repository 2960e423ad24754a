"""Pydantic schemas of the ``battlefield`` ruleset: one seed-003 table with objective zones.

The board and state hold the two composed parts as they are (a ``terrain`` board and state, an
``objective-zones`` board and state), so each part's rules judge them unchanged; this module
adds the zones' outlines, the scenario data of the table (ranges) and the units' postures.
Coordinates are yards, ``[x, y]``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.rules.dispatch import Outcome
from app.rules.objective_zones import models as oz
from app.rules.terrain import models as tr

Point = tuple[float, float]
Posture = tr.Posture
UnitType = Literal["infantry", "cavalry", "artillery", "wagon", "limber"]

DEFAULT_ARTILLERY_RANGE = 1000.0
"""Yards a battery reaches when the scenario gives no range (the seed gives none)."""
DEFAULT_KILL_ZONE_WIDTH = 60.0
"""Width in yards of a battery's kill zone when the scenario gives none (the seed gives none)."""
EDGE_TOLERANCE = 1.0
"""Yards within which a point counts as on a zone's border."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Options(tr.Options, oz.Options):
    """Per-game options: every option of ``terrain`` and of ``objective-zones``, plus ours."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    road_exit_kill_zone: Literal["advisory", "required"] = "advisory"
    class_a_move_within: Literal["stays", "leaves"] = "stays"
    move_advances: Literal[True] = True
    """Always: a move or charge makes a battlefield unit Advancing (bf.move-advances), so
    terrain's ``terrain.posture`` option has one value here."""

    def terrain(self) -> tr.Options:
        """The terrain part's options; its posture is the battlefield's to keep."""
        fields = set(tr.Options.model_fields) - {"move_advances"}
        return tr.Options.model_validate(self.model_dump(include=fields))

    def zones(self) -> oz.Options:
        return oz.Options.model_validate(self.model_dump(include=set(oz.Options.model_fields)))


class Side(tr.Side):
    """A side: an id both parts accept (letters, digits, ``_.-``)."""

    id: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.\-]+$")


class ZoneSpec(_Model):
    """An objective zone drawn on the table."""

    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.\-]+$")
    name: str = ""
    zone_class: oz.ZoneClass = Field(alias="class")
    fortifies: Literal["C", "D"] | None = None
    capacity: int | None = Field(default=None, ge=1, le=12)
    adjacent: list[str] = Field(default_factory=list, max_length=32)
    fort: bool = False
    polygon: list[Point] = Field(min_length=3, max_length=500)

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)


class UnitSpec(_Model):
    id: str = Field(min_length=1, max_length=60, pattern=r"^[A-Za-z0-9_.\-]+$")
    side: str = Field(min_length=1, max_length=40)
    type: UnitType = "infantry"
    order: tr.Order = "formed"
    limbered: bool = True
    mounted: bool = True
    at: Point | None = Field(default=None, description="On the table; omit for a unit in a zone.")
    movement: float | None = Field(default=None, gt=0, le=10_000)
    frontage: float = Field(default=0.0, ge=0, le=1_000)
    grade: str = Field(default="trained", min_length=1, max_length=32)
    men: int = Field(default=12, ge=-1000, le=1000, description="At least 1 (refused at setup).")
    sections: int = Field(default=0, ge=0, le=12)
    zone: str | None = None
    box: Literal["garrison", "transit"] | None = None
    sector: int | None = Field(default=None, ge=1, le=12)
    entered_turn: int | None = Field(default=None, ge=0, le=10_000)
    engaged: bool = False
    posture: Posture = "holding"

    @model_validator(mode="after")
    def _placed(self) -> UnitSpec:
        if self.zone is None and self.at is None:
            raise ValueError("a unit stands at a point of the table or in a zone")
        if self.zone is not None and self.box is None:
            raise ValueError("a unit in a zone is in its garrison or In-Transit box")
        return self


class Scenario(_Model):
    title: str = ""
    layout: Literal["rolling_hills", "rough", "wooded", "river_valley"] | None = None
    table: tr.Table
    sides: list[Side] = Field(min_length=2, max_length=2)
    features: list[tr.Feature] = Field(default_factory=list, max_length=500)
    zones: list[ZoneSpec] = Field(min_length=1, max_length=64)
    units: list[UnitSpec] = Field(min_length=1, max_length=256)
    movement_defaults: dict[str, float] = Field(default_factory=dict)
    melee_dice: dict[str, int] = Field(default_factory=lambda: dict(oz.DEFAULT_MELEE_DICE))
    casualties_per_hit: int = Field(default=1, ge=1, le=10)
    battery_hit_level: int = Field(default=1, ge=1, le=4)
    morale_pass: dict[str, int] = Field(default_factory=lambda: dict(oz.DEFAULT_MORALE_PASS))
    default_morale_pass: int | None = Field(
        default=oz.DEFAULT_GRADE_MORALE_PASS,
        ge=0,
        le=10,
        description="Pass mark of a grade `morale_pass` does not list (objective-zones); null "
        "refuses such a grade at setup.",
    )
    melees: dict[str, str] = Field(default_factory=dict)
    morale_due: dict[str, str] = Field(default_factory=dict)
    artillery_range: float = Field(default=DEFAULT_ARTILLERY_RANGE, gt=0, le=10_000)
    kill_zone_width: float = Field(default=DEFAULT_KILL_ZONE_WIDTH, gt=0, le=1_000)
    turn: int = Field(default=1, ge=1, le=10_000)
    phase: oz.PhaseId = "charge_declaration"
    phasing_side: str | None = None


class Board(_Model):
    title: str
    options: Options = Field(default_factory=Options)
    table: tr.Board
    zones: oz.Board
    outlines: dict[str, list[Point]]
    """Zone id -> its outline on the table."""
    artillery_range: float
    kill_zone_width: float


class State(_Model):
    table: tr.State
    zones: oz.State
    postures: dict[str, Posture] = Field(default_factory=dict)
    moved: dict[str, float] = Field(default_factory=dict)
    """Yards of allowance each unit has spent in this player turn."""
    prolonged: dict[str, float] = Field(default_factory=dict)
    """Yards each unlimbered gun has been prolonged into woods in this player turn (A.45)."""


# -- actions ------------------------------------------------------------------------------


class Move(_Model):
    """Move along ``path`` (waypoints after the position; from a zone, ``path[0]`` is the
    border point it leaves by). Crossing into a zone enters it (``sector`` optional)."""

    kind: Literal["move"] = "move"
    unit: str
    path: list[Point] = Field(min_length=1, max_length=100)
    sector: int | None = Field(default=None, ge=1, le=12)


class Charge(_Model):
    """Declare a charge along ``path``; ending in an enemy-held zone declares its assault."""

    kind: Literal["charge"] = "charge"
    unit: str
    path: list[Point] = Field(min_length=1, max_length=100)


Hold = tr.Hold
"""Order a unit to Holding or Advancing (BF.Posture, A.47): terrain's own order."""


class Fire(_Model):
    """Small-arms fire at a unit (line of sight and the zone musketry ban)."""

    kind: Literal["fire"] = "fire"
    unit: str
    target: str


Bombard = oz.Bombard
"""A battery on the table fires at a zone: the zone part's action, measured to its border."""


class GarrisonFire(_Model):
    """A garrison battery fires its kill zone from ``origin`` on the zone's border at a unit."""

    kind: Literal["garrison_fire"] = "garrison_fire"
    unit: str
    origin: Point
    target: str


class Support(_Model):
    """Name a battery on the table as support of this turn's assault on ``zone`` (B.5)."""

    kind: Literal["support"] = "support"
    unit: str
    zone: str


Action = (
    Move
    | Charge
    | Hold
    | Fire
    | Bombard
    | GarrisonFire
    | Support
    | oz.Transfer
    | oz.Withdraw
    | oz.Unlimber
    | oz.MoraleTest
    | oz.ContinueMelee
)
"""Every battlefield action (discriminated by ``kind``); the last five are the objective-zone
part's own, judged by it alone."""


# -- outcomes: what a legal ruling hands its apply (app.rules.dispatch) -----------------------


class ZoneEntry(Outcome):
    """Where a unit entering a zone stands (the objective-zone part's enter ruling)."""

    zone: str
    at: oz.Location
    sector: int | None = None


class AssaultDeclared(Outcome):
    """The assault a charge declared (the objective-zone part's declaration ruling)."""

    zone: str
    defender: str


class MoveOutcome(Outcome):
    """What a legal move or charge changes: where the unit ends (or was destroyed by a broken
    wheel), the zone it left or entered, the assault it declared or joined, and what it has
    spent of its allowance and prolonge this turn."""

    end: Point
    destroyed_at: Point | None = None
    left: str | None = None
    zone_enter: ZoneEntry | None = None
    assault: AssaultDeclared | None = None
    joins: str | None = None
    spent: float | None = None
    prolonged: float | None = None


class BombardOutcome(Outcome):
    """The objective-zone part's outcome of fire at a zone."""

    zones: oz.BombardOutcome = Field(default_factory=oz.BombardOutcome)


UnitParams = tr.UnitParams


# -- the sealed order -------------------------------------------------------------------------


class Allocation(oz.Allocation):
    """The objective-zone allocation order, validated on submission against the zone part of
    a battlefield game (the service's validation context holds the battlefield board)."""

    @classmethod
    def zone_game(
        cls, context: dict[str, Any]
    ) -> tuple[oz.Board, oz.State, str, oz.Options] | None:
        board, state, side = context.get("board"), context.get("state"), context.get("side")
        if not (isinstance(board, Board) and isinstance(state, State) and isinstance(side, str)):
            return None
        options = context.get("options")
        opts = options.zones() if isinstance(options, Options) else board.options.zones()
        return board.zones, state.zones, side, opts
