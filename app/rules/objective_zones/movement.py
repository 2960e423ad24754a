"""Movement into, inside and out of objective zones (OZ.Display, OZ.Basic.C,
OZ.Trafficability, OZ.PostMelee.D.4): enter, exit, transfer between sectors, withdraw."""

from __future__ import annotations

from app.rules.dispatch import NoOutcome
from app.rules.judgement import Problem
from app.rules.objective_zones.checks import (
    capacity_cites,
    castings_problem,
    unit_and_zone,
    unit_of,
)
from app.rules.objective_zones.models import (
    Board,
    EnterZone,
    ExitZone,
    Placement,
    State,
    Transfer,
    Unit,
    Withdraw,
    Zone,
)
from app.rules.objective_zones.support import must_flee
from app.rules.objective_zones.zones import (
    Ctx,
    battalions,
    contested,
    garrison,
    gun_load,
    sector_status,
)
from app.rules.ruling import Ruling


def judge_enter(ctx: Ctx, a: EnterZone) -> Ruling:
    found = unit_and_zone(ctx, a)
    if isinstance(found, Problem):
        return ctx.refuse(found)
    unit, zone = found
    if unit.zone is not None:
        return ctx.refuse(
            Problem(
                "oz.already_in_zone",
                f"{unit.id} is already in zone {unit.zone}; it must leave it first.",
                ["OZ.Display", "OZ.Basic.C"],
                unit=unit.id,
            )
        )
    enemy = [u.id for u in garrison(ctx.state, zone.id) if u.side != unit.side]
    if enemy and unit.type == "artillery":
        return ctx.refuse(
            Problem(
                "oz.battery_contested",
                f"{unit.id} cannot enter {zone.id}: batteries never enter a contested zone.",
                ["OZ.Basic.F", "OZ.Basic.B"],
                unit=unit.id,
            )
        )
    if enemy:
        return ctx.refuse(
            Problem(
                "oz.enemy_held",
                f"{zone.id} is held by the enemy ({', '.join(enemy)}): take it by an assault.",
                ["OZ.Assault.A"],
                unit=unit.id,
            )
        )
    is_contested, why = contested(ctx.state, zone)
    if unit.type == "artillery" and is_contested:
        return ctx.refuse(
            Problem(
                "oz.battery_contested",
                f"{unit.id} cannot enter {zone.id}: it is contested ({why}).",
                ["OZ.Basic.F", "OZ.Basic.B"],
                unit=unit.id,
            )
        )
    exit_turn = ctx.state.turn + zone.trafficability
    details: dict[str, object] = {"zone": zone.id, "earliest_exit": exit_turn}
    on_table = zone.zone_class == "A"
    if on_table:
        ctx.cite("OZ.Class")
    if unit.type == "artillery":
        if zone.zone_class != "F":
            ctx.rely("oz.gun-stand")
        load = gun_load(ctx.state, zone, ctx.options, extra=unit)
        if load <= zone.gun_limit:
            at, kind, summary = "garrison", "oz.garrisoned", f"{unit.id} unlimbers in {zone.id}"
        else:
            at, kind = "transit", "oz.limbered_in_transit"
            summary = f"{unit.id} stays limbered In-Transit: the gun limit is reached"
        details.update(at=at, sector=None)
        ctx.effect(
            kind,
            summary,
            ["OZ.Basic.D", "OZ.Display"],
            unit=unit.id,
            details={
                "zone": zone.id,
                "guns": load,
                "limit": zone.gun_limit,
                "on_table": on_table,
            },
        )
    else:
        sections = capacity_cites(ctx, zone)
        held = {u.sector for u in battalions(garrison(ctx.state, zone.id, unit.side))}
        free = [n for n in range(1, zone.capacity + 1) if n not in held]
        if a.sector is not None and a.sector > zone.capacity:
            return ctx.refuse(
                Problem(
                    "oz.bad_sector",
                    f"{zone.id} has sectors 1-{zone.capacity}.",
                    sections,
                    unit=unit.id,
                )
            )
        if a.sector is not None and a.sector not in free and free:
            return ctx.refuse(
                Problem(
                    "oz.sector_full",
                    f"Sector {a.sector} of {zone.id} already holds a battalion.",
                    sections,
                    unit=unit.id,
                )
            )
        if free:
            sector = a.sector if a.sector is not None else free[0]
            details.update(at="garrison", sector=sector)
            ctx.effect(
                "oz.garrisoned",
                f"{unit.id} garrisons sector {sector}",
                [*sections, "OZ.Display"],
                unit=unit.id,
                details={"zone": zone.id, "sector": sector, "on_table": on_table},
            )
        else:
            details.update(at="transit", sector=None)
            ctx.effect(
                "oz.in_transit",
                f"{zone.id} is full: {unit.id} stands In-Transit, without cover",
                [*sections, "OZ.Display"],
                unit=unit.id,
                details={"zone": zone.id, "on_table": on_table},
            )
    ctx.effect(
        "oz.earliest_exit",
        f"{unit.id} may leave from turn {exit_turn}",
        ["OZ.Trafficability"],
        unit=unit.id,
        details={"turn": exit_turn},
    )
    return ctx.finish(f"{unit.id} enters {zone.id}.", details)


def exit_problem(ctx: Ctx, unit: Unit, zone: Zone, by_road: bool) -> Problem | None:
    """What stops ``unit`` leaving ``zone`` now, by a move or as part of a charge: engaged
    (OZ.PostMelee.D.4), before its earliest exit (OZ.Trafficability; a fleeing battery
    excepted, OZ.Basic.F), or mounted troops and guns off the road; None (citing
    OZ.Trafficability) when it may leave."""
    if unit.engaged:
        return Problem(
            "oz.engaged",
            f"{unit.id} is engaged: it can only withdraw.",
            ["OZ.PostMelee.D.4"],
            unit=unit.id,
        )
    earliest = (unit.entered_turn or 0) + zone.trafficability
    fleeing = must_flee(ctx.state, unit)
    if fleeing:
        ctx.rely("oz.flee-trafficability")
        ctx.cite("OZ.Basic.F")
    if ctx.state.turn < earliest and not fleeing:
        return Problem(
            "oz.trafficability",
            f"{unit.id} entered {zone.id} on turn "
            f"{unit.entered_turn}; it may leave from turn {earliest}.",
            ["OZ.Trafficability"],
            unit=unit.id,
            details={"earliest_exit": earliest},
        )
    if unit.type in ("cavalry", "artillery") and zone.road and not by_road:
        return Problem(
            "oz.must_use_road",
            f"{unit.id} is {unit.type}: it leaves {zone.id} by its road.",
            ["OZ.Trafficability"],
            unit=unit.id,
        )
    ctx.cite("OZ.Trafficability")
    return None


def judge_exit(ctx: Ctx, a: ExitZone) -> Ruling:
    unit = unit_of(ctx, a.unit)
    if isinstance(unit, Problem):
        return ctx.refuse(unit)
    if unit.zone is None:
        return ctx.refuse(
            Problem("oz.not_in_zone", f"{unit.id} is in no zone.", ["OZ.Display"], unit=unit.id)
        )
    zone = ctx.board.zones[unit.zone]
    if (p := exit_problem(ctx, unit, zone, a.by_road)) is not None:
        return ctx.refuse(p)
    ctx.effect(
        "oz.exited",
        f"{unit.id} is back on the table",
        ["OZ.Display"],
        unit=unit.id,
        details={"zone": zone.id, "by_road": a.by_road},
    )
    return ctx.finish(f"{unit.id} leaves {zone.id}.", {"zone": zone.id})


def _f_path_problem(ctx: Ctx, zone: Zone, unit: Unit, start: int | None, to: int) -> Problem | None:
    if zone.zone_class != "F":
        return None
    ctx.rely("oz.class-f-transfer")
    if ctx.options.class_f_adjacent_only:
        if start is not None and abs(start - to) != 1:
            return Problem(
                "oz.f_not_adjacent",
                f"Class F sectors are in a line: {unit.id} "
                f"moves from {start} only to a neighbouring sector.",
                ["OZ.Basic.C"],
                unit=unit.id,
            )
        return None
    is_contested, _ = contested(ctx.state, zone)
    if not is_contested or start is None:
        return None
    status = sector_status(ctx.state, zone)
    step = 1 if to > start else -1
    for n in range(start + step, to + step, step):
        if status.get(n) not in (None, unit.side):
            return Problem(
                "oz.f_blocked",
                f"{zone.id} is contested: {unit.id} cannot pass sector {n} ({status.get(n)}).",
                ["OZ.Basic.C", "OZ.Basic.B"],
                unit=unit.id,
                details={"sector": n},
            )
    return None


def judge_transfer(ctx: Ctx, a: Transfer) -> Ruling:
    found = unit_and_zone(ctx, a)
    if isinstance(found, Problem):
        return ctx.refuse(found)
    unit, zone = found
    if unit.zone is None:
        return ctx.refuse(
            Problem("oz.not_in_zone", f"{unit.id} is in no zone.", ["OZ.Display"], unit=unit.id)
        )
    if unit.zone != zone.id:
        return ctx.refuse(
            Problem(
                "oz.via_transit",
                f"{unit.id} is in {unit.zone}: it reaches "
                f"{zone.id}'s sectors only by going In-Transit first.",
                ["OZ.Basic.C"],
                unit=unit.id,
            )
        )
    if unit.engaged:
        sections = ["OZ.PostMelee.D.4", *(["A.36"] if zone.fort else [])]
        return ctx.refuse(Problem("oz.engaged", f"{unit.id} is engaged.", sections, unit=unit.id))
    if unit.type == "artillery":
        return ctx.refuse(
            Problem(
                "oz.guns_hold_no_sector",
                f"{unit.id} is a battery: guns support the zone, they hold no sector.",
                ["OZ.Basic.D"],
                unit=unit.id,
            )
        )
    if a.to_sector is None:
        ctx.effect(
            "oz.in_transit",
            f"{unit.id} is In-Transit",
            ["OZ.Basic.C", "OZ.Display"],
            unit=unit.id,
            details={"zone": zone.id},
        )
        return ctx.finish(
            f"{unit.id} goes In-Transit.", {"zone": zone.id, "at": "transit", "sector": None}
        )
    if a.to_sector > zone.capacity:
        return ctx.refuse(
            Problem(
                "oz.bad_sector",
                f"{zone.id} has sectors 1-{zone.capacity}.",
                ["OZ.Display"],
                unit=unit.id,
            )
        )
    start = unit.sector if unit.at == "garrison" else None
    if a.to_sector == start:
        return ctx.refuse(
            Problem(
                "oz.same_sector",
                f"{unit.id} is already in sector {start}.",
                ["OZ.Basic.C"],
                unit=unit.id,
            )
        )
    held = {u.sector for u in battalions(garrison(ctx.state, zone.id)) if u.id != unit.id}
    if a.to_sector in held:
        return ctx.refuse(
            Problem(
                "oz.sector_full",
                f"Sector {a.to_sector} already holds a battalion.",
                [*capacity_cites(ctx, zone)],
                unit=unit.id,
            )
        )
    if (p := _f_path_problem(ctx, zone, unit, start, a.to_sector)) is not None:
        return ctx.refuse(p)
    ctx.effect(
        "oz.transferred",
        f"{unit.id} to sector {a.to_sector}",
        ["OZ.Basic.C"],
        unit=unit.id,
        details={"zone": zone.id, "from": start, "to": a.to_sector},
    )
    return ctx.finish(
        f"{unit.id} moves to sector {a.to_sector} of {zone.id}.",
        {"zone": zone.id, "at": "garrison", "sector": a.to_sector},
    )


def judge_withdraw(ctx: Ctx, a: Withdraw) -> Ruling:
    unit = unit_of(ctx, a.unit)
    if isinstance(unit, Problem):
        return ctx.refuse(unit)
    if not unit.engaged or unit.zone is None:
        return ctx.refuse(
            Problem(
                "oz.not_engaged",
                f"{unit.id} is not engaged in a zone.",
                ["OZ.PostMelee.D.4"],
                unit=unit.id,
            )
        )
    # OZ.PostMelee.D.4: a unit with no casting left cannot pay the attrition (a guard)
    if (p := castings_problem(unit, "OZ.PostMelee.D.4")) is not None:
        return ctx.refuse(p)
    last = unit.men == 1
    if last:
        ctx.rely("oz.withdraw-last-casting")
    # OZ.PostMelee.D.4 (oz.withdraw-last-casting, option refused): no casting to spare
    if last and ctx.options.withdraw_last_casting == "refused":
        return ctx.refuse(
            Problem(
                "oz.withdraw_last_casting",
                f"{unit.id} has one casting left: it cannot pay a casting of attrition and "
                "still withdraw, so it stays engaged.",
                ["OZ.PostMelee.D.4"],
                unit=unit.id,
                details={"men": unit.men},
            )
        )
    ctx.effect(
        "oz.withdrawn",
        f"{unit.id} leaves {unit.zone}",
        ["OZ.PostMelee.D.4"],
        unit=unit.id,
        details={"zone": unit.zone, "attrition": 1},
    )
    if last:  # oz.withdraw-last-casting: paying its last casting destroys it
        ctx.effect(
            "oz.destroyed", f"{unit.id} has no castings left", ["OZ.PostMelee.D.4"], unit=unit.id
        )
        return ctx.finish(
            f"{unit.id} withdraws from {unit.zone} at its last casting: it is destroyed.",
            {"zone": unit.zone, "attrition": 1},
        )
    return ctx.finish(
        f"{unit.id} withdraws from {unit.zone} at one casting of attrition.",
        {"zone": unit.zone, "attrition": 1},
    )


# -- application ------------------------------------------------------------------------------


def apply_enter(board: Board, state: State, a: EnterZone, out: Placement) -> State:
    new = state.model_copy(deep=True)
    u = next(u for u in new.units if u.id == a.unit)
    u.zone, u.at, u.sector, u.entered_turn = a.zone, out.at, out.sector, state.turn
    return new


def apply_exit(board: Board, state: State, a: ExitZone, out: NoOutcome) -> State:
    new = state.model_copy(deep=True)
    u = next(u for u in new.units if u.id == a.unit)
    u.zone, u.at, u.sector, u.entered_turn = None, "board", None, None
    return new


def apply_transfer(board: Board, state: State, a: Transfer, out: Placement) -> State:
    new = state.model_copy(deep=True)
    u = next(u for u in new.units if u.id == a.unit)
    u.at, u.sector = out.at, out.sector
    return new


def apply_withdraw(board: Board, state: State, a: Withdraw, out: NoOutcome) -> State:
    """One casting of attrition; the unit is back on the table, or, having paid its last
    casting, destroyed and removed (OZ.PostMelee.D.4, oz.withdraw-last-casting)."""
    new = state.model_copy(deep=True)
    u = next(u for u in new.units if u.id == a.unit)
    u.men -= 1
    if u.men <= 0:
        new.units = [x for x in new.units if x.id != u.id]
        new.removed = [*new.removed, u.id]
        new.morale_due = {k: v for k, v in new.morale_due.items() if k != u.id}
        return new
    u.zone, u.at, u.sector, u.engaged, u.entered_turn = None, "board", None, False, None
    return new
