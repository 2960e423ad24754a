"""Adjudication and application of the ``objective-zones`` actions, one function per action,
each check an early return tagged with its section."""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.objective_zones.combat import DIE, decision_id
from app.rules.objective_zones.common import (
    Ctx,
    Problem,
    battalions,
    contested,
    garrison,
    gun_load,
    in_zone,
    pending_assault,
    rely_capacity,
    sector_status,
)
from app.rules.objective_zones.models import (
    Bombard,
    DeclareAssault,
    EnterZone,
    ExitZone,
    GarrisonFire,
    MoraleTest,
    Musketry,
    State,
    Transfer,
    Unit,
    Unlimber,
    Withdraw,
    Zone,
)
from app.rules.objective_zones.support import (
    must_flee,
    secondary_fire_ban,
    support_problems,
)
from app.rules.ruling import Effect, Ruling

PHASE_OF: dict[type, tuple[str, ...]] = {
    EnterZone: ("movement",),
    ExitZone: ("movement",),
    Transfer: ("movement",),
    Withdraw: ("movement",),
    Musketry: ("initial_fire", "secondary_fire"),
    GarrisonFire: ("initial_fire", "secondary_fire"),
    Bombard: ("initial_fire", "secondary_fire"),
    DeclareAssault: ("charge_declaration",),
}


def _phase_problem(ctx: Ctx, action: object) -> Problem | None:
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


def _unit(ctx: Ctx, uid: str) -> Unit | Problem:
    unit = ctx.units.get(uid)
    if unit is None:
        return Problem("oz.unknown_unit", f"There is no unit {uid!r}.", ["OZ.Scenario"], unit=uid)
    return unit


def _zone(ctx: Ctx, zid: str) -> Zone | Problem:
    zone = ctx.zone(zid)
    if zone is None:
        return Problem("oz.unknown_zone", f"There is no zone {zid!r}.", ["OZ.Display"])
    return zone


def _capacity_cites(ctx: Ctx, zone: Zone) -> list[str]:
    rely_capacity(ctx, zone)
    return ["OZ.Class", "OZ.Capacity"]


def _unit_zone_in_phase(ctx: Ctx, a: EnterZone | Transfer | Bombard) -> tuple[Unit, Zone] | Problem:
    """The unit and the zone an action names, in the action's phase; else the first problem
    (unknown unit, unknown zone, wrong phase, in that order)."""
    unit = _unit(ctx, a.unit)
    if isinstance(unit, Problem):
        return unit
    zone = _zone(ctx, a.zone)
    if isinstance(zone, Problem):
        return zone
    if (p := _phase_problem(ctx, a)) is not None:
        return p
    return unit, zone


# -- movement: enter, exit, transfer, withdraw ---------------------------------------------------


def judge_enter(ctx: Ctx, a: EnterZone) -> Ruling:
    found = _unit_zone_in_phase(ctx, a)
    if isinstance(found, Problem):
        return ctx.illegal(found)
    unit, zone = found
    if unit.zone is not None:
        return ctx.illegal(
            Problem(
                "oz.already_in_zone",
                f"{unit.id} is already in zone {unit.zone}; it must leave it first.",
                ["OZ.Display", "OZ.Basic.C"],
                unit=unit.id,
            )
        )
    enemy = [u.id for u in garrison(ctx.state, zone.id) if u.side != unit.side]
    if enemy and unit.type == "artillery":
        return ctx.illegal(
            Problem(
                "oz.battery_contested",
                f"{unit.id} cannot enter {zone.id}: batteries never enter a contested zone.",
                ["OZ.Basic.F", "OZ.Basic.B"],
                unit=unit.id,
            )
        )
    if enemy:
        return ctx.illegal(
            Problem(
                "oz.enemy_held",
                f"{zone.id} is held by the enemy ({', '.join(enemy)}): take it by an assault.",
                ["OZ.Assault.A"],
                unit=unit.id,
            )
        )
    is_contested, why = contested(ctx.state, zone)
    if unit.type == "artillery" and is_contested:
        return ctx.illegal(
            Problem(
                "oz.battery_contested",
                f"{unit.id} cannot enter {zone.id}: it is contested ({why}).",
                ["OZ.Basic.F", "OZ.Basic.B"],
                unit=unit.id,
            )
        )
    exit_turn = ctx.state.turn + zone.trafficability
    effects: list[Effect] = []
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
        effects.append(
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
        )
    else:
        sections = _capacity_cites(ctx, zone)
        held = {u.sector for u in battalions(garrison(ctx.state, zone.id, unit.side))}
        free = [n for n in range(1, zone.capacity + 1) if n not in held]
        if a.sector is not None and a.sector > zone.capacity:
            return ctx.illegal(
                Problem(
                    "oz.bad_sector",
                    f"{zone.id} has sectors 1-{zone.capacity}.",
                    sections,
                    unit=unit.id,
                )
            )
        if a.sector is not None and a.sector not in free and free:
            return ctx.illegal(
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
            effects.append(
                ctx.effect(
                    "oz.garrisoned",
                    f"{unit.id} garrisons sector {sector}",
                    [*sections, "OZ.Display"],
                    unit=unit.id,
                    details={"zone": zone.id, "sector": sector, "on_table": on_table},
                )
            )
        else:
            details.update(at="transit", sector=None)
            effects.append(
                ctx.effect(
                    "oz.in_transit",
                    f"{zone.id} is full: {unit.id} stands In-Transit, without cover",
                    [*sections, "OZ.Display"],
                    unit=unit.id,
                    details={"zone": zone.id, "on_table": on_table},
                )
            )
    effects.append(
        ctx.effect(
            "oz.earliest_exit",
            f"{unit.id} may leave from turn {exit_turn}",
            ["OZ.Trafficability"],
            unit=unit.id,
            details={"turn": exit_turn},
        )
    )
    return ctx.legal(f"{unit.id} enters {zone.id}.", effects, details)


def judge_exit(ctx: Ctx, a: ExitZone) -> Ruling:
    unit = _unit(ctx, a.unit)
    if isinstance(unit, Problem):
        return ctx.illegal(unit)
    if (p := _phase_problem(ctx, a)) is not None:
        return ctx.illegal(p)
    if unit.zone is None:
        return ctx.illegal(
            Problem("oz.not_in_zone", f"{unit.id} is in no zone.", ["OZ.Display"], unit=unit.id)
        )
    zone = ctx.board.zones[unit.zone]
    if unit.engaged:
        return ctx.illegal(
            Problem(
                "oz.engaged",
                f"{unit.id} is engaged: it can only withdraw.",
                ["OZ.PostMelee.D.4"],
                unit=unit.id,
            )
        )
    earliest = (unit.entered_turn or 0) + zone.trafficability
    fleeing = must_flee(ctx.state, unit)
    if fleeing:
        ctx.rely("oz.flee-trafficability")
        ctx.cite("OZ.Basic.F")
    if ctx.state.turn < earliest and not fleeing:
        return ctx.illegal(
            Problem(
                "oz.trafficability",
                f"{unit.id} entered {zone.id} on turn "
                f"{unit.entered_turn}; it may leave from turn {earliest}.",
                ["OZ.Trafficability"],
                unit=unit.id,
                details={"earliest_exit": earliest},
            )
        )
    if unit.type in ("cavalry", "artillery") and zone.road and not a.by_road:
        return ctx.illegal(
            Problem(
                "oz.must_use_road",
                f"{unit.id} is {unit.type}: it leaves {zone.id} by its road.",
                ["OZ.Trafficability"],
                unit=unit.id,
            )
        )
    ctx.cite("OZ.Trafficability")
    return ctx.legal(
        f"{unit.id} leaves {zone.id}.",
        [
            ctx.effect(
                "oz.exited",
                f"{unit.id} is back on the table",
                ["OZ.Display"],
                unit=unit.id,
                details={"zone": zone.id, "by_road": a.by_road},
            )
        ],
        {"zone": zone.id},
    )


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
    found = _unit_zone_in_phase(ctx, a)
    if isinstance(found, Problem):
        return ctx.illegal(found)
    unit, zone = found
    if unit.zone is None:
        return ctx.illegal(
            Problem("oz.not_in_zone", f"{unit.id} is in no zone.", ["OZ.Display"], unit=unit.id)
        )
    if unit.zone != zone.id:
        return ctx.illegal(
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
        return ctx.illegal(Problem("oz.engaged", f"{unit.id} is engaged.", sections, unit=unit.id))
    if unit.type == "artillery":
        return ctx.illegal(
            Problem(
                "oz.guns_hold_no_sector",
                f"{unit.id} is a battery: guns support the zone, they hold no sector.",
                ["OZ.Basic.D"],
                unit=unit.id,
            )
        )
    if a.to_sector is None:
        return ctx.legal(
            f"{unit.id} goes In-Transit.",
            [
                ctx.effect(
                    "oz.in_transit",
                    f"{unit.id} is In-Transit",
                    ["OZ.Basic.C", "OZ.Display"],
                    unit=unit.id,
                    details={"zone": zone.id},
                )
            ],
            {"zone": zone.id, "at": "transit", "sector": None},
        )
    if a.to_sector > zone.capacity:
        return ctx.illegal(
            Problem(
                "oz.bad_sector",
                f"{zone.id} has sectors 1-{zone.capacity}.",
                ["OZ.Display"],
                unit=unit.id,
            )
        )
    start = unit.sector if unit.at == "garrison" else None
    if a.to_sector == start:
        return ctx.illegal(
            Problem(
                "oz.same_sector",
                f"{unit.id} is already in sector {start}.",
                ["OZ.Basic.C"],
                unit=unit.id,
            )
        )
    held = {u.sector for u in battalions(garrison(ctx.state, zone.id)) if u.id != unit.id}
    if a.to_sector in held:
        return ctx.illegal(
            Problem(
                "oz.sector_full",
                f"Sector {a.to_sector} already holds a battalion.",
                [*_capacity_cites(ctx, zone)],
                unit=unit.id,
            )
        )
    if (p := _f_path_problem(ctx, zone, unit, start, a.to_sector)) is not None:
        return ctx.illegal(p)
    return ctx.legal(
        f"{unit.id} moves to sector {a.to_sector} of {zone.id}.",
        [
            ctx.effect(
                "oz.transferred",
                f"{unit.id} to sector {a.to_sector}",
                ["OZ.Basic.C"],
                unit=unit.id,
                details={"zone": zone.id, "from": start, "to": a.to_sector},
            )
        ],
        {"zone": zone.id, "at": "garrison", "sector": a.to_sector},
    )


def judge_withdraw(ctx: Ctx, a: Withdraw) -> Ruling:
    unit = _unit(ctx, a.unit)
    if isinstance(unit, Problem):
        return ctx.illegal(unit)
    if (p := _phase_problem(ctx, a)) is not None:
        return ctx.illegal(p)
    if not unit.engaged or unit.zone is None:
        return ctx.illegal(
            Problem(
                "oz.not_engaged",
                f"{unit.id} is not engaged in a zone.",
                ["OZ.PostMelee.D.4"],
                unit=unit.id,
            )
        )
    return ctx.legal(
        f"{unit.id} withdraws from {unit.zone} at one casting of attrition.",
        [
            ctx.effect(
                "oz.withdrawn",
                f"{unit.id} leaves {unit.zone}",
                ["OZ.PostMelee.D.4"],
                unit=unit.id,
                details={"zone": unit.zone, "attrition": 1},
            )
        ],
        {"zone": unit.zone, "attrition": 1},
    )


# -- fire: musketry, garrison batteries, bombardment -------------------------------------------


def judge_musketry(ctx: Ctx, a: Musketry) -> Ruling:
    shooter = _unit(ctx, a.unit)
    if isinstance(shooter, Problem):
        return ctx.illegal(shooter)
    target = _unit(ctx, a.target)
    if isinstance(target, Problem):
        return ctx.illegal(target)
    if (p := _phase_problem(ctx, a)) is not None:
        return ctx.illegal(p)
    for who, unit in (("from", shooter), ("at", target)):
        if unit.zone is not None and ctx.board.zones[unit.zone].zone_class != "A":
            return ctx.illegal(
                Problem(
                    f"oz.no_musketry_{who}_zone",
                    f"No musketry {who} "
                    f"{unit.id}: it is in zone {unit.zone} (class "
                    f"{ctx.board.zones[unit.zone].zone_class}).",
                    ["OZ.Basic.A"],
                    unit=unit.id,
                )
            )
    effects = []
    ctx.cite("OZ.Basic.A")
    if target.zone is not None and ctx.options.class_a_skirmish:
        ctx.rely("oz.class-a-skirmish")
        effects.append(
            ctx.effect(
                "oz.skirmish_target",
                f"{target.id} counts as in skirmish order",
                ["OZ.Class"],
                unit=target.id,
            )
        )
    return ctx.legal(f"{shooter.id} may fire at {target.id}.", effects, {})


def judge_garrison_fire(ctx: Ctx, a: GarrisonFire) -> Ruling:
    unit = _unit(ctx, a.unit)
    if isinstance(unit, Problem):
        return ctx.illegal(unit)
    if (p := _phase_problem(ctx, a)) is not None:
        return ctx.illegal(p)
    if unit.type != "artillery" or unit.at != "garrison" or unit.zone is None:
        return ctx.illegal(
            Problem(
                "oz.not_garrison_battery",
                f"{unit.id} is not a garrison battery.",
                ["OZ.Basic.E"],
                unit=unit.id,
            )
        )
    if ctx.state.phase != "initial_fire":
        return ctx.illegal(
            Problem(
                "oz.garrison_fire_initial_only",
                f"{unit.id} is a garrison battery: it fires in the Initial Fire Phase only.",
                ["OZ.Basic.E"],
                unit=unit.id,
            )
        )
    zone = ctx.board.zones[unit.zone]
    return ctx.legal(
        f"{unit.id} fires from {zone.id}, section by section.",
        [
            ctx.effect(
                "oz.fires_by_section",
                f"{unit.sections} separate sections",
                ["OZ.Basic.E"],
                unit=unit.id,
                details={
                    "sections": unit.sections,
                    "zone": zone.id,
                    "kill_zone_must_cover_road": zone.road,
                },
            )
        ],
        {"zone": zone.id},
    )


def bombard_plan(ctx: Ctx, a: Bombard, zone: Zone) -> tuple[int, int, str]:
    """(dice, hit level, target box) of outside fire at an occupied zone (OZ.Basic.G)."""
    units = in_zone(ctx.state, zone.id)
    if any(u.at == "transit" for u in units):
        return a.dice, 2, "transit"
    if zone.zone_class == "A":
        return a.dice, a.normal_to_hit + 1, "garrison"
    if zone.zone_class in ("B", "C", "D"):
        return max(a.dice - 1, 0), 1, "garrison"
    ctx.rely("oz.half-dice")
    half = a.dice // 2 if ctx.options.half_dice_rounding == "down" else (a.dice + 1) // 2
    return half, 1, "garrison"


def bombard_dice(ctx: Ctx, a: Bombard) -> list[int]:
    zone = ctx.zone(a.zone)
    if zone is None or not in_zone(ctx.state, zone.id):
        return []
    return [DIE] * bombard_plan(ctx, a, zone)[0]


def judge_bombard(ctx: Ctx, a: Bombard, dice: Sequence[int]) -> Ruling:
    found = _unit_zone_in_phase(ctx, a)
    if isinstance(found, Problem):
        return ctx.illegal(found)
    unit, zone = found
    if (ban := secondary_fire_ban(ctx, unit)) is not None:
        return ctx.illegal(ban)
    if unit.type != "artillery" or unit.zone is not None:
        return ctx.illegal(
            Problem(
                "oz.battery_not_outside",
                f"{unit.id} is not a battery outside the zones.",
                ["OZ.Basic.G"],
                unit=unit.id,
            )
        )
    targets = in_zone(ctx.state, zone.id)
    if not targets:
        return ctx.legal(
            f"{zone.id} is empty: the fire has no effect.",
            [ctx.effect("oz.no_effect", "empty zone", ["OZ.Basic.G"], details={"zone": zone.id})],
            {"zone": zone.id, "losses": {}},
        )
    n, level, box = bombard_plan(ctx, a, zone)
    ctx.cite("OZ.Basic.G", "OZ.Scenario")
    ctx.rely("oz.d10")
    notes: list[Effect] = []
    if zone.zone_class == "A" and box == "garrison" and ctx.options.class_a_skirmish:
        # OZ.Class (A): as an artillery target the garrison counts as in skirmish order; the
        # caller's normal_to_hit must be the one against skirmishers.
        ctx.rely("oz.class-a-skirmish")
        notes.append(
            ctx.effect(
                "oz.skirmish_target",
                f"the garrison of Class A zone {zone.id} counts as in skirmish order",
                ["OZ.Class"],
                by=sorted(u.id for u in targets if u.at == "garrison"),
                details={"zone": zone.id},
            )
        )
    if not dice:
        return ctx.legal(
            f"{unit.id} may fire at {zone.id} with {n} dice.",
            notes,
            {"zone": zone.id, "dice": n, "level": level, "box": box, "losses": {}},
        )
    hits = sum(1 for v in dice if v % DIE < level)
    left = hits * ctx.board.casualties_per_hit
    order = [u for u in targets if u.at == "transit"] + [u for u in targets if u.at != "transit"]
    losses: dict[str, int] = {}
    for u in order:
        if left <= 0:
            break
        take = min(u.men, left)
        if take:
            losses[u.id] = take
            left -= take
    effects = [
        *notes,
        ctx.effect(
            "oz.bombard_hits",
            f"{hits} hits on {zone.id}",
            ["OZ.Basic.G"],
            details={
                "zone": zone.id,
                "hits": hits,
                "box": box,
                "level": level,
                "dice": list(dice),
                "losses": losses,
            },
        ),
    ]
    if losses:
        effects.append(
            ctx.effect(
                "oz.morale_check",
                "units hit by artillery test morale",
                ["OZ.Morale"],
                by=sorted(losses),
            )
        )
    return ctx.legal(
        f"{unit.id} scores {hits} hits on {zone.id}.",
        effects,
        {"zone": zone.id, "hits": hits, "losses": losses},
    )


# -- charge declaration ---------------------------------------------------------------------


def judge_declare(ctx: Ctx, a: DeclareAssault) -> Ruling:
    zone = _zone(ctx, a.zone)
    if isinstance(zone, Problem):
        return ctx.illegal(zone)
    units: list[Unit] = []
    for uid in a.units:
        unit = _unit(ctx, uid)
        if isinstance(unit, Problem):
            return ctx.illegal(unit)
        units.append(unit)
    if (p := _phase_problem(ctx, a)) is not None:
        return ctx.illegal(p)
    side = units[0].side
    if len({u.side for u in units}) > 1 or len(set(a.units)) != len(a.units):
        return ctx.illegal(
            Problem(
                "oz.mixed_units", "An assault names distinct units of one side.", ["OZ.Assault.A"]
            )
        )
    if side != ctx.state.phasing_side:
        return ctx.illegal(
            Problem(
                "oz.not_phasing",
                f"Only the phasing side "
                f"({ctx.state.phasing_side}) declares charges; the defender "
                "may not counter-charge.",
                ["OZ.Assault.A", "OZ.Sequence"],
            )
        )
    for u in units:
        if u.zone not in (None, zone.id) or (u.zone is not None and u.engaged):
            return ctx.illegal(
                Problem(
                    "oz.not_available",
                    f"{u.id} is committed in {u.zone}.",
                    ["OZ.Assault.A", "OZ.Basic.C"],
                    unit=u.id,
                )
            )
        if u.type == "artillery":
            return ctx.illegal(
                Problem(
                    "oz.battery_declared",
                    f"{u.id} is a battery: guns support a sector, they do not assault.",
                    ["OZ.Assault.B.5"],
                    unit=u.id,
                )
            )
    if bad := support_problems(ctx, side, a.batteries):
        return ctx.illegal(*bad)
    if not any(u.type == "infantry" for u in units):
        return ctx.illegal(
            Problem("oz.no_infantry", "An assault needs infantry.", ["OZ.Assault.B.4"])
        )
    defenders = [u for u in in_zone(ctx.state, zone.id) if u.side != side]
    if not defenders:
        return ctx.illegal(
            Problem(
                "oz.no_defender",
                f"{zone.id} holds no enemy: enter it by movement.",
                ["OZ.Assault.A", "OZ.Display"],
            )
        )
    if pending_assault(ctx.state, zone.id) is not None:
        return ctx.illegal(
            Problem(
                "oz.already_assaulted",
                f"{zone.id} is already assaulted this turn.",
                ["OZ.Assault.A"],
            )
        )
    decision = decision_id(zone.id, ctx.state.turn)
    sector_cites = _capacity_cites(ctx, zone)
    effects = [
        ctx.effect(
            "oz.assault_declared",
            f"{side} assaults {zone.id}",
            ["OZ.Assault.A"],
            by=a.units,
            details={"zone": zone.id},
        ),
        ctx.effect(
            "oz.contested", f"{zone.id} is contested", ["OZ.Basic.B"], details={"zone": zone.id}
        ),
        ctx.effect(
            "oz.allocation_pending",
            f"sealed decision {decision}",
            ["OZ.Assault.B.1", *sector_cites],
            details={"decision": decision, "sectors": zone.capacity},
        ),
    ]
    if a.batteries:
        ctx.rely("oz.support-secondary")
        effects.append(
            ctx.effect(
                "oz.support_named",
                "named batteries support the assault; no Secondary Fire for them this turn",
                ["OZ.Assault.B.5"],
                by=a.batteries,
            )
        )
    flee = [u.id for u in defenders if u.type == "artillery" and u.at == "transit"]
    if flee:
        effects.append(
            ctx.effect(
                "oz.batteries_must_flee",
                "limbered guns In-Transit must leave or unlimber",
                ["OZ.Basic.F"],
                by=flee,
            )
        )
    return ctx.legal(
        f"{side} declares an assault on {zone.id}.",
        effects,
        {"zone": zone.id, "decision": decision, "defender": ctx.other_side(side)},
    )


# -- application ------------------------------------------------------------------------------


def apply_action(ctx: Ctx, action: object, ruling: Ruling) -> State:
    from app.rules.objective_zones.models import Assault

    new = ctx.state.model_copy(deep=True)
    units = {u.id: u for u in new.units}
    d = ruling.details
    if isinstance(action, EnterZone):
        u = units[action.unit]
        u.zone, u.at, u.sector = action.zone, d["at"], d["sector"]
        u.entered_turn = ctx.state.turn
    elif isinstance(action, ExitZone):
        u = units[action.unit]
        u.zone, u.at, u.sector, u.entered_turn = None, "board", None, None
    elif isinstance(action, Transfer):
        u = units[action.unit]
        u.at, u.sector = d["at"], d["sector"]
    elif isinstance(action, Withdraw):
        u = units[action.unit]
        u.men = max(u.men - 1, 0)
        u.zone, u.at, u.sector, u.engaged, u.entered_turn = None, "board", None, False, None
    elif isinstance(action, Bombard):
        if ctx.state.phase == "secondary_fire":
            new.fired_secondary = [*new.fired_secondary, action.unit]
        due = dict(new.morale_due)
        for uid in d.get("losses", {}):
            due[uid] = "artillery"
        new.morale_due = due
        for uid, lost in d.get("losses", {}).items():
            units[uid].men -= int(lost)
        gone = [uid for uid, u in units.items() if u.men <= 0 and uid in d.get("losses", {})]
        new.units = [u for u in new.units if u.id not in gone]
        new.removed = [*new.removed, *gone]
    elif isinstance(action, DeclareAssault):
        side = units[action.units[0]].side
        new.assaults.append(
            Assault(
                zone=action.zone,
                attacker=side,
                defender=d["defender"],
                units=list(action.units),
                turn=ctx.state.turn,
                batteries=list(action.batteries),
            )
        )
    elif isinstance(action, Unlimber):
        u = units[action.unit]
        u.at, u.sector = "garrison", None
    elif isinstance(action, MoraleTest):
        new.morale_due = {k: v for k, v in new.morale_due.items() if k != action.unit}
    return new
