"""Engaged melees go on (OZ.PostMelee.D.4): units locked in a zone fight again in later
turns, each in its sector, until one side is destroyed or withdraws. The round is judged
with the assault resolution (dice, levels, D.1-D.3) on the sectors as they stand."""

from __future__ import annotations

from app.rules.base import RulesError
from app.rules.judgement import Problem
from app.rules.objective_zones import combat
from app.rules.objective_zones.models import (
    Allocation,
    Assault,
    AssaultOutcome,
    Board,
    ContinueMelee,
    State,
)
from app.rules.objective_zones.zones import Ctx, garrison, judging, other_side, pending_assault
from app.rules.ruling import Ruling


def melee_round(ctx: Ctx, zone_id: str) -> tuple[State, str, dict[str, Allocation]] | Problem:
    """The state with this round's assault on the books, its decision id and the orders
    (every unit stays in its sector), or why no engaged melee goes on in the zone."""
    zone = ctx.board.zones.get(zone_id)
    if zone is None:
        return Problem("oz.unknown_zone", f"There is no zone {zone_id!r}.", ["OZ.Display"])
    attacker = ctx.state.melees.get(zone.id)
    engaged = [u for u in garrison(ctx.state, zone.id) if u.engaged and u.type != "artillery"]
    if attacker is None or {u.side for u in engaged} != {attacker, other_side(ctx.board, attacker)}:
        return Problem(
            "oz.no_engaged_melee",
            f"No engaged melee goes on in {zone.id}.",
            ["OZ.PostMelee.D.4"],
        )
    if pending_assault(ctx.state, zone.id) is not None:
        return Problem(
            "oz.already_assaulted",
            f"{zone.id} is assaulted this turn: the sealed allocation settles it.",
            ["OZ.Assault.A", "OZ.PostMelee.D.4"],
        )
    defender = other_side(ctx.board, attacker)
    orders: dict[str, Allocation] = {}
    for side in (attacker, defender):
        sectors: dict[int, list[str]] = {}
        for u in garrison(ctx.state, zone.id, side):
            if u.sector is not None and u.type != "artillery":
                sectors.setdefault(u.sector, []).append(u.id)
        orders[side] = Allocation(sectors=sectors)
    units = [uid for ids in orders[attacker].sectors.values() for uid in ids]
    assault = Assault(
        zone=zone.id, attacker=attacker, defender=defender, units=units, turn=ctx.state.turn
    )
    state = ctx.state.model_copy(update={"assaults": [*ctx.state.assaults, assault]})
    return state, combat.decision_id(zone.id, ctx.state.turn), orders


def dice_needed(ctx: Ctx, a: ContinueMelee) -> list[int]:
    found = melee_round(ctx, a.zone)
    if isinstance(found, Problem):
        return []
    state, decision, orders = found
    return combat.dice_needed(ctx.board, state, decision, orders, ctx.options)


def judge_continue(ctx: Ctx, a: ContinueMelee) -> Ruling:
    dice = ctx.dice
    found = melee_round(ctx, a.zone)
    if isinstance(found, Problem):
        return ctx.refuse(found)
    state, decision, orders = found
    # only the engaged sectors are fought: the others are simply held (no B.4 check)
    opts = ctx.options.model_copy(update={"attack_every_sector": False})
    if not dice:
        need = combat.dice_needed(ctx.board, state, decision, orders, opts)
        ctx.cite("OZ.PostMelee.D.4")
        return ctx.finish(
            f"The melee in {a.zone} goes on: {len(need)} dice.", {"zone": a.zone, "dice": len(need)}
        )
    ruling = combat.resolve(ctx.board, state, decision, orders, opts, dice)
    note = ctx.effect(
        "oz.melee_continues",
        f"the engaged melee in {a.zone} goes on",
        ["OZ.PostMelee.D.4"],
        details={"zone": a.zone},
    )
    # the B.4 reading does not apply to a melee going on: drop it unless the game chose it
    refs = tuple(
        r
        for r in ruling.interpretations
        if r.id != "oz.attack-every-sector" or not ctx.options.attack_every_sector
    )
    return ruling.model_copy(
        update={
            "interpretations": refs,
            "effects": (note, *ruling.effects),
            "citations": (*ruling.citations, *ctx.citations()),
            "details": {**ruling.details, "decision": decision},
        }
    )


def apply_continue(board: Board, state: State, a: ContinueMelee, out: AssaultOutcome) -> State:
    found = melee_round(judging(board, state, board.options), a.zone)
    if isinstance(found, Problem):
        raise RulesError(found.message)
    return combat.apply_outcome(board, found[0], found[1], out)
