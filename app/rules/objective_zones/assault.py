"""Declaring an assault on an objective zone (OZ.Assault.A, OZ.Assault.B.4-5): who may
charge, which batteries support it, and the sealed allocation it opens; and the one thing the
zone rules say of a charge at a unit: the defender may not counter-charge the attackers."""

from __future__ import annotations

from app.rules.dispatch import NoOutcome
from app.rules.judgement import Judgement, Problem
from app.rules.objective_zones.checks import (
    capacity_cites,
    castings_problem,
    problem_of,
    unit_of,
    zone_of,
)
from app.rules.objective_zones.combat import decision_id
from app.rules.objective_zones.models import (
    Assault,
    Board,
    Charge,
    DeclareAssault,
    DeclareOutcome,
    Options,
    State,
    Unit,
    Zone,
)
from app.rules.objective_zones.movement import exit_problem
from app.rules.objective_zones.support import support_problems
from app.rules.objective_zones.zones import (
    Ctx,
    in_zone,
    other_side,
    pending_assault,
)
from app.rules.ruling import Ruling


def declared(ctx: Ctx, a: DeclareAssault) -> tuple[Zone, list[Unit]] | Problem:
    """The zone and the units a declaration names; else the first that does not exist (the
    zone, then each unit in order)."""
    zone = zone_of(ctx, a.zone)
    if isinstance(zone, Problem):
        return zone
    units: list[Unit] = []
    for uid in a.units:
        unit = unit_of(ctx, uid)
        if isinstance(unit, Problem):
            return unit
        units.append(unit)
    return zone, units


def declare_names(ctx: Ctx, a: DeclareAssault) -> Problem | None:
    """``Kind.names``: the zone or a unit the declaration names does not exist."""
    return problem_of(declared(ctx, a))


def judge_declare(ctx: Ctx, a: DeclareAssault) -> Ruling:
    # a model's field read costs more than a local's: each read once (the zone's id above all)
    found = declared(ctx, a)
    if isinstance(found, Problem):
        return ctx.refuse(found)
    zone, units = found
    names = a.units
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


# -- a charge at a unit: the counter-charge ban ----------------------------------------------


def attacked_by(state: State, target: str, side: str) -> Assault | None:
    """The assault of this turn on a zone ``side`` defends that names ``target`` as one of
    its attackers, or None."""
    for a in state.assaults:
        if a.turn == state.turn and a.defender == side and target in a.units:
            return a
    return None


def counter_charge_problem(
    j: Judgement,
    options: Options,
    assault: Assault,
    charger: str,
    charger_zone: str | None,
    target: str,
) -> Problem | None:
    """OZ.Assault.A: the defender of a zone may not counter-charge the units assaulting it; it
    may move troops into or out of the zone by normal movement instead. Who counts as the
    defender is interpretation ``oz.counter-charge-scope`` (the whole side, or only the
    zone's troops). None when the reading lets the charge be (citing the clause that did)."""
    j.rely("oz.counter-charge-scope")
    zid = assault.zone
    if options.counter_charge_ban == "zone_units" and charger_zone != zid:
        j.cite("OZ.Assault.A")
        return None
    return Problem(
        "oz.counter_charge",
        f"{target} is assaulting {zid}, which {assault.defender} defends: the defender may not "
        f"counter-charge the attackers (it may move units into or out of {zid} in normal "
        "movement)",
        ["OZ.Assault.A"],
        unit=charger,
        details={"zone": zid, "target": target, "instead": ["enter", "exit"]},
    )


def charged(ctx: Ctx, a: Charge) -> tuple[Unit, Unit] | Problem:
    """The charging unit and its target; else the first problem: either does not exist, or
    the target is on the charger's own side (OZ.Assault.A)."""
    unit = unit_of(ctx, a.unit)
    if isinstance(unit, Problem):
        return unit
    target = unit_of(ctx, a.target)
    if isinstance(target, Problem):
        return target
    if target.side == unit.side:
        return Problem(
            "oz.not_enemy",
            f"{target.id} is on {unit.side}'s own side: a charge is made at the enemy.",
            ["OZ.Assault.A"],
            unit=unit.id,
            details={"target": target.id},
        )
    return unit, target


def charge_names(ctx: Ctx, a: Charge) -> Problem | None:
    """``Kind.names``: the units a charge names, at the enemy."""
    return problem_of(charged(ctx, a))


def charge_problems(ctx: Ctx, a: Charge) -> list[Problem]:
    """What forbids a charge whatever the phase (``Kind.despite_phase``, after the phase's
    refusal): a counter-charge at a zone's attackers, a charge at troops on a zone's display,
    a charge out of a zone that leaving it does not allow."""
    found = charged(ctx, a)
    assert not isinstance(found, Problem)
    unit, target = found
    problems: list[Problem] = []
    state, board = ctx.state, ctx.board
    assault = attacked_by(state, target.id, unit.side)
    if assault is not None:
        p = counter_charge_problem(ctx, ctx.options, assault, unit.id, unit.zone, target.id)
        if p is not None:
            problems.append(p)
    tzone = target.zone
    if tzone is not None and board.zones[tzone].zone_class != "A":
        problems.append(
            Problem(
                "oz.charge_at_zone",
                f"{target.id} is in {tzone}: troops in a zone are charged by declaring an "
                f"assault on {tzone}.",
                ["OZ.Assault.A", "OZ.Display"],
                unit=unit.id,
                details={"zone": tzone, "target": target.id},
            )
        )
    if unit.zone is not None:
        zone = board.zones[unit.zone]
        if (p := exit_problem(ctx, unit, zone, a.by_road)) is not None:
            problems.append(p)
    return problems


def judge_charge(ctx: Ctx, a: Charge) -> Ruling:
    """A charge by ``a.unit`` at ``a.target`` as the zone rules see it (in the Charge
    Declaration Phase, OZ.Sequence, which the kit checks before this judge): never a
    counter-charge at the attackers of a zone the unit's side defends (OZ.Assault.A); at
    troops on a zone's display only by declaring an assault on the zone (OZ.Assault.A,
    OZ.Display); out of a zone only as leaving it allows (OZ.Trafficability). Every problem
    past the two units is named; the charge itself (contact, melee) is the main rules'."""
    found = charged(ctx, a)
    if isinstance(found, Problem):
        return ctx.refuse(found)
    unit, target = found
    if problems := charge_problems(ctx, a):
        return ctx.refuse(*problems)
    ctx.cite("OZ.Sequence")
    out = f" out of {unit.zone}" if unit.zone is not None else ""
    return ctx.finish(
        f"{unit.id} charges {target.id}{out}: the zone rules do not forbid it (the charge "
        "itself is the main rules').",
        {"target": target.id},
    )


def apply_charge(board: Board, state: State, a: Charge, out: NoOutcome) -> State:
    """A charge at a unit changes nothing the zone rules keep (the main rules resolve it)."""
    return state
