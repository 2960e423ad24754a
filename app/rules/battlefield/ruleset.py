"""The ``battlefield`` ruleset: seed 003 as one game on one measured table.

A composition on the plug-in interface: the board and state hold a ``terrain`` part and an
``objective-zones`` part; each action is judged by the parts it concerns (``moves``, ``fire``)
and one ruling gathers their citations (the judgement of ``table``). The sequence of play,
the sealed troop allocation and the melee dice are the objective-zone rules' own. Wiring only.
"""

from __future__ import annotations

from typing import Any

from app.rules.base import (
    Position,
    Ruleset,
    SequenceOfPlay,
    Sides,
)
from app.rules.battlefield import fire, moves, queries, sequence, table, zone_part
from app.rules.battlefield.available import available_actions
from app.rules.battlefield.catalog import RULESET_ID, TEXT
from app.rules.battlefield.models import (
    Action,
    Board,
    Bombard,
    BombardOutcome,
    Charge,
    Fire,
    GarrisonFire,
    Hold,
    Move,
    MoveOutcome,
    Options,
    Scenario,
    State,
    Support,
)
from app.rules.battlefield.moves import ZONES
from app.rules.battlefield.setup import build
from app.rules.battlefield.table import SOURCES, Ctx, sync_table, table_unit
from app.rules.dispatch import Kind, NoOutcome, Sealed

KINDS: dict[str, Kind[Ctx, Board, State, Any, Any]] = {
    "move": Kind(
        Move,
        moves.judge_move,
        moves.apply_move,
        MoveOutcome,
        dice=zone_part.move_dice,
        names=moves.unit_names,
    ),
    "charge": Kind(
        Charge,
        moves.judge_move,
        moves.apply_move,
        MoveOutcome,
        names=moves.unit_names,
        despite_phase=moves.charge_bans,
        despite_first=True,
    ),
    "hold": Kind(Hold, moves.judge_hold, moves.apply_hold, NoOutcome, names=moves.unit_names),
    "fire": Kind(Fire, fire.judge_fire, fire.apply_nothing, NoOutcome, phase_of_part=True),
    "bombard": Kind(
        Bombard,
        fire.judge_bombard,
        fire.apply_bombard,
        BombardOutcome,
        dice=zone_part.zone_dice,
        phase_of_part=True,
    ),
    "garrison_fire": Kind(
        GarrisonFire, fire.judge_garrison_fire, fire.apply_nothing, NoOutcome, phase_of_part=True
    ),
    "support": Kind(
        Support, fire.judge_support, fire.apply_support, NoOutcome, names=fire.support_names
    ),
    **{
        name: zone_part.zone_kind(name)
        for name in ("transfer", "withdraw", "unlimber", "morale_test", "continue_melee")
    },
}
"""Action kind -> its model, the judge and apply, the outcome apply takes, and the kind's
dice (a move's wheel checks, the zone part's bombardment, morale and melee dice); what the kit
checks before the phase (``names``) and cites with a phase refusal (a charge's counter-charge
ban, before it); ``phase_of_part``: the zone actions keep the zone rules' own phase refusal."""


class BattlefieldRuleset(Ruleset[Board, State, Action, Options]):
    """Seed 003 on one table: terrain, objective zones, assaults."""

    id = RULESET_ID
    version = "0.14.0"
    state_revalidates = True  # tests/db/test_kept_state.py checks every rule case's states
    title = "Seed 003 on one table: terrain and objective zones (measured)"
    description = (
        "One measured table in yards: terrain features and objective zones drawn on it; moves "
        "that cross a zone's border enter it, leaving obeys trafficability and road exits, "
        "charges into a zone declare its assault, resolved by the sealed allocation."
    )
    text = TEXT
    cites_from = SOURCES
    scenario_model = Scenario
    builder = build
    kinds = KINDS
    refusal = table.refused
    phase_rule = sequence.PHASE_RULE
    query_table = queries.QUERIES
    example = "millers-crossing.json"

    def sides(self, board: Board) -> Sides:
        return ZONES.sides(board.zones)

    def unit_side(self, board: Board, state: State, unit_id: str) -> str | None:
        unit = table_unit(state, unit_id)
        return unit.side if unit is not None else None

    # -- sequence of play and the sealed allocation: the objective-zone rules' own --------

    def sequence_of_play(self, board: Board) -> SequenceOfPlay:
        return sequence.sequence_of_play(board.zones)

    def position(self, board: Board, state: State) -> Position:
        return ZONES.position(board.zones, state.zones)

    def advance_phase(self, board: Board, state: State) -> State:
        return zone_part.advance_phase(board, state)

    sealed = Sealed[Board, State](
        decisions=zone_part.sealed_decisions,
        judge=lambda board, state, decision, side, order, options: ZONES.judge_order(
            board.zones, state.zones, decision, side, order, options.zones()
        ),
        dice=lambda board, state, did, orders: ZONES.sealed_dice_needed(
            board.zones, state.zones, did, orders
        ),
        resolve=lambda board, state, did, orders, options, dice: ZONES.resolve_sealed(
            board.zones, state.zones, did, orders, options.zones(), dice
        ),
        apply=lambda board, state, did, orders, ruling: sync_table(
            board, state, ZONES.apply_sealed(board.zones, state.zones, did, orders, ruling)
        ),
    )

    # -- read side ----------------------------------------------------------------------

    offer = available_actions


__all__ = ["Action", "BattlefieldRuleset"]
