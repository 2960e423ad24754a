"""The first checks every objective-zones action shares: the unit and the zone it names
exist (OZ.Scenario, OZ.Display), it is the action's phase (OZ.Sequence), and the capacity
reading a sector check rests on."""

from __future__ import annotations

from app.rules.judgement import Problem
from app.rules.objective_zones.models import (
    Bombard,
    Charge,
    DeclareAssault,
    EnterZone,
    ExitZone,
    GarrisonFire,
    Musketry,
    Transfer,
    Unit,
    Withdraw,
    Zone,
)
from app.rules.objective_zones.zones import Ctx, rely_capacity, unit_named

PHASE_OF: dict[type, tuple[str, ...]] = {
    EnterZone: ("movement",),
    ExitZone: ("movement",),
    Transfer: ("movement",),
    Withdraw: ("movement",),
    Musketry: ("initial_fire", "secondary_fire"),
    GarrisonFire: ("initial_fire", "secondary_fire"),
    Bombard: ("initial_fire", "secondary_fire"),
    DeclareAssault: ("charge_declaration",),
    Charge: ("charge_declaration",),
}


def phase_problem(
    ctx: Ctx,
    action: EnterZone
    | ExitZone
    | Transfer
    | Withdraw
    | Musketry
    | GarrisonFire
    | Bombard
    | DeclareAssault
    | Charge,
) -> Problem | None:
    phases = PHASE_OF[type(action)]
    if ctx.state.phase in phases:
        return None
    return Problem(
        "oz.wrong_phase",
        f"A {getattr(action, 'kind', '?')} belongs to the {' or '.join(phases)} phase, not "
        f"{ctx.state.phase}.",
        ["OZ.Sequence"],
        details={"phase": ctx.state.phase, "allowed": list(phases)},
    )


def unit_of(ctx: Ctx, uid: str) -> Unit | Problem:
    unit = unit_named(ctx.state, uid)
    if unit is None:
        return Problem("oz.unknown_unit", f"There is no unit {uid!r}.", ["OZ.Scenario"], unit=uid)
    return unit


def castings_problem(unit: Unit, *sections: str) -> Problem | None:
    """A unit with no castings left is destroyed (OZ.Assault.C: it fights with the castings it
    commits; OZ.PostMelee.D.4): it takes no part in an assault. Setup refuses such a unit and
    every loss that takes the last casting removes it, so this only guards a state that
    reaches one anyway."""
    if unit.men > 0:
        return None
    return Problem(
        "oz.no_castings",
        f"{unit.id} has no castings left: it is destroyed and takes no part in an assault.",
        [*sections, "OZ.Assault.C"],
        unit=unit.id,
        details={"men": unit.men},
    )


def zone_of(ctx: Ctx, zid: str) -> Zone | Problem:
    zone = ctx.board.zones.get(zid)
    if zone is None:
        return Problem("oz.unknown_zone", f"There is no zone {zid!r}.", ["OZ.Display"])
    return zone


def capacity_cites(ctx: Ctx, zone: Zone) -> list[str]:
    rely_capacity(ctx, zone)
    return ["OZ.Class", "OZ.Capacity"]


def unit_zone_in_phase(ctx: Ctx, a: EnterZone | Transfer | Bombard) -> tuple[Unit, Zone] | Problem:
    """The unit and the zone an action names, in the action's phase; else the first problem
    (unknown unit, unknown zone, wrong phase, in that order)."""
    unit = unit_of(ctx, a.unit)
    if isinstance(unit, Problem):
        return unit
    zone = zone_of(ctx, a.zone)
    if isinstance(zone, Problem):
        return zone
    if (p := phase_problem(ctx, a)) is not None:
        return p
    return unit, zone
