"""The ``objective-zones`` ruleset (seed 003, Operational Objective Zones) as a plug-in:
wiring only -- each action kind to the rule family that judges and applies it."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from app.rules.base import (
    AvailableActions,
    Position,
    QuerySpec,
    RulesError,
    Ruleset,
    SealedDecision,
    SequenceOfPlay,
    Sides,
)
from app.rules.objective_zones import (
    assault,
    checks,
    combat,
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
from app.rules.objective_zones.examples import EXAMPLE
from app.rules.objective_zones.models import (
    ACTION_MODELS,
    Action,
    Allocation,
    Board,
    Bombard,
    ContinueMelee,
    DeclareAssault,
    EnterZone,
    ExitZone,
    GarrisonFire,
    MoraleTest,
    Musketry,
    Options,
    Scenario,
    State,
    Transfer,
    Unlimber,
    Withdraw,
)
from app.rules.objective_zones.setup import build
from app.rules.objective_zones.zones import Ctx, judging
from app.rules.ruling import Ruling

Judge = Callable[[Ctx, Any], Ruling]
Apply = Callable[[Ctx, Any, Ruling], State]

JUDGES: dict[type[BaseModel], Judge] = {
    EnterZone: movement.judge_enter,
    ExitZone: movement.judge_exit,
    Transfer: movement.judge_transfer,
    Withdraw: movement.judge_withdraw,
    Musketry: fire.judge_musketry,
    GarrisonFire: fire.judge_garrison_fire,
    Bombard: fire.judge_bombard,
    DeclareAssault: assault.judge_declare,
    Unlimber: support.judge_unlimber,
    MoraleTest: morale.judge_morale_test,
    ContinueMelee: engaged.judge_continue,
}
"""Action kind -> the rule family's judge."""

APPLIES: dict[type[BaseModel], Apply] = {
    EnterZone: movement.apply_enter,
    ExitZone: movement.apply_exit,
    Transfer: movement.apply_transfer,
    Withdraw: movement.apply_withdraw,
    Bombard: fire.apply_bombard,
    DeclareAssault: assault.apply_declare,
    Unlimber: support.apply_unlimber,
    MoraleTest: morale.apply_morale_test,
    ContinueMelee: engaged.apply_continue,
}
"""Action kind -> how a legal action changes the state (fire on the table changes nothing)."""


def _options(options: Any) -> Options:
    return options if isinstance(options, Options) else Options.model_validate(options or {})


class ObjectiveZonesRuleset(Ruleset[Board, State, Action, Options]):
    """Operational Objective Zones: zone displays, sectors, and secret assault allocation."""

    id = RULESET_ID
    version = "1.2.0"
    title = "Operational Objective Zones (measured horse-and-musket rules)"
    description = (
        "Villages, farms, redoubts and bridges fought over as zones with an In-Transit box and "
        "garrison sectors; assaults resolved by a secret, simultaneous troop allocation."
    )
    source = SOURCE
    catalog = CATALOG
    interpretations = INTERPRETATIONS
    scenario_model = Scenario
    options_model = Options
    board_model = Board
    state_model = State
    action_models = ACTION_MODELS

    def setup(self, scenario: Any, options: Options) -> tuple[Board, State]:
        return build(self.coerce_scenario(scenario), _options(options))

    def sides(self, board: Board) -> Sides:
        return Sides(
            names=tuple(s.id for s in board.sides),
            labels={s.id: s.label or s.id for s in board.sides},
        )

    def actor_side(self, board: Board, state: State, action: Action) -> str | None:
        return checks.actor_side(state, action)

    def adjudicate(
        self,
        board: Board,
        state: State,
        action: Action,
        options: Options,
        dice: Sequence[int] = (),
    ) -> Ruling:
        """Judge an action. Pure: same board, state, action and options, same ruling."""
        judge = JUDGES.get(type(action))
        if judge is None:
            raise RulesError(f"not an objective-zones action: {type(action).__name__}")
        return judge(judging(board, state, _options(options), dice), action)

    def apply(self, board: Board, state: State, action: Action, ruling: Ruling) -> State:
        if not ruling.legal:
            raise RulesError("an illegal action cannot be applied")
        change = APPLIES.get(type(action))
        if change is None:
            return state.model_copy(deep=True)
        return change(judging(board, state, board.options), action, ruling)

    def dice_needed(self, board: Board, state: State, action: Action) -> Sequence[int]:
        ctx = judging(board, state, board.options)
        if isinstance(action, Bombard):
            return fire.bombard_dice(ctx, action)
        if isinstance(action, MoraleTest):
            return morale.dice_needed(ctx, action)
        if isinstance(action, ContinueMelee):
            return engaged.dice_needed(ctx, action)
        return ()

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
        return combat.judge_order(board, state, zone, side, order, _options(options))

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
        return combat.resolve(board, state, decision, orders, _options(options), dice)

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

    def queries(self) -> Mapping[str, QuerySpec]:
        return queries.SPECS

    def example_scenario(self) -> dict[str, Any] | None:
        return copy.deepcopy(EXAMPLE)
