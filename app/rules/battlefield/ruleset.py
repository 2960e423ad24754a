"""The ``battlefield`` ruleset: seed 003 as one game on one measured table.

A composition on the plug-in interface: the board and state hold a ``terrain`` part and an
``objective-zones`` part; each action is judged by the parts it concerns (see moves.py and
fire.py) and one ruling gathers their citations. The sequence of play, the sealed troop
allocation and the melee dice are the objective-zone rules' own.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pydantic import BaseModel

from app.rules.base import (
    InvalidQuery,
    Position,
    QuerySpec,
    RulesError,
    Ruleset,
    SealedDecision,
    SequenceOfPlay,
    Sides,
)
from app.rules.battlefield import queries
from app.rules.battlefield.catalog import CATALOG, INTERPRETATIONS, RULESET_ID, SOURCE
from app.rules.battlefield.compose import Judgement
from app.rules.battlefield.examples import EXAMPLE
from app.rules.battlefield.fire import (
    judge_bombard,
    judge_fire,
    judge_garrison_fire,
    judge_support,
)
from app.rules.battlefield.models import (
    ACTION_MODELS,
    ZONE_ACTIONS,
    Board,
    Bombard,
    Charge,
    Fire,
    GarrisonFire,
    Hold,
    Move,
    Options,
    Scenario,
    State,
    Support,
    allocation_model,
)
from app.rules.battlefield.moves import ZONES, apply_move, judge_hold, judge_move
from app.rules.battlefield.setup import build
from app.rules.objective_zones import models as oz
from app.rules.ruling import Ruling


def _options(options: Any) -> Options:
    return options if isinstance(options, Options) else Options.model_validate(options or {})


def sync_table(board: Board, before: State, zones: oz.State) -> State:
    """The state after the zone part changed: units it removed are gone from the table,
    attackers it placed in a zone stand where their charge ended."""
    gone = set(zones.removed) - set(before.zones.removed)
    old = {u.id: u for u in before.zones.units}
    charges = {c.unit: c for c in before.table.charges}
    units = []
    for u in before.table.units:
        if u.id in gone:
            u = u.model_copy(update={"destroyed": True})
        now = next((z for z in zones.units if z.id == u.id), None)
        was = old.get(u.id)
        if (
            now is not None
            and was is not None
            and now.zone
            and was.zone != now.zone
            and u.id in charges
        ):
            u = u.model_copy(update={"at": tuple(charges[u.id].path[-1])})
        units.append(u)
    table = before.table.model_copy(update={"units": units})
    return before.model_copy(update={"table": table, "zones": zones})


class BattlefieldRuleset(Ruleset[Board, State, Any, Options]):
    """Seed 003 on one table: terrain, objective zones, assaults."""

    id = RULESET_ID
    version = "0.3.0"
    title = "Seed 003 on one table: terrain and objective zones (measured)"
    description = (
        "One measured table in yards: terrain features and objective zones drawn on it; moves "
        "that cross a zone's border enter it, leaving obeys trafficability and road exits, "
        "charges into a zone declare its assault, resolved by the sealed allocation."
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
        scenario = self.coerce_scenario(scenario)
        return build(scenario, _options(options))

    def sides(self, board: Board) -> Sides:
        return ZONES.sides(board.zones)

    def actor_side(self, board: Board, state: State, action: Any) -> str | None:
        if isinstance(action, oz.ContinueMelee):
            return None
        unit = next((u for u in state.table.units if u.id == action.unit), None)
        return unit.side if unit is not None else None

    def adjudicate(
        self, board: Board, state: State, action: Any, options: Options, dice: Sequence[int] = ()
    ) -> Ruling:
        j = Judgement(board, state, _options(options))
        j.dice = tuple(dice)
        if isinstance(action, Move | Charge):
            return j.ruling(judge_move(j, action))
        if isinstance(action, Hold):
            return j.ruling(judge_hold(j, action))
        if isinstance(action, Fire):
            return j.ruling(judge_fire(j, action))
        if isinstance(action, Bombard):
            return j.ruling(judge_bombard(j, action))
        if isinstance(action, GarrisonFire):
            return j.ruling(judge_garrison_fire(j, action))
        if isinstance(action, Support):
            return j.ruling(judge_support(j, action))
        if isinstance(action, ZONE_ACTIONS):
            return ZONES.adjudicate(board.zones, state.zones, action, j.options.zones(), dice)
        raise RulesError(f"not a battlefield action: {type(action).__name__}")

    def apply(self, board: Board, state: State, action: Any, ruling: Ruling) -> State:
        if not ruling.legal:
            raise RulesError("an illegal action cannot be applied")
        j = Judgement(board, state, board.options)
        if isinstance(action, Move | Charge):
            return apply_move(j, action, ruling.details)
        if isinstance(action, Hold):
            postures = {**state.postures, action.unit: action.posture}
            return state.model_copy(update={"postures": postures}, deep=True)
        if isinstance(action, ZONE_ACTIONS):
            zones = ZONES.apply(board.zones, state.zones, action, ruling)
            return sync_table(board, state, zones)
        if isinstance(action, Support):
            zones = state.zones.model_copy(deep=True)
            for a in zones.assaults:
                if a.zone == action.zone and a.turn == zones.turn:
                    a.batteries.append(action.unit)
            return state.model_copy(update={"zones": zones})
        if isinstance(action, Bombard):
            inner = Ruling(legal=True, summary="", details=ruling.details.get("zones", {}))
            zones = ZONES.apply(board.zones, state.zones, action, inner)
            return sync_table(board, state, zones)
        return state.model_copy(deep=True)

    def dice_needed(self, board: Board, state: State, action: Any) -> Sequence[int]:
        if isinstance(action, Bombard):
            return ZONES.dice_needed(board.zones, state.zones, action)
        if isinstance(action, ZONE_ACTIONS):
            return ZONES.dice_needed(board.zones, state.zones, action)
        if isinstance(action, Move):
            ruling = self.adjudicate(board, state, action, board.options)
            pending = [
                e
                for e in ruling.effects
                if e.kind == "terrain.wheel_check" and e.details.get("pending")
            ]
            return [10] * len(pending)
        return ()

    # -- sequence of play and the sealed allocation: the objective-zone rules' own --------

    def sequence_of_play(self, board: Board) -> SequenceOfPlay:
        return ZONES.sequence_of_play(board.zones)

    def position(self, board: Board, state: State) -> Position:
        return ZONES.position(board.zones, state.zones)

    def advance_phase(self, board: Board, state: State) -> State:
        zones = ZONES.advance_phase(board.zones, state.zones)
        if zones.phasing_side == state.zones.phasing_side and zones.turn == state.zones.turn:
            return state.model_copy(update={"zones": zones})
        # a new player turn: charges, allowances and prolonge start afresh
        table = state.table.model_copy(update={"charges": []})
        return State(table=table, zones=zones, postures=dict(state.postures))

    def sealed_decisions(self, board: Board, state: State) -> Mapping[str, SealedDecision]:
        out = {}
        for did, d in ZONES.sealed_decisions(board.zones, state.zones).items():
            zone = getattr(d.order_model, "zone_id", None) or ""
            out[did] = replace(d, order_model=allocation_model(zone))
        return out

    def judge_order(
        self,
        board: Board,
        state: State,
        decision: SealedDecision,
        side: str,
        order: BaseModel,
        options: Options,
    ) -> Ruling:
        return ZONES.judge_order(
            board.zones, state.zones, decision, side, order, _options(options).zones()
        )

    def sealed_dice_needed(
        self, board: Board, state: State, decision: str, orders: Mapping[str, BaseModel]
    ) -> Sequence[int]:
        return ZONES.sealed_dice_needed(board.zones, state.zones, decision, orders)

    def resolve_sealed(
        self,
        board: Board,
        state: State,
        decision: str,
        orders: Mapping[str, BaseModel],
        options: Options,
        dice: Sequence[int] = (),
    ) -> Ruling:
        return ZONES.resolve_sealed(
            board.zones, state.zones, decision, orders, _options(options).zones(), dice
        )

    def apply_sealed(
        self,
        board: Board,
        state: State,
        decision: str,
        orders: Mapping[str, BaseModel],
        ruling: Ruling,
    ) -> State:
        zones = ZONES.apply_sealed(board.zones, state.zones, decision, orders, ruling)
        return sync_table(board, state, zones)

    # -- read side ----------------------------------------------------------------------

    def queries(self) -> Mapping[str, QuerySpec]:
        return queries.SPECS

    def example_scenario(self) -> dict[str, Any] | None:
        return copy.deepcopy(EXAMPLE)


__all__ = ["BattlefieldRuleset", "InvalidQuery"]
