"""Pydantic schemas of the ``zoi`` ruleset: scenario, board, state, options and actions."""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from app.rules.dispatch import Outcome
from app.rules.geometry.layout_spec import LayoutSpec

Phase = Literal[
    "charges", "movement", "defensive_fire", "offensive_fire", "melee", "morale_recovery"
]
UnitType = Literal["infantry", "cavalry", "artillery", "leader"]

FORMATION_ALIASES = {"square": "carre", "skirmishers": "skirmish", "skirmish_order": "skirmish"}


@lru_cache(maxsize=256)
def normalize_formation(value: str) -> str:
    """Formation names as players write them: case, accents, spaces and hyphens do not matter
    (``Carré``, ``general order``, ``road-march`` are ``carre``, ``general_order``,
    ``road_march``); ``square`` means carré. Kept for the last names asked (a state's units
    use a handful: parsing a state asks once per unit)."""
    plain = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    key = "_".join(plain.strip().lower().replace("-", " ").split())
    return FORMATION_ALIASES.get(key, key)


FormationName = Annotated[str, AfterValidator(normalize_formation)]
Facing = Annotated[int, Field(ge=0, le=5)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- tables -------------------------------------------------------------------------------


class FrontSpec(_Model):
    """One row of the facing table: what the facing number denotes and the front size.

    ``hexside``: the unit faces hexside ``facing`` and its front is an odd number of hexsides
    centred on it. ``vertex``: it faces vertex ``facing`` (between hexsides ``facing`` and
    ``facing + 1``) and its front is an even number of hexsides centred on that vertex.
    ``all``: every hexside is front (no facing needed). ``none``: no front at all.
    """

    faces: Literal["hexside", "vertex", "all", "none"]
    front: int = Field(ge=0, le=6)

    @model_validator(mode="after")
    def _consistent(self) -> FrontSpec:
        if self.faces == "hexside" and self.front not in (1, 3, 5):
            raise ValueError("a hexside facing needs an odd front (1, 3 or 5 hexsides)")
        if self.faces == "vertex" and self.front not in (2, 4):
            raise ValueError("a vertex facing needs an even front (2 or 4 hexsides)")
        if self.faces == "all" and self.front != 6:
            raise ValueError("faces 'all' means a front of 6 hexsides")
        if self.faces == "none" and self.front != 0:
            raise ValueError("faces 'none' means a front of 0 hexsides")
        return self


class ChangeCosts(_Model):
    """Movement points for in-place changes of one unit class."""

    face: int = Field(ge=0)
    formation: int = Field(ge=0)
    limber: int = Field(default=0, ge=0)
    unlimber: int = Field(default=0, ge=0)


class MeleeEntry(_Model):
    """One row of the melee result matrix (``*`` matches any type or condition)."""

    type: str = "*"
    condition: str = "*"
    result: str
    retreat: int = Field(ge=0)
    loss: int = Field(default=0, ge=0)


class MapSpec(_Model):
    """A rectangular map: inclusive column and row ranges, a default terrain, overrides."""

    layout: LayoutSpec = Field(default_factory=LayoutSpec)
    prefix: str = ""
    columns: tuple[int, int]
    rows: tuple[int, int]
    default_terrain: str = "clear"
    terrain: dict[str, str] = Field(default_factory=dict)


class SideSpec(_Model):
    id: str = Field(min_length=1)
    label: str = ""


# -- units and state ----------------------------------------------------------------------


class Unit(_Model):
    """A unit on the map. Artillery keeps ``limbered``/``unlimbered`` in ``formation``.

    ``facing`` is 0..5: a hexside direction or a vertex number, as the unit's facing-table row
    says; ``None`` for leaders and for formations that face all round (carré).
    """

    id: str = Field(min_length=1)
    side: str
    type: UnitType
    subtype: str | None = None
    name: str = ""
    hex: str
    increments: int = Field(default=1, ge=0)
    ma: int = Field(ge=0, description="Movement allowance in movement points.")
    formation: FormationName | None = None
    facing: Facing | None = None


class ZoiScenario(_Model):
    """A scenario document: map, tables (optional, merged over the defaults), units."""

    ruleset: Literal["zoi"] | None = None
    name: str = ""
    description: str = ""
    map: MapSpec
    sides: list[SideSpec] = Field(min_length=2)
    front_table: dict[str, FrontSpec | None] = Field(default_factory=dict)
    change_costs: dict[str, ChangeCosts] = Field(default_factory=dict)
    terrain_costs: dict[str, dict[str, int | None]] = Field(default_factory=dict)
    melee_matrix: list[MeleeEntry] | None = None
    units: list[Unit]
    turn: int = Field(default=1, ge=1)
    phase: Phase = "movement"
    phasing: str | None = None


class ZoiBoard(_Model):
    """The immutable part of a game: geometry, terrain and every table in force."""

    name: str = ""
    layout: LayoutSpec
    hexes: dict[str, str] = Field(description="Hex id -> terrain.")
    sides: list[SideSpec]
    front_table: dict[str, FrontSpec]
    change_costs: dict[str, ChangeCosts]
    terrain_costs: dict[str, dict[str, int | None]]
    melee_matrix: list[MeleeEntry]


class ZoiState(_Model):
    """The mutable part of a game."""

    turn: int = 1
    phase: Phase = "movement"
    phasing: str
    units: list[Unit]
    moved: list[str] = Field(
        default_factory=list, description="Units that have moved this movement phase."
    )
    phase_start: dict[str, str] = Field(
        default_factory=dict,
        description="Unit -> hex it held when the current movement phase began.",
    )
    eliminated: list[str] = Field(default_factory=list)


# -- options ------------------------------------------------------------------------------


class ZoiOptions(_Model):
    """Per-game options; each selects the reading of one interpretation (see the catalog)."""

    entering_counts_as_expenditure: bool = False
    routed_units_exert_zone: bool = True
    mixed_zone_stops_cavalry: Literal["any_cavalry", "cavalry_only"] = "any_cavalry"
    exit_cost_counts_in_departed_hex: bool = False
    exit_after_changes_in_place: bool = True
    shift_within_zone: Literal["stop", "slide", "slide_no_exit"] = "stop"
    horse_artillery_unlimber_when_stopped: bool = True
    changes_after_stop: bool = False
    carre_adjacent_in_defensive_fire: bool = True
    carre_fire_only_after_moving_adjacent: bool = False
    retreat_loss_hexes: Literal["exited", "entered"] = "exited"


# -- actions ------------------------------------------------------------------------------


class EnterStep(_Model):
    """Move into an adjacent hex, paying its terrain cost."""

    do: Literal["enter"]
    hex: str


class FaceStep(_Model):
    """Turn in place to a new facing (hexside or vertex number)."""

    do: Literal["face"]
    facing: Facing


class FormationStep(_Model):
    """Change formation in place; ``facing`` optionally sets the new facing at once."""

    do: Literal["formation"]
    formation: FormationName
    facing: Facing | None = None


class UnlimberStep(_Model):
    do: Literal["unlimber"]


class LimberStep(_Model):
    do: Literal["limber"]


Step = Annotated[
    EnterStep | FaceStep | FormationStep | UnlimberStep | LimberStep,
    Field(discriminator="do"),
]


class MoveAction(_Model):
    """Move one unit: its steps are walked in order and each pays its cost.

    ``path`` is a shorthand for a move made only of hexes entered: ``path: ["0507", "0506"]``
    is the same as ``steps: [{do: enter, hex: "0507"}, {do: enter, hex: "0506"}]``. Give
    ``steps`` or ``path``, not both.
    """

    kind: Literal["move"]
    unit: str
    steps: list[Step] = Field(default_factory=list)
    path: list[str] | None = None

    @model_validator(mode="after")
    def _path_to_steps(self) -> MoveAction:
        if self.path is not None:
            if self.steps:
                raise ValueError("give either 'steps' or 'path', not both")
            self.steps = [EnterStep(do="enter", hex=h) for h in self.path]
            self.path = None  # normalised: a dump re-validates as a plain list of steps
        if not self.steps:
            raise ValueError("a move needs at least one step (or a non-empty 'path')")
        return self


class MeleeRetreatAction(_Model):
    """Retreat a unit driven out by melee along ``path`` (first hex adjacent to its hex).

    ``result`` (and ``condition``) index the scenario's melee matrix, which fixes the retreat
    length and the increments lost to the result itself.
    """

    kind: Literal["melee_retreat"]
    unit: str
    path: list[str] = Field(min_length=1)
    result: str | None = None
    condition: str | None = None


class SetPhaseAction(_Model):
    """Umpire: set the phase (and optionally the phasing side and the turn)."""

    kind: Literal["set_phase"]
    phase: Phase
    phasing: str | None = None
    turn: int | None = Field(default=None, ge=1)


ZoiAction = MoveAction | MeleeRetreatAction | SetPhaseAction


# -- what apply needs of a legal ruling ---------------------------------------------------------


class Place(BaseModel):
    """Where and how a unit stands after a move."""

    model_config = ConfigDict(frozen=True)

    hex: str
    facing: int | None = None
    formation: str | None = None


class MoveOutcome(Outcome):
    """A legal move's end: hex, facing and formation (the walk decides them)."""

    final: Place


class MeleeRetreatOutcome(Outcome):
    """A legal melee retreat's end: the hex reached and the increments left (0: eliminated)."""

    final_hex: str
    increments_after: int


Action = MoveAction | MeleeRetreatAction | SetPhaseAction
"""Every action of the ``zoi`` ruleset."""
