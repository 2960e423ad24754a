"""Pydantic schemas of the ``objective-zones`` ruleset: scenario, board, state, options,
actions, the sealed allocation order and query parameters."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.rules.dispatch import Outcome

ZoneClass = Literal["A", "B", "C", "D", "E", "F"]
UnitType = Literal["infantry", "cavalry", "artillery"]
PhaseId = Literal[
    "charge_declaration", "movement", "initial_fire", "secondary_fire", "objective_combat"
]
Id = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.\-]+$")

TRAFFICABILITY: dict[str, int] = {"A": 1, "B": 1, "C": 2, "D": 2, "E": 3, "F": 3}
"""Turns needed to pass through a zone, by class (OZ.Class table)."""
CAPACITY: dict[str, int] = {"A": 1, "B": 2, "C": 2, "D": 3, "F": 4}
"""Troop capacity by class (OZ.Class table); C and E depend on interpretations."""
RAISE: dict[str, int] = {"A": 0, "B": 1, "C": 1, "D": 1, "E": 2, "F": 2}
"""Levels a garrison's ability is raised by zone class (OZ.Assault.C)."""
DEFAULT_MELEE_DICE: dict[str, int] = {"elite": 4, "veteran": 3, "trained": 2, "green": 1}
DEFAULT_MORALE_PASS: dict[str, int] = {"elite": 3, "veteran": 4, "trained": 5, "green": 6}
"""Lowest d10 reading (0-9) that passes a morale test, by grade (scenario data: the seed
names who tests, not how)."""
DEFAULT_GRADE_MORALE_PASS = 5
"""The pass mark of a grade the scenario's ``morale_pass`` does not list (scenario data,
``default_morale_pass``): the trained grade's. Older scenarios name their own grades."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Options(_Strict):
    """Per-game options: each flips one interpretation (see catalog.INTERPRETATIONS)."""

    class_c_capacity: Literal[2, 3] = 2
    class_e_capacity: Literal[2, 3] = 2
    level_three_from: Literal[20, 21] = 21
    level_four_needs_strength: bool = False
    engaged_get_zone_modifier: bool = True
    post_melee: Literal["sector", "zone-wide"] = "sector"
    attack_every_sector: bool = True
    class_f_adjacent_only: bool = False
    artillery_limit_counts: Literal["sections", "batteries"] = "sections"
    defender_guns_add_dice: bool = False
    half_dice_rounding: Literal["down", "up"] = "down"
    class_a_skirmish: bool = True
    outside_reinforcements: bool = True
    withdraw_last_casting: Literal["destroyed", "refused"] = "destroyed"
    counter_charge_ban: Literal["side", "zone_units"] = "side"


class SideSpec(_Strict):
    id: str = Id
    label: str = ""


class ZoneSpec(_Strict):
    id: str = Id
    name: str = ""
    zone_class: ZoneClass = Field(alias="class")
    fortifies: Literal["C", "D"] | None = Field(
        default=None, description="Class E only: the village (C) or town (D) fortified."
    )
    capacity: int | None = Field(
        default=None, ge=1, le=12, description="Override of the class table (scenario data)."
    )
    adjacent: list[str] = Field(default_factory=list, max_length=32)
    road: bool = Field(default=False, description="The zone has a road exit.")
    fort: bool = Field(
        default=False, description="A whole large fort (A.36): capacity 6-12, one per sector."
    )

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


Location = Literal["board", "transit", "garrison"]


class UnitSpec(_Strict):
    id: str = Id
    side: str = Id
    type: UnitType = "infantry"
    grade: str = Field(default="trained", min_length=1, max_length=32)
    men: int = Field(
        default=12,
        ge=-1000,
        le=1000,
        description="Castings (figures) in the unit: at least 1 (fewer is refused at setup, "
        "objective-zones.scenario.no_castings).",
    )
    sections: int = Field(default=0, ge=0, le=12, description="Firing sections (batteries).")
    zone: str | None = None
    at: Location = "board"
    sector: int | None = Field(default=None, ge=1, le=12)
    entered_turn: int | None = Field(default=None, ge=0, le=10_000)
    engaged: bool = False


class Scenario(_Strict):
    title: str = ""
    sides: list[SideSpec] = Field(min_length=2, max_length=2)
    zones: list[ZoneSpec] = Field(min_length=1, max_length=64)
    units: list[UnitSpec] = Field(min_length=1, max_length=256)
    melee_dice: dict[str, int] = Field(default_factory=lambda: dict(DEFAULT_MELEE_DICE))
    casualties_per_hit: int = Field(default=1, ge=1, le=10)
    battery_hit_level: int = Field(default=1, ge=1, le=4)
    morale_pass: dict[str, int] = Field(default_factory=lambda: dict(DEFAULT_MORALE_PASS))
    default_morale_pass: int | None = Field(
        default=DEFAULT_GRADE_MORALE_PASS,
        ge=0,
        le=10,
        description="Pass mark (lowest passing d10 reading) of a grade `morale_pass` does not "
        "list; null refuses such a grade at setup (objective-zones.scenario.no_morale_pass).",
    )
    melees: dict[str, str] = Field(
        default_factory=dict, description="Zone -> attacking side of an engaged melee going on."
    )
    morale_due: dict[str, str] = Field(
        default_factory=dict, description="Unit -> why it owes a morale test (melee, artillery)."
    )
    turn: int = Field(default=1, ge=1, le=10_000)
    phase: PhaseId = "charge_declaration"
    phasing_side: str | None = None


class Zone(_Strict):
    """A zone as the board holds it: class, capacity and trafficability resolved."""

    id: str
    name: str
    zone_class: ZoneClass
    capacity: int
    trafficability: int
    adjacent: list[str]
    road: bool
    gun_limit: int
    """Firing sections (or batteries, see oz.gun-stand) the garrison may hold (OZ.Basic.D)."""
    fort: bool = False
    """A whole large fort (A.36)."""


class Board(_Strict):
    title: str
    options: Options = Field(default_factory=Options)
    """The game's options, kept for hooks that are not handed them (sealed_dice_needed)."""
    sides: list[SideSpec]
    zones: dict[str, Zone]
    melee_dice: dict[str, int]
    casualties_per_hit: int
    battery_hit_level: int
    morale_pass: dict[str, int] = Field(default_factory=lambda: dict(DEFAULT_MORALE_PASS))
    default_morale_pass: int = DEFAULT_GRADE_MORALE_PASS
    """The pass mark of a grade not in ``morale_pass`` (scenario data)."""


class Unit(_Strict):
    id: str
    side: str
    type: UnitType
    grade: str
    men: int
    sections: int
    zone: str | None = None
    at: Location = "board"
    sector: int | None = None
    entered_turn: int | None = None
    engaged: bool = False


class Assault(_Strict):
    zone: str
    attacker: str
    defender: str
    units: list[str]
    turn: int
    batteries: list[str] = Field(default_factory=list)
    """Batteries named as support at the declaration (OZ.Assault.B.5)."""


class State(_Strict):
    turn: int
    phase: PhaseId
    phasing_side: str
    units: list[Unit]
    assaults: list[Assault] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    fired_secondary: list[str] = Field(default_factory=list)
    """Batteries that fired in this player turn's Secondary Fire Phase (OZ.Assault.B.5)."""
    morale_due: dict[str, str] = Field(default_factory=dict)
    """Unit -> why it must test morale (OZ.Morale): ``melee`` or ``artillery``."""
    melees: dict[str, str] = Field(default_factory=dict)
    """Zone -> the attacking side of an engaged melee still going on there (D.4)."""


# -- actions ------------------------------------------------------------------------------


class EnterZone(_Strict):
    """Move a unit from the table into a zone (OZ.Display, OZ.Capacity, OZ.Basic.D/F)."""

    kind: Literal["enter"] = "enter"
    unit: str
    zone: str
    sector: int | None = Field(default=None, ge=1, le=12)


class ExitZone(_Strict):
    """Take a unit out of its zone onto the table (OZ.Trafficability)."""

    kind: Literal["exit"] = "exit"
    unit: str
    by_road: bool = False


class Transfer(_Strict):
    """Move a garrison unit to another sector (OZ.Basic.C); ``to_sector`` null = In-Transit."""

    kind: Literal["transfer"] = "transfer"
    unit: str
    zone: str
    to_sector: int | None = Field(ge=1, le=12)


class Musketry(_Strict):
    """Small-arms fire by one unit at another (OZ.Basic.A)."""

    kind: Literal["musketry"] = "musketry"
    unit: str
    target: str


class Charge(_Strict):
    """A charge by one unit at an enemy unit, as far as the zone rules judge it: the
    defender of a zone under assault may not counter-charge its attackers (OZ.Assault.A); a
    charge out of a zone leaves it (OZ.Trafficability); the charge itself is the main rules'."""

    kind: Literal["charge"] = "charge"
    unit: str
    target: str
    by_road: bool = Field(default=False, description="Out of a zone: leaving by its road.")


class GarrisonFire(_Strict):
    """A garrison battery fires out of its zone (OZ.Basic.E)."""

    kind: Literal["garrison_fire"] = "garrison_fire"
    unit: str


class Bombard(_Strict):
    """Artillery outside a zone fires at it (OZ.Basic.G). ``dice``: dice the normal fire
    rules give; ``normal_to_hit``: the highest hitting reading in the open (Class A)."""

    kind: Literal["bombard"] = "bombard"
    unit: str
    zone: str
    dice: int = Field(ge=1, le=30)
    normal_to_hit: int = Field(default=1, ge=0, le=9)


class DeclareAssault(_Strict):
    """Name the units assaulting a zone (OZ.Assault.A)."""

    kind: Literal["declare_assault"] = "declare_assault"
    zone: str
    units: list[str] = Field(min_length=1, max_length=32)
    batteries: list[str] = Field(
        default_factory=list, max_length=12, description="Batteries named as support."
    )


class Withdraw(_Strict):
    """Pull an engaged unit out of its zone at one casting of attrition (OZ.PostMelee.D.4)."""

    kind: Literal["withdraw"] = "withdraw"
    unit: str


class Unlimber(_Strict):
    """An In-Transit battery of an assaulted zone unlimbers into the garrison (OZ.Basic.F)."""

    kind: Literal["unlimber"] = "unlimber"
    unit: str


class MoraleTest(_Strict):
    """A unit due a morale test rolls it (OZ.Morale; one d10)."""

    kind: Literal["morale_test"] = "morale_test"
    unit: str


class ContinueMelee(_Strict):
    """An engaged melee in a zone is fought again (OZ.PostMelee.D.4)."""

    kind: Literal["continue_melee"] = "continue_melee"
    zone: str


Action = (
    EnterZone
    | ExitZone
    | Transfer
    | Musketry
    | GarrisonFire
    | Bombard
    | DeclareAssault
    | Charge
    | Withdraw
    | Unlimber
    | MoraleTest
    | ContinueMelee
)
"""Every objective-zones action (discriminated by ``kind``)."""


# -- outcomes: what a legal ruling hands its apply (app.rules.dispatch) -------------------------


class Placement(Outcome):
    """Where an entering or transferring unit stands afterwards (OZ.Display)."""

    at: Location
    sector: int | None = None


class BombardOutcome(Outcome):
    """Castings each unit of the bombarded zone lost (OZ.Basic.G)."""

    losses: dict[str, int] = Field(default_factory=dict)


class DeclareOutcome(Outcome):
    """The side defending the assaulted zone (OZ.Assault.A)."""

    defender: str


class SectorOutcome(Outcome):
    """One sector of a resolved assault: who defended it and its result (OZ.PostMelee.D)."""

    defenders: list[str] = Field(default_factory=list)
    result: str


class AssaultOutcome(Outcome):
    """What a resolved assault or melee round changes (OZ.Assault.C, OZ.PostMelee.D): where
    units now stand, casualties, units removed or left engaged, each sector's result."""

    called_off: bool = False
    placements: dict[str, int] = Field(default_factory=dict)
    losses: dict[str, int] = Field(default_factory=dict)
    removed: list[str] = Field(default_factory=list)
    engaged: list[str] = Field(default_factory=list)
    sectors: dict[str, SectorOutcome] = Field(default_factory=dict)


# -- the sealed order -------------------------------------------------------------------------


class Allocation(_Strict):
    """One side's secret troop allocation for an assaulted zone (OZ.Assault.B).

    ``sectors`` maps a combat sector number ("1", "2", ...) to the units (and batteries)
    committed there. The per-decision model (:func:`app.rules.objective_zones.combat.
    allocation_model`) is validated against the current game when a validation context
    ``{"board", "state", "side", "options"}`` is given (the service passes one on
    submission); without it, and on this base model, only the structure is checked.
    """

    zone_id: ClassVar[str | None] = None
    """The assaulted zone this order model belongs to (set on the per-decision subclass)."""

    sectors: dict[int, list[str]] = Field(max_length=12)

    @classmethod
    def zone_game(cls, context: dict[str, Any]) -> tuple[Board, State, str, Options] | None:
        """The zone game an order is judged in, read from the validation context (None
        outside one: then only the order's shape is checked). A ruleset that plays the zone
        rules inside a larger game overrides this to hand over its zone part."""
        board, state, side = context.get("board"), context.get("state"), context.get("side")
        if not (isinstance(board, Board) and isinstance(state, State) and isinstance(side, str)):
            return None
        options = context.get("options")
        return board, state, side, options if isinstance(options, Options) else Options()


# -- query params -----------------------------------------------------------------------------


class ZoneParams(_Strict):
    zone: str


class AllocationOptionsParams(_Strict):
    zone: str
    side: str
