"""Assaults on objective zones (OZ.Assault.B-C, OZ.PostMelee.D): the sealed troop
allocation, the melee dice it needs and the resolution of the revealed orders."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, ValidationInfo, model_validator

from app.rules.base import SealedDecision
from app.rules.judgement import Judgement, Problem
from app.rules.objective_zones.catalog import CATALOG, INTERPRETATION_BY_ID
from app.rules.objective_zones.checks import castings_problem
from app.rules.objective_zones.models import (
    RAISE,
    Allocation,
    Assault,
    AssaultOutcome,
    Board,
    Options,
    State,
    Unit,
    Zone,
)
from app.rules.objective_zones.zones import (
    battalions,
    garrison,
    judging,
    pending_assault,
    rely_capacity,
    sector_status,
)
from app.rules.ruling import Ruling

DIE = 10
"""Melee and fire dice are d10 read 0-9 (interpretation oz.d10)."""


def decision_id(zone: str, turn: int) -> str:
    return f"allocation:{zone}:t{turn}"


# -- B: validating one side's allocation -------------------------------------------------------


def judge_sealed(
    board: Board, state: State, decision: SealedDecision, side: str, order: BaseModel, opts: Options
) -> Ruling:
    """``side``'s order for the sealed ``decision``, judged before it is accepted
    (:func:`judge_order` on the decision's zone)."""
    zone = getattr(decision.order_model, "zone_id", None) or ""
    assert isinstance(order, Allocation)
    return judge_order(board, state, zone, side, order, opts)


def judge_order(
    board: Board, state: State, zone_id: str, side: str, order: Allocation, options: Options
) -> Ruling:
    """The ruling on ``side``'s allocation before it is accepted: every problem of
    :func:`order_problems`, each cited and located in the order (``/sectors/<n>``)."""
    j = Judgement(CATALOG, INTERPRETATION_BY_ID, options)
    j.cite("OZ.Assault.B.1")
    for p in order_problems(board, state, zone_id, side, order, options):
        sector = p.details.get("sector")
        j.reject(
            p.code,
            p.message,
            p.sections,
            unit=p.unit,
            location=f"/sectors/{sector}" if sector is not None else None,
            details=p.details,
        )
    return j.finish(f"{side}'s allocation for the assault on {zone_id} is accepted.")


def check_now(order: Allocation, info: ValidationInfo) -> Allocation:
    """Validate an allocation against the game named by the validation context
    (:meth:`Allocation.zone_game`): every problem of :func:`order_problems`, as one error."""
    context: Any = info.context if isinstance(info.context, dict) else {}
    zone = type(order).zone_id
    found = order.zone_game(context)
    if zone is not None and found is not None:
        board, state, side, opts = found
        problems = order_problems(board, state, zone, side, order, opts)
        if problems:
            raise ValueError("; ".join(p.message for p in problems))
    return order


@cache
def allocation_model(zone: str, base: type[Allocation] = Allocation) -> type[Allocation]:
    """The order model of the allocation decision for ``zone``, checked against the game on
    validation (:func:`check_now`); one class per zone id and base (a ruleset playing the
    zone rules passes its own :class:`Allocation` subclass)."""
    namespace = {
        "zone_id": zone,
        "__module__": base.__module__,
        "_check_now": model_validator(mode="after")(check_now),
    }
    model: type[Allocation] = type("Allocation", (base,), namespace)
    return model


def order_problems(
    board: Board, state: State, zone_id: str, side: str, order: Allocation, options: Options
) -> list[Problem]:
    """Everything wrong with ``side``'s allocation for the assault on ``zone_id`` now."""
    assault = pending_assault(state, zone_id)
    zone = board.zones.get(zone_id)
    if assault is None or zone is None:
        return [Problem("oz.no_assault", f"No assault on {zone_id} is pending.", ["OZ.Assault.A"])]
    if side not in (assault.attacker, assault.defender):
        return [
            Problem("oz.not_a_party", f"{side} takes no part in this assault.", ["OZ.Assault.B.1"])
        ]
    units = {u.id: u for u in state.units}
    problems: list[Problem] = []
    seen: set[str] = set()
    for sector, ids in sorted(order.sectors.items()):
        if not 1 <= sector <= zone.capacity:
            problems.append(
                Problem(
                    "oz.bad_sector",
                    f"{zone.id} has combat sectors 1-{zone.capacity}, not {sector}.",
                    ["OZ.Assault.B.1"],
                    details={"sector": sector},
                )
            )
        for uid in ids:
            unit = units.get(uid)
            if unit is None:
                problems.append(
                    Problem("oz.unknown_unit", f"There is no unit {uid!r}.", ["OZ.Assault.B.1"])
                )
                continue
            if unit.side != side:
                problems.append(
                    Problem(
                        "oz.not_your_unit", f"{uid} is not a unit of {side}.", ["OZ.Assault.B.1"]
                    )
                )
                continue
            # OZ.Assault.B.1, OZ.Assault.C: a unit with no castings left is destroyed (a guard)
            if (p := castings_problem(unit, "OZ.Assault.B.1")) is not None:
                p.details["sector"] = sector
                problems.append(p)
                continue
            if uid in seen:
                problems.append(
                    Problem(
                        "oz.unit_twice", f"{uid} is allocated twice.", ["OZ.Assault.C"], unit=uid
                    )
                )
            seen.add(uid)
    if problems:
        return problems
    if side == assault.defender:
        return _defender_problems(zone, state, side, order, options, units)
    return _attacker_problems(zone, assault, order, options, units, state)


def _defender_problems(
    zone: Zone,
    state: State,
    side: str,
    order: Allocation,
    options: Options,
    units: dict[str, Unit],
) -> list[Problem]:
    problems: list[Problem] = []
    for ids in order.sectors.values():
        for uid in ids:
            unit = units[uid]
            if unit.zone == zone.id and unit.at == "transit" and unit.type == "artillery":
                problems.append(
                    Problem(
                        "oz.transit_battery",
                        f"{uid} is limbered In-Transit: it must leave the zone or unlimber "
                        "into the garrison before the assault, not fight.",
                        ["OZ.Basic.F"],
                        unit=uid,
                    )
                )
            elif unit.zone is None and (
                unit.type == "artillery" or not options.outside_reinforcements
            ):
                problems.append(
                    Problem(
                        "oz.not_available",
                        f"{uid} is outside the zone and cannot reinforce it.",
                        ["OZ.Assault.B.3"],
                        unit=uid,
                    )
                )
            elif unit.zone is not None and unit.zone != zone.id:
                problems.append(
                    Problem(
                        "oz.not_available",
                        f"{uid} is in zone {unit.zone}, not {zone.id}.",
                        ["OZ.Assault.B.3", "OZ.Basic.C"],
                        unit=uid,
                    )
                )
    if problems:
        return problems
    allocated = {uid for ids in order.sectors.values() for uid in ids}
    for unit in battalions(garrison(state, zone.id, side)):
        if unit.id not in allocated and unit.men > 0:
            problems.append(
                Problem(
                    "oz.garrison_unallocated",
                    f"Garrison battalion {unit.id} must be given a combat sector.",
                    ["OZ.Assault.B.3"],
                    unit=unit.id,
                )
            )
    undefended = [
        n
        for n in range(1, zone.capacity + 1)
        if not battalions(units[uid] for uid in order.sectors.get(n, []))
    ]
    for sector, ids in sorted(order.sectors.items()):
        bns = battalions(units[uid] for uid in ids)
        in_garrison = [u for u in bns if u.zone == zone.id and u.at == "garrison"]
        if len(in_garrison) > 1:
            problems.append(
                Problem(
                    "oz.two_garrison_battalions",
                    f"Sector {sector} has {len(in_garrison)} garrison battalions; one each.",
                    ["OZ.Assault.B.3"],
                    details={"sector": sector},
                )
            )
        extra = [u for u in bns if not (u.zone == zone.id and u.at == "garrison")]
        if undefended and extra and len(bns) > 1:
            problems.append(
                Problem(
                    "oz.fill_undefended_first",
                    f"Sector {sector} gets a second unit while sector(s) "
                    f"{', '.join(map(str, undefended))} stay undefended.",
                    ["OZ.Assault.B.3", "OZ.Assault.B.2"],
                    details={"sector": sector, "undefended": undefended},
                )
            )
    return problems


def _attacker_problems(
    zone: Zone,
    assault: Assault,
    order: Allocation,
    options: Options,
    units: dict[str, Unit],
    state: State,
) -> list[Problem]:
    problems: list[Problem] = []
    for ids in order.sectors.values():
        for uid in ids:
            unit = units[uid]
            if unit.type == "artillery":
                if uid in state.fired_secondary:
                    problems.append(
                        Problem(
                            "oz.support_fired_secondary",
                            f"{uid} fired in this turn's Secondary Fire Phase: it cannot "
                            "support a sector (interpretation oz.support-secondary).",
                            ["OZ.Assault.B.5"],
                            unit=uid,
                        )
                    )
                elif unit.zone is not None:
                    problems.append(
                        Problem(
                            "oz.battery_not_outside",
                            f"{uid} must support from outside the zone.",
                            ["OZ.Assault.B.5"],
                            unit=uid,
                        )
                    )
            elif uid not in assault.units:
                problems.append(
                    Problem(
                        "oz.not_assaulting",
                        f"{uid} was not declared against {zone.id}.",
                        ["OZ.Assault.A"],
                        unit=uid,
                    )
                )
    if problems:
        return problems
    if zone.fort:
        for sector, ids in sorted(order.sectors.items()):
            if len(ids) > 2:
                problems.append(
                    Problem(
                        "oz.fort_two_attackers",
                        f"Sector {sector} of the fort {zone.id} takes at most two attacking "
                        f"units, not {len(ids)}.",
                        ["A.36"],
                        details={"sector": sector},
                    )
                )
    for sector in range(1, zone.capacity + 1):
        ids = order.sectors.get(sector, [])
        present = [units[uid] for uid in ids]
        infantry = [u for u in present if u.type == "infantry"]
        if infantry:
            continue
        if any(u.type == "artillery" for u in present) and not battalions(present):
            problems.append(
                Problem(
                    "oz.battery_sole_attacker",
                    f"Guns cannot be the only attackers of sector {sector}.",
                    ["OZ.Assault.B.5"],
                    details={"sector": sector},
                )
            )
        elif present or options.attack_every_sector:
            problems.append(
                Problem(
                    "oz.sector_without_infantry",
                    f"Sector {sector} needs at least one attacking infantry unit.",
                    ["OZ.Assault.B.4"],
                    details={"sector": sector},
                )
            )
    return problems


# -- C: dice and to-hit levels ----------------------------------------------------------------


@dataclass(frozen=True)
class Roll:
    """The dice one unit rolls in one sector and the level it hits at."""

    sector: int
    side: str
    role: str
    unit: str
    dice: int
    level: int
    raised: int


def fort_sector_lost(state: State, zone: Zone, attacker: str) -> bool:
    """A.36: the attacker controls a sector of a whole large fort."""
    return zone.fort and attacker in sector_status(state, zone).values()


def level_of(
    unit: Unit, zone: Zone, role: str, board: Board, options: Options, fort_lost: bool = False
) -> tuple[int, int]:
    """(to-hit level 1-4, levels raised) of a unit fighting in ``zone`` (OZ.Assault.C); the
    defenders of a fort with a sector lost to the attacker lose the fort's raise (A.36)."""
    if unit.type == "artillery":
        return board.battery_hit_level, 0
    if unit.men <= 10:
        base = 1
    elif unit.men < options.level_three_from:
        base = 2
    else:
        base = 3
    raised = 0
    in_garrison = role == "defender" and unit.zone == zone.id and unit.at == "garrison"
    if in_garrison or (unit.engaged and options.engaged_get_zone_modifier):
        raised = RAISE[zone.zone_class]
    if fort_lost and role == "defender":
        raised = 0
    cap = 4
    if options.level_four_needs_strength and unit.men < options.level_three_from:
        cap = 3
    return min(base + raised, cap), raised


def effective_orders(
    state: State, assault: Assault, orders: Mapping[str, BaseModel]
) -> dict[str, dict[int, list[str]]]:
    """Side -> sector -> units, filling a missing defender order (oz.missing-allocation)."""
    out: dict[str, dict[int, list[str]]] = {}
    att = orders.get(assault.attacker)
    if isinstance(att, Allocation):
        out[assault.attacker] = {k: list(v) for k, v in att.sectors.items()}
    dfd = orders.get(assault.defender)
    if isinstance(dfd, Allocation):
        out[assault.defender] = {k: list(v) for k, v in dfd.sectors.items()}
    else:
        fill: dict[int, list[str]] = {}
        for u in battalions(garrison(state, assault.zone, assault.defender)):
            if u.sector is not None and u.men > 0:
                fill.setdefault(u.sector, []).append(u.id)
        out[assault.defender] = fill
    return out


def dice_plan(
    board: Board, state: State, assault: Assault, orders: Mapping[str, BaseModel], options: Options
) -> list[Roll]:
    """Every unit's roll, sector by sector, attacker first, units in order given."""
    if not isinstance(orders.get(assault.attacker), Allocation):
        return []
    zone = board.zones[assault.zone]
    units = {u.id: u for u in state.units}
    eff = effective_orders(state, assault, orders)
    lost = fort_sector_lost(state, zone, assault.attacker)
    rolls: list[Roll] = []
    for sector in range(1, zone.capacity + 1):
        for role, side in (("attacker", assault.attacker), ("defender", assault.defender)):
            for uid in eff[side].get(sector, []):
                unit = units.get(uid)
                if unit is None:
                    continue
                if unit.type == "artillery":
                    if role == "defender" and not options.defender_guns_add_dice:
                        dice = 0
                    else:
                        dice = 2 * unit.sections
                else:
                    dice = board.melee_dice.get(unit.grade, 0)
                level, raised = level_of(unit, zone, role, board, options, lost)
                rolls.append(Roll(sector, side, role, uid, dice, level, raised))
    return rolls


def dice_needed(
    board: Board, state: State, decision: str, orders: Mapping[str, BaseModel], options: Options
) -> list[int]:
    assault = _assault_for(state, decision)
    if assault is None:
        return []
    return [DIE] * sum(r.dice for r in dice_plan(board, state, assault, orders, options))


def _assault_for(state: State, decision: str) -> Assault | None:
    for a in state.assaults:
        if decision_id(a.zone, a.turn) == decision and a.turn == state.turn:
            return a
    return None


# -- D: resolution --------------------------------------------------------------------------


def resolve(
    board: Board,
    state: State,
    decision: str,
    orders: Mapping[str, BaseModel],
    options: Options,
    dice: Sequence[int],
) -> Ruling:
    ctx = judging(board, state, options)
    assault = _assault_for(state, decision)
    if assault is None:
        return ctx.refuse(
            Problem("oz.no_assault", f"No allocation {decision} is open.", ["OZ.Assault.A"])
        )
    zone = board.zones[assault.zone]
    ctx.cite("OZ.Assault.B.1", *(["A.36"] if zone.fort else []))
    problems: list[Problem] = []
    for side, order in sorted(orders.items()):
        if isinstance(order, Allocation):
            for p in order_problems(board, state, zone.id, side, order, options):
                p.details["side"] = side
                problems.append(p)
    sector_bound = {"oz.bad_sector", "oz.sector_without_infantry", "oz.fill_undefended_first"}
    if problems:
        if any(p.code in sector_bound for p in problems):
            rely_capacity(ctx, zone)
        return ctx.refuse(*problems)
    if assault.defender not in orders or assault.attacker not in orders:
        ctx.rely("oz.missing-allocation")
    if not isinstance(orders.get(assault.attacker), Allocation):
        ctx.effect(
            "oz.assault_called_off",
            "no attacker allocation",
            ["OZ.Assault.B.1"],
            details={"zone": zone.id},
        )
        return ctx.finish(
            f"{assault.attacker} allocated no troops: the assault on {zone.id} is called off.",
            {
                "zone": zone.id,
                "called_off": True,
                "placements": {},
                "losses": {},
                "removed": [],
                "engaged": [],
            },
        )
    rely_capacity(ctx, zone)
    plan = dice_plan(board, state, assault, orders, options)
    need = sum(r.dice for r in plan)
    if len(dice) != need:
        raise ValueError(f"{decision} needs {need} dice, got {len(dice)}")
    ctx.cite("OZ.Assault.C", "OZ.Scenario")
    ctx.rely("oz.d10")
    if options.attack_every_sector is False:
        ctx.rely("oz.attack-every-sector")
    units = {u.id: u for u in state.units}
    eff = effective_orders(state, assault, orders)
    if any(units[uid].zone is None for uid in _all(eff.get(assault.defender, {}))):
        ctx.rely("oz.outside-reinforcements")
    cph = board.casualties_per_hit
    placements: dict[str, int] = {}
    losses: dict[str, int] = {}
    removed: list[str] = []
    engaged: list[str] = []
    sectors: dict[str, Any] = {}
    taken = 0
    zone_wide_engage = False
    pos = 0
    rolls_by_sector: dict[int, list[dict[str, Any]]] = {}
    hits: dict[tuple[int, str], int] = {}
    for r in plan:
        values = list(dice[pos : pos + r.dice])
        pos += r.dice
        h = sum(1 for v in values if v % DIE < r.level)
        hits[(r.sector, r.role)] = hits.get((r.sector, r.role), 0) + h
        rolls_by_sector.setdefault(r.sector, []).append(
            {
                "unit": r.unit,
                "side": r.side,
                "dice": values,
                "level": r.level,
                "raised": r.raised,
                "hits": h,
            }
        )
        if r.raised:
            ctx.rely("oz.level-raise")
        if units[r.unit].engaged:
            ctx.rely("oz.engaged-modifier")
        if r.dice and units[r.unit].type != "artillery" and units[r.unit].men == 20:
            ctx.rely("oz.level-overlap")
    if fort_sector_lost(state, zone, assault.attacker):
        ctx.effect(
            "oz.fort_modifiers_lost",
            f"{assault.attacker} controls a sector of the fort {zone.id}: its defenders "
            "fight without the fort's modifiers",
            ["A.36"],
            details={"zone": zone.id},
        )
    if options.defender_guns_add_dice or any(
        units[uid].type == "artillery" for uid in _all(eff.get(assault.defender, {}))
    ):
        ctx.rely("oz.defender-guns")
    for sector in range(1, zone.capacity + 1):
        att_ids = eff[assault.attacker].get(sector, [])
        def_ids = eff[assault.defender].get(sector, [])
        att_bns = [uid for uid in att_ids if units[uid].type != "artillery"]
        def_bns = [uid for uid in def_ids if units[uid].type != "artillery"]
        def_guns = [uid for uid in def_ids if units[uid].type == "artillery"]
        by_att = hits.get((sector, "attacker"), 0) * cph
        by_def = hits.get((sector, "defender"), 0) * cph
        info: dict[str, Any] = {
            "attackers": att_ids,
            "defenders": def_ids,
            "rolls": rolls_by_sector.get(sector, []),
            "inflicted_by_attacker": by_att,
            "inflicted_by_defender": by_def,
        }
        if not att_bns:
            info["result"] = "not_attacked"
            ctx.effect(
                "oz.not_attacked",
                f"sector {sector}",
                ["OZ.Assault.B.4"],
                details={"sector": sector},
            )
            sectors[str(sector)] = info
            continue
        _spread(losses, units, att_bns, by_def)
        _spread(losses, units, def_bns, by_att)
        ctx.effect(
            "oz.casualties",
            f"sector {sector}: attacker inflicts {by_att}, defender inflicts {by_def}",
            ["OZ.Assault.C", "OZ.Scenario"],
            details={
                "sector": sector,
                "inflicted_by_attacker": by_att,
                "inflicted_by_defender": by_def,
            },
        )
        for uid in att_bns + def_bns:
            placements[uid] = sector
        if not def_bns:
            info["result"] = "taken"
            taken += 1
            removed.extend(def_guns)
            ctx.effect(
                "oz.sector_taken",
                f"sector {sector} was undefended",
                ["OZ.Assault.B.2"],
                by=att_bns,
                details={"sector": sector, "guns_lost": def_guns},
            )
        elif by_att > 0 and by_att >= 3 * by_def:
            info["result"] = "shattered"
            taken += 1
            removed.extend(def_ids)
            ctx.effect(
                "oz.shattered",
                f"sector {sector}: the defenders are shattered",
                ["OZ.PostMelee.D.1"],
                by=def_ids,
                details={"sector": sector},
            )
        elif options.post_melee == "sector" or by_att > by_def:
            ctx.rely("oz.d3-scope")
            info["result"] = "engaged"
            if options.post_melee == "sector":
                scope, lock = "sector", "attackers and defenders are engaged"
                section = "OZ.PostMelee.D.2" if by_att > by_def else "OZ.PostMelee.D.3"
                sections = [section, "OZ.PostMelee.D.4"]
                engaged.extend(att_bns + def_bns)
            else:
                scope, lock = "zone", "the whole zone is locked in melee"
                sections = ["OZ.PostMelee.D.2", "OZ.PostMelee.D.3", "OZ.PostMelee.D.4"]
                zone_wide_engage = True
            ctx.effect(
                "oz.engaged",
                f"sector {sector}: {lock}",
                sections,
                by=att_bns + def_bns,
                details={"sector": sector, "scope": scope},
            )
            ctx.effect(
                "oz.morale_check",
                f"sector {sector}",
                ["OZ.Morale"],
                by=def_bns,
                details={"sector": sector},
            )
        else:
            ctx.rely("oz.d3-scope")
            info["result"] = "held"
            for uid in att_bns:
                placements.pop(uid, None)
            ctx.effect(
                "oz.assault_held",
                f"sector {sector}: no post-melee result",
                ["OZ.PostMelee.D.2"],
                by=def_bns,
                details={"sector": sector},
            )
        sectors[str(sector)] = info
    if zone_wide_engage:
        everyone = [u.id for u in state.units if u.zone == zone.id and u.type != "artillery"]
        engaged.extend(everyone + [uid for uid in placements])
    for uid, lost in losses.items():
        if lost >= units[uid].men and uid not in removed:
            removed.append(uid)
            ctx.effect("oz.destroyed", f"{uid} has no castings left", ["OZ.Assault.C"], unit=uid)
    captured = taken == zone.capacity
    if captured:
        # the zone is held by the attackers still standing in it, not the defenders it
        # shattered (D.1) nor an attacker the melee left without castings
        holders = sorted(
            uid for uid in placements if units[uid].side == assault.attacker and uid not in removed
        )
        ctx.effect(
            "oz.zone_captured",
            f"{assault.attacker} holds every sector of {zone.id}",
            ["OZ.Trafficability"],
            by=holders,
            details={"zone": zone.id, "earliest_exit": state.turn + zone.trafficability},
        )
    engaged_final = sorted({u for u in engaged if u not in removed})
    summary = ", ".join(f"sector {k}: {v['result']}" for k, v in sectors.items())
    return ctx.finish(
        f"Assault on {zone.id}: {summary}.",
        {
            "zone": zone.id,
            "turn": state.turn,
            "called_off": False,
            "sectors": sectors,
            "placements": placements,
            "losses": losses,
            "removed": removed,
            "engaged": engaged_final,
            "captured": captured,
        },
    )


def _all(sectors: Mapping[int, list[str]]) -> list[str]:
    return [uid for ids in sectors.values() for uid in ids]


def _spread(losses: dict[str, int], units: dict[str, Unit], ids: list[str], count: int) -> None:
    """Casualties fall on the sector's units in the order allocated, each to its last man."""
    left = count
    for uid in ids:
        if left <= 0:
            return
        room = units[uid].men - losses.get(uid, 0)
        take = min(room, left)
        if take > 0:
            losses[uid] = losses.get(uid, 0) + take
            left -= take


def apply(board: Board, state: State, decision: str, ruling: Ruling) -> State:
    """The state after the resolved allocation ``decision`` (its ruling's typed outcome)."""
    return apply_outcome(board, state, decision, AssaultOutcome.model_validate(ruling.details))


def apply_outcome(board: Board, state: State, decision: str, out: AssaultOutcome) -> State:
    """Casualties, placements, removals and engagements of a resolved assault or melee round;
    the defenders of a sector left engaged test morale (OZ.Morale)."""
    new = state.model_copy(deep=True)
    assault = _assault_for(state, decision)
    if assault is None:
        return new
    zone = board.zones[assault.zone]
    removed = set(out.removed)
    engaged = set(out.engaged)
    for unit in new.units:
        unit.men -= out.losses.get(unit.id, 0)
        sector = out.placements.get(unit.id)
        if sector is not None:
            if unit.side == assault.attacker or unit.at != "garrison" or unit.zone != zone.id:
                unit.entered_turn = state.turn
            unit.zone, unit.at, unit.sector = zone.id, "garrison", sector
            unit.engaged = False  # until this melee's result engages it again (D.2-D.4)
        if unit.id in engaged:
            unit.engaged = True
    kinds = {u.id: u.type for u in state.units}
    due = dict(new.morale_due)
    for result in out.sectors.values():
        if result.result == "engaged":
            for uid in result.defenders:
                if kinds.get(uid) != "artillery" and uid not in removed:
                    due[uid] = "melee"
    new.morale_due = due
    melees = dict(new.melees)
    if engaged - removed:
        melees[zone.id] = assault.attacker
    else:
        melees.pop(zone.id, None)
    new.melees = melees
    new.removed = [*new.removed, *sorted(removed)]
    new.units = [u for u in new.units if u.id not in removed]
    new.assaults = [a for a in new.assaults if a != assault]
    return new


def sealed_decisions(state: State) -> dict[str, SealedDecision]:
    """The troop allocations open in the Objective Combat phase: one per assault declared this
    turn, each a sealed order of both sides (OZ.Assault.B.1)."""
    if state.phase != "objective_combat":
        return {}
    out: dict[str, SealedDecision] = {}
    for a in state.assaults:
        if a.turn != state.turn:
            continue
        did = decision_id(a.zone, a.turn)
        out[did] = SealedDecision(
            id=did,
            title=f"Troop allocation for the assault on {a.zone} (turn {a.turn})",
            sides=(a.attacker, a.defender),
            order_model=allocation_model(a.zone),
            citation=CATALOG.cite("OZ.Assault.B.1"),
        )
    return out
