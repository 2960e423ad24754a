"""Fire at and from objective zones (OZ.Basic.A, OZ.Basic.E, OZ.Basic.G): musketry on the
table, garrison batteries firing by section, and outside batteries bombarding a zone."""

from __future__ import annotations

from app.rules.dispatch import NoOutcome
from app.rules.judgement import Problem
from app.rules.objective_zones.checks import problem_of, unit_and_zone, unit_of
from app.rules.objective_zones.combat import DIE
from app.rules.objective_zones.models import (
    Board,
    Bombard,
    BombardOutcome,
    GarrisonFire,
    Musketry,
    State,
    Zone,
)
from app.rules.objective_zones.support import secondary_fire_ban
from app.rules.objective_zones.zones import Ctx, in_zone
from app.rules.ruling import Ruling


def musketry_names(ctx: Ctx, a: Musketry) -> Problem | None:
    """``Kind.names``: the shooter or the target does not exist (in that order)."""
    return problem_of(unit_of(ctx, a.unit)) or problem_of(unit_of(ctx, a.target))


def judge_musketry(ctx: Ctx, a: Musketry) -> Ruling:
    shooter = unit_of(ctx, a.unit)
    if isinstance(shooter, Problem):
        return ctx.refuse(shooter)
    target = unit_of(ctx, a.target)
    if isinstance(target, Problem):
        return ctx.refuse(target)
    for who, unit in (("from", shooter), ("at", target)):
        if unit.zone is not None and ctx.board.zones[unit.zone].zone_class != "A":
            return ctx.refuse(
                Problem(
                    f"oz.no_musketry_{who}_zone",
                    f"No musketry {who} "
                    f"{unit.id}: it is in zone {unit.zone} (class "
                    f"{ctx.board.zones[unit.zone].zone_class}).",
                    ["OZ.Basic.A"],
                    unit=unit.id,
                )
            )
    ctx.cite("OZ.Basic.A")
    if target.zone is not None:  # a Class A garrison: either reading decides the target
        ctx.rely("oz.class-a-skirmish")
    if target.zone is not None and ctx.options.class_a_skirmish:
        ctx.effect(
            "oz.skirmish_target",
            f"{target.id} counts as in skirmish order",
            ["OZ.Class"],
            unit=target.id,
        )
    return ctx.finish(f"{shooter.id} may fire at {target.id}.")


def judge_garrison_fire(ctx: Ctx, a: GarrisonFire) -> Ruling:
    unit = unit_of(ctx, a.unit)
    if isinstance(unit, Problem):
        return ctx.refuse(unit)
    if unit.type != "artillery" or unit.at != "garrison" or unit.zone is None:
        return ctx.refuse(
            Problem(
                "oz.not_garrison_battery",
                f"{unit.id} is not a garrison battery.",
                ["OZ.Basic.E"],
                unit=unit.id,
            )
        )
    if ctx.state.phase != "initial_fire":
        return ctx.refuse(
            Problem(
                "oz.garrison_fire_initial_only",
                f"{unit.id} is a garrison battery: it fires in the Initial Fire Phase only.",
                ["OZ.Basic.E"],
                unit=unit.id,
            )
        )
    zone = ctx.board.zones[unit.zone]
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
    return ctx.finish(f"{unit.id} fires from {zone.id}, section by section.", {"zone": zone.id})


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
    zone = ctx.board.zones.get(a.zone)
    if zone is None or not in_zone(ctx.state, zone.id):
        return []
    return [DIE] * bombard_plan(ctx, a, zone)[0]


def judge_bombard(ctx: Ctx, a: Bombard) -> Ruling:
    dice = ctx.dice
    found = unit_and_zone(ctx, a)
    if isinstance(found, Problem):
        return ctx.refuse(found)
    unit, zone = found
    if (ban := secondary_fire_ban(ctx, unit)) is not None:
        return ctx.refuse(ban)
    if unit.type != "artillery" or unit.zone is not None:
        return ctx.refuse(
            Problem(
                "oz.battery_not_outside",
                f"{unit.id} is not a battery outside the zones.",
                ["OZ.Basic.G"],
                unit=unit.id,
            )
        )
    targets = in_zone(ctx.state, zone.id)
    if not targets:
        ctx.effect("oz.no_effect", "empty zone", ["OZ.Basic.G"], details={"zone": zone.id})
        return ctx.finish(
            f"{zone.id} is empty: the fire has no effect.", {"zone": zone.id, "losses": {}}
        )
    n, level, box = bombard_plan(ctx, a, zone)
    ctx.cite("OZ.Basic.G", "OZ.Scenario")
    ctx.rely("oz.d10")
    if zone.zone_class == "A" and box == "garrison":
        ctx.rely("oz.class-a-skirmish")  # either reading decides the target
    if zone.zone_class == "A" and box == "garrison" and ctx.options.class_a_skirmish:
        # OZ.Class (A): as an artillery target the garrison counts as in skirmish order; the
        # caller's normal_to_hit must be the one against skirmishers.
        ctx.effect(
            "oz.skirmish_target",
            f"the garrison of Class A zone {zone.id} counts as in skirmish order",
            ["OZ.Class"],
            by=sorted(u.id for u in targets if u.at == "garrison"),
            details={"zone": zone.id},
        )
    if not dice:
        return ctx.finish(
            f"{unit.id} may fire at {zone.id} with {n} dice.",
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
    )
    if losses:
        ctx.effect(
            "oz.morale_check",
            "units hit by artillery test morale",
            ["OZ.Morale"],
            by=sorted(losses),
        )
    return ctx.finish(
        f"{unit.id} scores {hits} hits on {zone.id}.",
        {"zone": zone.id, "hits": hits, "losses": losses},
    )


def apply_bombard(board: Board, state: State, a: Bombard, out: BombardOutcome) -> State:
    """Losses come off the units hit; they owe a morale test (OZ.Morale); the destroyed go.
    A battery that fired in the Secondary Fire Phase is noted (OZ.Assault.B.5)."""
    new = state.model_copy(deep=True)
    units = {u.id: u for u in new.units}
    if state.phase == "secondary_fire":
        new.fired_secondary = [*new.fired_secondary, a.unit]
    new.morale_due = {**new.morale_due, **{uid: "artillery" for uid in out.losses}}
    for uid, lost in out.losses.items():
        units[uid].men -= lost
    gone = [uid for uid, u in units.items() if u.men <= 0 and uid in out.losses]
    new.units = [u for u in new.units if u.id not in gone]
    new.removed = [*new.removed, *gone]
    return new


def apply_nothing(board: Board, state: State, a: Musketry | GarrisonFire, out: NoOutcome) -> State:
    """Fire on the table and garrison fire change nothing the zone rules keep."""
    return state.model_copy(deep=True)
