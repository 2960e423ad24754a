"""Declaring an assault on an objective zone (OZ.Assault.A, OZ.Assault.B.4-5): who may
charge, which batteries support it, and the sealed allocation it opens."""

from __future__ import annotations

from app.rules.judgement import Problem
from app.rules.objective_zones.checks import (
    capacity_cites,
    castings_problem,
    phase_problem,
    unit_of,
    zone_of,
)
from app.rules.objective_zones.combat import decision_id
from app.rules.objective_zones.models import (
    Assault,
    Board,
    DeclareAssault,
    DeclareOutcome,
    State,
    Unit,
)
from app.rules.objective_zones.support import support_problems
from app.rules.objective_zones.zones import Ctx, in_zone, other_side, pending_assault
from app.rules.ruling import Ruling


def judge_declare(ctx: Ctx, a: DeclareAssault) -> Ruling:
    # a model's field read costs more than a local's: each read once (the zone's id above all)
    zone = zone_of(ctx, a.zone)
    if isinstance(zone, Problem):
        return ctx.refuse(zone)
    names = a.units
    units: list[Unit] = []
    for uid in names:
        unit = unit_of(ctx, uid)
        if isinstance(unit, Problem):
            return ctx.refuse(unit)
        units.append(unit)
    if (p := phase_problem(ctx, a)) is not None:
        return ctx.refuse(p)
    state = ctx.state
    side = units[0].side
    if len({u.side for u in units}) > 1 or len(set(names)) != len(names):
        return ctx.refuse(
            Problem(
                "oz.mixed_units", "An assault names distinct units of one side.", ["OZ.Assault.A"]
            )
        )
    if side != state.phasing_side:
        return ctx.refuse(
            Problem(
                "oz.not_phasing",
                f"Only the phasing side "
                f"({state.phasing_side}) declares charges; the defender "
                "may not counter-charge.",
                ["OZ.Assault.A", "OZ.Sequence"],
            )
        )
    zid = zone.id
    for u in units:
        # OZ.Assault.A, OZ.Assault.C: a unit with no castings left is destroyed (a guard)
        if (p := castings_problem(u, "OZ.Assault.A")) is not None:
            return ctx.refuse(p)
        if (at := u.zone) not in (None, zid) or (at is not None and u.engaged):
            return ctx.refuse(
                Problem(
                    "oz.not_available",
                    f"{u.id} is committed in {at}.",
                    ["OZ.Assault.A", "OZ.Basic.C"],
                    unit=u.id,
                )
            )
        if u.type == "artillery":
            return ctx.refuse(
                Problem(
                    "oz.battery_declared",
                    f"{u.id} is a battery: guns support a sector, they do not assault.",
                    ["OZ.Assault.B.5"],
                    unit=u.id,
                )
            )
    batteries = a.batteries
    if bad := support_problems(ctx, side, batteries):
        return ctx.refuse(*bad)
    if "infantry" not in {u.type for u in units}:
        return ctx.refuse(
            Problem("oz.no_infantry", "An assault needs infantry.", ["OZ.Assault.B.4"])
        )
    defenders = [u for u in in_zone(state, zid) if u.side != side]
    if not defenders:
        return ctx.refuse(
            Problem(
                "oz.no_defender",
                f"{zid} holds no enemy: enter it by movement.",
                ["OZ.Assault.A", "OZ.Display"],
            )
        )
    if pending_assault(state, zid) is not None:
        return ctx.refuse(
            Problem(
                "oz.already_assaulted",
                f"{zid} is already assaulted this turn.",
                ["OZ.Assault.A"],
            )
        )
    decision = decision_id(zid, state.turn)
    sector_cites = capacity_cites(ctx, zone)
    ctx.effect(
        "oz.assault_declared",
        f"{side} assaults {zid}",
        ["OZ.Assault.A"],
        by=names,
        details={"zone": zid},
    )
    ctx.effect("oz.contested", f"{zid} is contested", ["OZ.Basic.B"], details={"zone": zid})
    ctx.effect(
        "oz.allocation_pending",
        f"sealed decision {decision}",
        ["OZ.Assault.B.1", *sector_cites],
        details={"decision": decision, "sectors": zone.capacity},
    )
    if batteries:
        ctx.rely("oz.support-secondary")
        ctx.effect(
            "oz.support_named",
            "named batteries support the assault; no Secondary Fire for them this turn",
            ["OZ.Assault.B.5"],
            by=batteries,
        )
    flee = [u.id for u in defenders if u.type == "artillery" and u.at == "transit"]
    if flee:
        ctx.effect(
            "oz.batteries_must_flee",
            "limbered guns In-Transit must leave or unlimber",
            ["OZ.Basic.F"],
            by=flee,
        )
    return ctx.finish(
        f"{side} declares an assault on {zid}.",
        {"zone": zid, "decision": decision, "defender": other_side(ctx.board, side)},
    )


def apply_declare(board: Board, state: State, a: DeclareAssault, out: DeclareOutcome) -> State:
    """The assault is on the books until the Objective Combat phase resolves it."""
    new = state.model_copy(deep=True)
    side = next(u.side for u in new.units if u.id == a.units[0])
    assault = Assault(
        zone=a.zone,
        attacker=side,
        defender=out.defender,
        units=list(a.units),
        turn=state.turn,
        batteries=list(a.batteries),
    )
    new.assaults = [*new.assaults, assault]
    return new
