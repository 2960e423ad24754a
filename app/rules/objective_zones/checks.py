"""The first checks every objective-zones action shares: the unit and the zone it names
exist (OZ.Scenario, OZ.Display) -- the ``names`` the kit checks before the phase
(``Kind.names``) -- and the capacity reading a sector check rests on."""

from __future__ import annotations

from app.rules.judgement import Problem
from app.rules.objective_zones.models import (
    Bombard,
    ContinueMelee,
    EnterZone,
    ExitZone,
    GarrisonFire,
    Transfer,
    Unit,
    Withdraw,
    Zone,
)
from app.rules.objective_zones.zones import Ctx, rely_capacity, unit_named


def problem_of(found: object) -> Problem | None:
    """The problem a look-up found, or None when it found what it looked for."""
    return found if isinstance(found, Problem) else None


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


def unit_and_zone(ctx: Ctx, a: EnterZone | Transfer | Bombard) -> tuple[Unit, Zone] | Problem:
    """The unit and the zone an action names; else the first problem (unknown unit, then
    unknown zone)."""
    unit = unit_of(ctx, a.unit)
    if isinstance(unit, Problem):
        return unit
    zone = zone_of(ctx, a.zone)
    if isinstance(zone, Problem):
        return zone
    return unit, zone


def names_unit(ctx: Ctx, a: ExitZone | Withdraw | GarrisonFire) -> Problem | None:
    """``Kind.names``: the unit the action names does not exist."""
    return problem_of(unit_of(ctx, a.unit))


def names_unit_and_zone(ctx: Ctx, a: EnterZone | Transfer | Bombard) -> Problem | None:
    """``Kind.names``: the unit or the zone the action names does not exist."""
    return problem_of(unit_and_zone(ctx, a))


def names_zone(ctx: Ctx, a: ContinueMelee) -> Problem | None:
    """``Kind.names``: the zone the action names does not exist."""
    return problem_of(zone_of(ctx, a.zone))
