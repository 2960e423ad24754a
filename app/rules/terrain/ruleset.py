"""The ``terrain`` ruleset (seed 003, Terrain Definitions A.1-A.47) as a plug-in: wiring only,
each action kind to the rule family that judges and applies it."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from app.rules.base import AvailableActions, QuerySpec, RulesError, Ruleset, Sides
from app.rules.ruling import Ruling
from app.rules.terrain import movement, results, sight
from app.rules.terrain.available import available_actions
from app.rules.terrain.catalog import CATALOG, INTERPRETATIONS, RULESET_ID, SOURCE
from app.rules.terrain.examples import EXAMPLE
from app.rules.terrain.ground import Ctx, find_unit, judging
from app.rules.terrain.models import (
    ACTION_MODELS,
    Action,
    Board,
    DeclareCharge,
    Fire,
    LosParams,
    Move,
    Options,
    Scenario,
    ScenarioCheckParams,
    State,
    TerrainAtParams,
)
from app.rules.terrain.queries import run_line_of_sight, run_scenario_check, run_terrain_at
from app.rules.terrain.setup import build

Judge = Callable[[Ctx, Any], Ruling]

JUDGES: dict[type[BaseModel], Judge] = {
    Move: movement.judge_move,
    DeclareCharge: movement.judge_charge,
    Fire: sight.judge_fire,
}
"""Action kind -> the rule family's judge."""


def _options(options: Any) -> Options:
    return options if isinstance(options, Options) else Options.model_validate(options or {})


class TerrainRuleset(Ruleset[Board, State, Action, Options]):
    """Measured table-top terrain: woods, rough, water, buildings and works, in yards."""

    id = RULESET_ID
    version = "0.5.0"
    title = "Terrain Definitions (measured horse-and-musket rules)"
    description = (
        "Table-top terrain measured in yards: who may enter woods, rough and buildings, how "
        "far, fords and streams, broken wheels, and what blocks line of sight."
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
        unit = find_unit(state, action.unit)
        return unit.side if unit else None

    def dice_needed(self, board: Board, state: State, action: Action) -> Sequence[int]:
        return movement.dice_needed(board, state, action) if isinstance(action, Move) else ()

    def adjudicate(
        self, board: Board, state: State, action: Action, options: Options, dice: Sequence[int] = ()
    ) -> Ruling:
        judge = JUDGES.get(type(action))
        if judge is None:
            raise RulesError(f"not a terrain action: {type(action).__name__}")
        return judge(judging(board, state, _options(options), dice), action)

    def apply(self, board: Board, state: State, action: Action, ruling: Ruling) -> State:
        if not ruling.legal:
            raise RulesError("cannot apply an illegal action")
        if isinstance(action, Move):
            return movement.apply_move(state, action, ruling)
        if isinstance(action, DeclareCharge):
            return movement.apply_charge(state, action, ruling)
        return state.model_copy(deep=True)

    def available_actions(
        self, board: Board, state: State, options: Options, seat: str
    ) -> AvailableActions:
        return available_actions(board, state, seat)

    def queries(self) -> Mapping[str, QuerySpec]:
        return {
            "line-of-sight": QuerySpec(
                name="line-of-sight",
                description="Is the sight line between two points (`from`, `to` as 'x,y' "
                "yards) clear? Lists each blocking feature with its clause.",
                params=LosParams,
                run=run_line_of_sight,
                result=results.LineOfSight,
            ),
            "terrain-at": QuerySpec(
                name="terrain-at",
                description="The features at a point (`at` as 'x,y' yards) and what each "
                "means for every unit type.",
                params=TerrainAtParams,
                run=run_terrain_at,
                result=results.TerrainAt,
            ),
            "scenario-check": QuerySpec(
                name="scenario-check",
                description="Scenario-design guidance (A.1x-A.3x): findings, never refusals.",
                params=ScenarioCheckParams,
                run=run_scenario_check,
                result=results.ScenarioCheck,
            ),
        }

    def example_scenario(self) -> dict[str, Any] | None:
        return copy.deepcopy(EXAMPLE)
