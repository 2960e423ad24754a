"""The first checks every objective-zones action shares: the unit and the zone it names
exist (OZ.Scenario, OZ.Display), it is the action's phase (OZ.Sequence), and the capacity
reading a sector check rests on."""

from __future__ import annotations

from app.rules.judgement import Problem
from app.rules.objective_zones.models import Action, Bombard, EnterZone, Transfer, Unit, Zone
from app.rules.objective_zones.sequence import PHASE_RULE, PHASES
from app.rules.objective_zones.zones import Ctx, rely_capacity, unit_named
from app.rules.phases import out_of_phase


def phase_problem(ctx: Ctx, action: Action) -> Problem | None:
    """Whether the phase allows the action's kind: the one generic check of the sequence's
    declaration (:func:`~app.rules.phases.out_of_phase` of ``PhaseSpec.kinds``)."""
    return out_of_phase(PHASE_RULE, PHASES, ctx.state.phase, action.kind)


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
