"""The ``terrain`` ruleset (seed 003, Terrain Definitions A.1-A.47) as a plug-in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from app.rules.base import AvailableActions, QuerySpec, RulesError, Ruleset, Sides
from app.rules.ruling import Ruling
from app.rules.terrain import results
from app.rules.terrain.available import available_actions
from app.rules.terrain.catalog import CATALOG, INTERPRETATIONS, RULESET_ID, SOURCE
from app.rules.terrain.examples import EXAMPLE
from app.rules.terrain.geometry import path_line
from app.rules.terrain.models import (
    ACTION_MODELS,
    Board,
    Charge,
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
from app.rules.terrain.rules import Ctx, crossings, find_unit, judge_fire, judge_path, wheel_checks
from app.rules.terrain.setup import build


class TerrainRuleset(Ruleset[Board, State, Any, Options]):
    """Measured table-top terrain: woods, rough, water, buildings and works, in yards."""

    id = RULESET_ID
    version = "0.4.0"
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
        if not isinstance(scenario, Scenario):
            scenario = Scenario.model_validate(
                scenario.model_dump() if isinstance(scenario, BaseModel) else scenario
            )
        if not isinstance(options, Options):
            options = Options.model_validate(options or {})
        return build(scenario, options)

    def sides(self, board: Board) -> Sides:
        return Sides(
            names=tuple(s.id for s in board.sides),
            labels={s.id: s.label or s.id for s in board.sides},
        )

    def actor_side(self, board: Board, state: State, action: Any) -> str | None:
        unit = find_unit(state, action.unit)
        return unit.side if unit else None

    def dice_needed(self, board: Board, state: State, action: Any) -> Sequence[int]:
        if not isinstance(action, Move):
            return ()
        unit = find_unit(state, action.unit)
        if unit is None or unit.destroyed:
            return ()
        line = path_line(unit.at, action.path)
        if line.length <= 0:
            return ()
        return [10] * len(wheel_checks(unit, crossings(board, line), board.options))

    def adjudicate(
        self, board: Board, state: State, action: Any, options: Options, dice: Sequence[int] = ()
    ) -> Ruling:
        ctx = Ctx(board, state, options)
        unit = find_unit(state, action.unit)
        if unit is None or unit.destroyed:
            ctx.violate(
                "terrain.unknown_unit", f"no unit {action.unit} on the table", (), unit=action.unit
            )
            return ctx.ruling("")
        if any(not 0 <= d <= 10 for d in dice):
            raise RulesError("a d10 reads 0-10")
        if isinstance(action, Move):
            judge_path(ctx, unit, action.path, charge=False, dice=dice)
            end = action.path[-1]
            return ctx.ruling(
                f"{unit.id} moves {ctx.details.get('path_yards')} yards to ({end[0]:g}, {end[1]:g})"
            )
        if isinstance(action, DeclareCharge):
            judge_path(ctx, unit, action.path, charge=True, dice=())
            return ctx.ruling(f"{unit.id} may charge along the declared path")
        assert isinstance(action, Fire)
        target = find_unit(state, action.target)
        if target is None or target.destroyed:
            ctx.violate(
                "terrain.unknown_unit",
                f"no unit {action.target} on the table",
                (),
                unit=action.target,
            )
            return ctx.ruling("")
        judge_fire(ctx, unit, target)
        return ctx.ruling(f"{unit.id} has a clear line of sight to {target.id}")

    def apply(self, board: Board, state: State, action: Any, ruling: Ruling) -> State:
        if not ruling.legal:
            raise RulesError("cannot apply an illegal action")
        if isinstance(action, Fire):
            return state.model_copy(deep=True)
        if isinstance(action, DeclareCharge):
            charges = [c for c in state.charges if c.unit != action.unit]
            charges.append(Charge(unit=action.unit, path=list(action.path)))
            return state.model_copy(update={"charges": charges}, deep=True)
        destroyed_at = ruling.details.get("destroyed_at")
        units = []
        for u in state.units:
            if u.id == action.unit:
                if destroyed_at is not None:
                    u = u.model_copy(update={"at": tuple(destroyed_at), "destroyed": True})
                else:
                    u = u.model_copy(update={"at": tuple(action.path[-1])})
            units.append(u)
        return state.model_copy(update={"units": units}, deep=True)

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
        import copy

        return copy.deepcopy(EXAMPLE)
