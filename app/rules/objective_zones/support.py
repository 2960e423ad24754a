"""Batteries and assaults: In-Transit guns unlimbering or fleeing (OZ.Basic.F) and the
Secondary Fire ban of supporting batteries (OZ.Assault.B.5)."""

from __future__ import annotations

from app.rules.dispatch import NoOutcome
from app.rules.judgement import Problem
from app.rules.objective_zones.models import Assault, Board, State, Unit, Unlimber
from app.rules.objective_zones.zones import Ctx, gun_load, unit_named
from app.rules.ruling import Ruling


def assault_on(state: State, zone: str | None, defender: str) -> Assault | None:
    """This turn's assault on ``zone`` against ``defender``, if any."""
    for a in state.assaults:
        if a.zone == zone and a.turn == state.turn and a.defender == defender:
            return a
    return None


def must_flee(state: State, unit: Unit) -> bool:
    """An In-Transit battery of a zone under assault (OZ.Basic.F)."""
    return (
        unit.type == "artillery"
        and unit.at == "transit"
        and assault_on(state, unit.zone, unit.side) is not None
    )


def named_support(state: State, unit: str) -> Assault | None:
    for a in state.assaults:
        if a.turn == state.turn and unit in a.batteries:
            return a
    return None


def secondary_fire_ban(ctx: Ctx, unit: Unit) -> Problem | None:
    """A battery named as support may not fire in the Secondary Fire Phase (B.5)."""
    if ctx.state.phase != "secondary_fire":
        return None
    assault = named_support(ctx.state, unit.id)
    if assault is None:
        return None
    ctx.rely("oz.support-secondary")
    return Problem(
        "oz.support_no_secondary_fire",
        f"{unit.id} supports the assault on {assault.zone}: it may not fire at other targets "
        "in the Secondary Fire Phase.",
        ["OZ.Assault.B.5"],
        unit=unit.id,
        details={"zone": assault.zone},
    )


def support_problems(ctx: Ctx, side: str, batteries: list[str]) -> list[Problem]:
    """Batteries named at a declaration: the declaring side's, on the table."""
    out = []
    for uid in batteries:
        unit = unit_named(ctx.state, uid)
        if unit is None or unit.side != side or unit.type != "artillery" or unit.zone:
            out.append(
                Problem(
                    "oz.bad_support",
                    f"{uid} is not a battery of {side} outside the zones.",
                    ["OZ.Assault.B.5"],
                    unit=uid,
                )
            )
    return out


def unlimber_names(ctx: Ctx, a: Unlimber) -> Problem | None:
    """``Kind.names``: the battery does not exist."""
    if unit_named(ctx.state, a.unit) is not None:
        return None
    return Problem("oz.unknown_unit", f"There is no unit {a.unit!r}.", ["OZ.Scenario"])


def judge_unlimber(ctx: Ctx, a: Unlimber) -> Ruling:
    if (p := unlimber_names(ctx, a)) is not None:
        return ctx.refuse(p)
    unit = unit_named(ctx.state, a.unit)
    assert unit is not None
    if not must_flee(ctx.state, unit) or unit.zone is None:
        return ctx.refuse(
            Problem(
                "oz.not_fleeing_battery",
                f"{unit.id} is not a limbered In-Transit battery of a zone under assault.",
                ["OZ.Basic.F"],
                unit=unit.id,
            )
        )
    zone = ctx.board.zones[unit.zone]
    if zone.zone_class != "F":
        ctx.rely("oz.gun-stand")
    load = gun_load(ctx.state, zone, ctx.options, extra=unit)
    if load > zone.gun_limit:
        return ctx.refuse(
            Problem(
                "oz.gun_limit",
                f"{zone.id}'s garrison holds {zone.gun_limit} guns at most; {unit.id} would "
                f"make {load}: it must flee.",
                ["OZ.Basic.D", "OZ.Basic.F"],
                unit=unit.id,
                details={"guns": load, "limit": zone.gun_limit},
            )
        )
    ctx.effect(
        "oz.garrisoned",
        f"{unit.id} unlimbers in {zone.id}",
        ["OZ.Basic.F", "OZ.Basic.D"],
        unit=unit.id,
        details={"zone": zone.id, "guns": load, "limit": zone.gun_limit},
    )
    return ctx.finish(
        f"{unit.id} unlimbers into the garrison of {zone.id}.",
        {"zone": zone.id, "at": "garrison", "sector": None},
    )


def apply_unlimber(board: Board, state: State, a: Unlimber, out: NoOutcome) -> State:
    new = state.model_copy(deep=True)
    u = next(u for u in new.units if u.id == a.unit)
    u.at, u.sector = "garrison", None
    return new
