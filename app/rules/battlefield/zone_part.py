"""The objective-zone part of a battlefield game: the actions it judges alone (on its part of
the game; units it removes leave the table), its sequence of play (a new player turn starts
the table's charges, allowances and prolonge afresh), its sealed troop allocation and the dice
its rules need (each the ``Kind.dice`` of the kinds that roll them)."""

from __future__ import annotations

from dataclasses import replace

from app.rules.base import SealedDecision
from app.rules.battlefield.models import Allocation, Board, Bombard, Move, State
from app.rules.battlefield.moves import ZONES, judge_move
from app.rules.battlefield.sequence import PHASES
from app.rules.battlefield.table import Ctx, judging, sync_table
from app.rules.dispatch import Kind, Outcome
from app.rules.objective_zones import models as oz
from app.rules.objective_zones.combat import allocation_model
from app.rules.phases import is_open
from app.rules.ruling import Ruling

ZoneAction = oz.Transfer | oz.Withdraw | oz.Unlimber | oz.MoraleTest | oz.ContinueMelee
"""The objective-zone actions a battlefield game takes as they are."""


def zone_kind(name: str) -> Kind[Ctx, Board, State, ZoneAction, Outcome]:
    """The objective-zone part's kind ``name``, played on the zone part of the game."""
    inner = ZONES.kinds[name]

    def judge(ctx: Ctx, action: ZoneAction) -> Ruling:
        zones, options = ctx.state.zones, ctx.options.zones()
        return ZONES.adjudicate(ctx.board.zones, zones, action, options, ctx.dice)

    def apply(board: Board, state: State, action: ZoneAction, out: Outcome) -> State:
        return sync_table(board, state, inner.apply(board.zones, state.zones, action, out))

    return Kind(
        inner.model,
        judge,
        apply,
        inner.outcome,
        inner.owner,
        dice=zone_dice,
        unit_of=inner.unit_of,
        phase_of_part=True,
    )


def advance_phase(board: Board, state: State) -> State:
    zones = ZONES.advance_phase(board.zones, state.zones)
    if zones.phasing_side == state.zones.phasing_side and zones.turn == state.zones.turn:
        return state.model_copy(update={"zones": zones})
    # a new player turn: charges, allowances and prolonge start afresh
    table = state.table.model_copy(update={"charges": []})
    return State(table=table, zones=zones, postures=dict(state.postures))


def sealed_decisions(board: Board, state: State) -> dict[str, SealedDecision]:
    """The zone part's allocations, each validated against the battlefield game."""
    out = {}
    for did, d in ZONES.sealed_decisions(board.zones, state.zones).items():
        zone = getattr(d.order_model, "zone_id", None) or ""
        out[did] = replace(d, order_model=allocation_model(zone, Allocation))
    return out


def move_dice(board: Board, state: State, action: Move) -> list[int]:
    """A move's broken-wheel checks still to roll (A.46); none out of its phase, where the
    move is refused before its judge."""
    if not is_open(PHASES, state.zones.phase, action.kind):
        return []
    ruling = judge_move(judging(board, state, board.options), action)
    pending = [
        e for e in ruling.effects if e.kind == "terrain.wheel_check" and e.details.get("pending")
    ]
    return [10] * len(pending)


def zone_dice(board: Board, state: State, action: ZoneAction | Bombard) -> list[int]:
    """The dice the zone part's rules need for an action it judges (a bombardment, a morale
    test, an engaged melee's round)."""
    return list(ZONES.dice_needed(board.zones, state.zones, action))
