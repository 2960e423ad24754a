"""The ``objective-zones`` ruleset (seed 003, Operational Objective Zones) as a plug-in.

Wiring only: the rules live in the package's rule-family modules (``movement``, ``fire``,
``assault``, ``support``, ``morale``, ``combat``, ``engaged``, over the facts of ``zones`` and
the shared ``checks``), the setup in ``setup``, the sequence of play in ``sequence``, the
queries in ``queries``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from app.rules.base import (
    AvailableActions,
    Position,
    Ruleset,
    SealedDecision,
    SequenceOfPlay,
)
from app.rules.dispatch import Kind, NoOutcome
from app.rules.objective_zones import (
    assault,
    combat,
    dice,
    engaged,
    fire,
    morale,
    movement,
    queries,
    sequence,
    support,
)
from app.rules.objective_zones.available import available_actions
from app.rules.objective_zones.catalog import CATALOG, INTERPRETATIONS, RULESET_ID, SOURCE
from app.rules.objective_zones.models import (
    Action,
    Allocation,
    AssaultOutcome,
    Board,
    Bombard,
    BombardOutcome,
    Charge,
    ContinueMelee,
    DeclareAssault,
    DeclareOutcome,
    EnterZone,
    ExitZone,
    GarrisonFire,
    MoraleTest,
    Musketry,
    Options,
    Placement,
    Scenario,
    State,
    Transfer,
    Unlimber,
    Withdraw,
)
from app.rules.objective_zones.setup import build
from app.rules.objective_zones.zones import Ctx
from app.rules.ruling import Ruling

KINDS: dict[str, Kind[Ctx, Board, State, Any, Any]] = {
    "enter": Kind(EnterZone, movement.judge_enter, movement.apply_enter, Placement),
    "exit": Kind(ExitZone, movement.judge_exit, movement.apply_exit, NoOutcome),
    "transfer": Kind(Transfer, movement.judge_transfer, movement.apply_transfer, Placement),
    "musketry": Kind(Musketry, fire.judge_musketry, fire.apply_nothing, NoOutcome),
    "garrison_fire": Kind(GarrisonFire, fire.judge_garrison_fire, fire.apply_nothing, NoOutcome),
    "bombard": Kind(
        Bombard, fire.judge_bombard, fire.apply_bombard, BombardOutcome, dice=dice.bombard
    ),
    "declare_assault": Kind(  # owned by the side of the first unit it names
        DeclareAssault,
        assault.judge_declare,
        assault.apply_declare,
        DeclareOutcome,
        unit_of=lambda a: a.units[0],
    ),
    "charge": Kind(Charge, assault.judge_charge, assault.apply_charge, NoOutcome),
    "withdraw": Kind(Withdraw, movement.judge_withdraw, movement.apply_withdraw, NoOutcome),
    "unlimber": Kind(Unlimber, support.judge_unlimber, support.apply_unlimber, NoOutcome),
    "morale_test": Kind(
        MoraleTest,
        morale.judge_morale_test,
        morale.apply_morale_test,
        NoOutcome,
        dice=dice.morale_test,
    ),
    "continue_melee": Kind(
        ContinueMelee,
        engaged.judge_continue,
        engaged.apply_continue,
        AssaultOutcome,
        "anyone",
        dice=dice.continue_melee,
    ),
}
"""Action kind -> its model, the rule family's judge and apply, the outcome apply takes, and
the kind's facts (owner, dice)."""


class ObjectiveZonesRuleset(Ruleset[Board, State, Action, Options]):
    """Operational Objective Zones: zone displays, sectors, and secret assault allocation."""

    id = RULESET_ID
    version = "1.8.0"
    title = "Operational Objective Zones (measured horse-and-musket rules)"
    description = (
        "Villages, farms, redoubts and bridges fought over as zones with an In-Transit box and "
        "garrison sectors; assaults resolved by a secret, simultaneous troop allocation."
    )
    source = SOURCE
    catalog = CATALOG
    interpretations = INTERPRETATIONS
    scenario_model = Scenario
    builder = build
    kinds = KINDS
    phase_rule = sequence.PHASE_RULE
    query_table = queries.QUERIES
    example = "example.json"

    # -- sequence of play --------------------------------------------------------------------

    def sequence_of_play(self, board: Board) -> SequenceOfPlay:
        return sequence.sequence_of_play(board)

    def position(self, board: Board, state: State) -> Position:
        return sequence.position(state)

    def advance_phase(self, board: Board, state: State) -> State:
        return sequence.advance_phase(board, state)

    # -- the sealed allocation -------------------------------------------------------------

    def sealed_decisions(self, board: Board, state: State) -> Mapping[str, SealedDecision]:
        return combat.sealed_decisions(state)

    def judge_order(
        self,
        board: Board,
        state: State,
        decision: SealedDecision,
        side: str,
        order: BaseModel,
        options: Options,
    ) -> Ruling:
        zone = getattr(decision.order_model, "zone_id", None) or ""
        assert isinstance(order, Allocation)
        return combat.judge_order(board, state, zone, side, order, self.coerce_options(options))

    def sealed_dice_needed(
        self, board: Board, state: State, decision: str, orders: Mapping[str, BaseModel]
    ) -> Sequence[int]:
        return combat.dice_needed(board, state, decision, orders, board.options)

    def resolve_sealed(
        self,
        board: Board,
        state: State,
        decision: str,
        orders: Mapping[str, BaseModel],
        options: Options,
        dice: Sequence[int] = (),
    ) -> Ruling:
        return combat.resolve(board, state, decision, orders, self.coerce_options(options), dice)

    def apply_sealed(
        self,
        board: Board,
        state: State,
        decision: str,
        orders: Mapping[str, BaseModel],
        ruling: Ruling,
    ) -> State:
        return combat.apply(board, state, decision, ruling)

    # -- read side ----------------------------------------------------------------------------

    def available_actions(
        self, board: Board, state: State, options: Options, seat: str
    ) -> AvailableActions:
        return available_actions(board, state, seat)


__all__ = ["Action", "ObjectiveZonesRuleset"]
