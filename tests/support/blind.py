"""``blind``: a blind-bidding test ruleset with one sealed decision per round.

Every side starts with a budget of points. Each round opens the sealed decision ``bid.r<n>``:
every side secretly bids some of its remaining points (section 2) and may add a short motto.
When the bids are revealed, each side's bid plus one six-sided die is its total; the unique
highest total wins the round and a point of score (section 3; equal highest totals: nobody
wins). A side whose bid is missing because the umpire opened the round early bids nothing
(section 4). Bids are spent whatever the outcome. After the last round the game is over.
A side may ``concede`` at any time (section 5), which also ends the game, or ``spend`` points
of its budget outside the bidding (section 6) -- which can leave a side unable to pay a bid it
already sealed: the reveal is then judged illegal (``blind.over_budget``).

The order model checks the bid against the side's remaining budget through the pydantic
validation context the service passes (``{"board", "state", "side", "options"}``), so an
unaffordable bid is refused when submitted, never after the reveal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.rules import (
    Catalog,
    Effect,
    QuerySpec,
    RuleSection,
    Ruleset,
    Ruling,
    Sides,
    Violation,
)
from app.rules.base import SealedDecision
from app.rules.judgement import Judgement

CATALOG = Catalog(
    "blind",
    [
        RuleSection(id="1", title="Budget", summary="Each side owns a stock of points."),
        RuleSection(id="2", title="Sealed bids", summary="Sides bid points in secret."),
        RuleSection(id="3", title="Resolution", summary="Bid plus a die; the best total wins."),
        RuleSection(id="4", title="Missing bids", summary="A side that did not bid bids zero."),
        RuleSection(id="5", title="Conceding", summary="A side may give up; the game ends."),
        RuleSection(id="6", title="Spending", summary="Points may be spent outside bidding."),
    ],
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BlindScenario(_Strict):
    sides: list[str] = Field(default_factory=lambda: ["red", "blue"], min_length=2, max_length=4)
    budget: int = Field(default=10, ge=0, le=1000)
    rounds: int = Field(default=3, ge=1, le=20)


class BlindOptions(_Strict):
    pass


class BlindBoard(_Strict):
    sides: list[str]
    budget: int
    rounds: int


class BlindState(_Strict):
    round: int = 1
    budgets: dict[str, int]
    scores: dict[str, int]
    conceded: list[str] = Field(default_factory=list)


class Bid(_Strict):
    """One side's sealed bid."""

    bid: int = Field(ge=0, le=1000, description="Points bid (spent whatever the outcome).")
    motto: str = Field(default="", max_length=80, description="Free text, revealed with the bid.")


class Concede(_Strict):
    kind: Literal["concede"] = "concede"
    side: str


class Spend(_Strict):
    kind: Literal["spend"] = "spend"
    side: str
    points: int = Field(ge=1, le=1000)


class StandingParams(_Strict):
    pass


def _decision_id(round_: int) -> str:
    return f"bid.r{round_}"


class BlindRuleset(Ruleset[BlindBoard, BlindState, Any, BlindOptions]):
    id = "blind"
    version = "1.0"
    title = "Blind bidding (test ruleset)"
    description = "Sealed bids each round; exercises sealed orders and dice."
    catalog = CATALOG
    scenario_model = BlindScenario
    options_model = BlindOptions
    board_model = BlindBoard
    state_model = BlindState
    action_models: ClassVar[Mapping[str, type[BaseModel]]] = {"concede": Concede, "spend": Spend}

    def setup(self, scenario: Any, options: BlindOptions) -> tuple[BlindBoard, BlindState]:
        assert isinstance(scenario, BlindScenario)
        board = BlindBoard(sides=scenario.sides, budget=scenario.budget, rounds=scenario.rounds)
        return board, BlindState(
            budgets={s: scenario.budget for s in scenario.sides},
            scores={s: 0 for s in scenario.sides},
        )

    def sides(self, board: BlindBoard) -> Sides:
        return Sides(names=tuple(board.sides))

    def actor_side(self, board: BlindBoard, state: BlindState, action: Any) -> str | None:
        return str(action.side)

    def adjudicate(
        self,
        board: BlindBoard,
        state: BlindState,
        action: Any,
        options: BlindOptions,
        dice: Sequence[int] = (),
    ) -> Ruling:
        cite = (CATALOG.cite("5"),)
        if action.side not in board.sides:
            return Ruling(
                legal=False,
                summary=f"There is no side {action.side}.",
                violations=(
                    Violation(code="blind.unknown_side", message="no such side", citations=cite),
                ),
                citations=cite,
            )
        if self.is_over(board, state):
            return Ruling(
                legal=False,
                summary="The game is over.",
                violations=(Violation(code="blind.over", message="game over", citations=cite),),
                citations=cite,
            )
        if isinstance(action, Spend):
            cite = (CATALOG.cite("6"),)
            if action.points > state.budgets[action.side]:
                return Ruling(
                    legal=False,
                    summary=f"{action.side} has only {state.budgets[action.side]} points.",
                    violations=(
                        Violation(
                            code="blind.over_budget", message="too few points", citations=cite
                        ),
                    ),
                    citations=cite,
                )
            return Ruling(
                legal=True, summary=f"{action.side} spends {action.points}.", citations=cite
            )
        return Ruling(legal=True, summary=f"{action.side} concedes.", citations=cite)

    def apply(
        self, board: BlindBoard, state: BlindState, action: Any, ruling: Ruling
    ) -> BlindState:
        if isinstance(action, Spend):
            budgets = dict(state.budgets)
            budgets[action.side] -= action.points
            return state.model_copy(update={"budgets": budgets})
        return state.model_copy(update={"conceded": [*state.conceded, action.side]})

    def is_over(self, board: BlindBoard, state: BlindState) -> bool:
        return bool(state.conceded) or state.round > board.rounds

    # -- the sealed decision ---------------------------------------------------------------

    def judge_order(
        self,
        board: BlindBoard,
        state: BlindState,
        decision: SealedDecision,
        side: str,
        order: BaseModel,
        options: BlindOptions,
    ) -> Ruling:
        assert isinstance(order, Bid)
        j = Judgement(CATALOG)
        j.cite("2")
        left = state.budgets.get(side, 0)
        if order.bid > left:
            j.reject(
                "blind.over_budget",
                f"a bid of {order.bid} exceeds the {left} points left",
                ["1"],
                location="/bid",
            )
        return j.finish(f"{side} may bid {order.bid}.")

    def sealed_decisions(
        self, board: BlindBoard, state: BlindState
    ) -> Mapping[str, SealedDecision]:
        if self.is_over(board, state):
            return {}
        decision = SealedDecision(
            id=_decision_id(state.round),
            title=f"Round {state.round} bid",
            sides=tuple(board.sides),
            order_model=Bid,
            citation=CATALOG.cite("2"),
        )
        return {decision.id: decision}

    def sealed_dice_needed(
        self,
        board: BlindBoard,
        state: BlindState,
        decision: str,
        orders: Mapping[str, BaseModel],
    ) -> Sequence[int]:
        return [6] * len(board.sides)

    def resolve_sealed(
        self,
        board: BlindBoard,
        state: BlindState,
        decision: str,
        orders: Mapping[str, BaseModel],
        options: BlindOptions,
        dice: Sequence[int] = (),
    ) -> Ruling:
        if decision != _decision_id(state.round):
            raise ValueError(f"decision {decision!r} is not open")
        bids: dict[str, int] = {}
        effects: list[Effect] = []
        violations: list[Violation] = []
        for side in board.sides:
            order = orders.get(side)
            if order is None:
                bids[side] = 0
                effects.append(
                    Effect(kind="blind.no_bid", unit=side, citations=(CATALOG.cite("4"),))
                )
                continue
            assert isinstance(order, Bid)
            if order.bid > state.budgets[side]:
                violations.append(
                    Violation(
                        code="blind.over_budget",
                        message=f"{side} bid more than it has",
                        unit=side,
                        citations=(CATALOG.cite("1"),),
                    )
                )
            bids[side] = order.bid
        if violations:
            return Ruling(
                legal=False,
                summary="A bid exceeds its side's budget.",
                violations=tuple(violations),
                citations=(CATALOG.cite("1"),),
            )
        rolls = dict(zip(board.sides, dice, strict=True))
        totals = {side: bids[side] + rolls[side] for side in board.sides}
        best = max(totals.values())
        leaders = [side for side, total in totals.items() if total == best]
        winner = leaders[0] if len(leaders) == 1 else None
        effects.append(
            Effect(
                kind="blind.round_won" if winner else "blind.round_tied",
                unit=winner,
                details={"totals": totals},
                citations=(CATALOG.cite("3"),),
            )
        )
        summary = (
            f"{winner} wins round {state.round} with {best}."
            if winner
            else f"Round {state.round} is tied at {best}."
        )
        return Ruling(
            legal=True,
            summary=summary,
            effects=tuple(effects),
            citations=(CATALOG.cite("2"), CATALOG.cite("3")),
            details={"bids": bids, "dice": rolls, "totals": totals, "winner": winner},
        )

    def apply_sealed(
        self,
        board: BlindBoard,
        state: BlindState,
        decision: str,
        orders: Mapping[str, BaseModel],
        ruling: Ruling,
    ) -> BlindState:
        bids: dict[str, int] = ruling.details["bids"]
        winner = ruling.details["winner"]
        scores = dict(state.scores)
        if winner is not None:
            scores[winner] += 1
        return state.model_copy(
            update={
                "round": state.round + 1,
                "budgets": {s: state.budgets[s] - bids[s] for s in board.sides},
                "scores": scores,
            }
        )

    # -- read side ---------------------------------------------------------------------------

    def queries(self) -> Mapping[str, QuerySpec]:
        return {
            "standing": QuerySpec(
                name="standing",
                description="Round, budgets left and scores.",
                params=StandingParams,
                run=_standing,
            )
        }

    def example_scenario(self) -> dict[str, Any] | None:
        return {"sides": ["red", "blue"], "budget": 10, "rounds": 3}


def _standing(board: BlindBoard, state: BlindState, options: BlindOptions, params: Any) -> Any:
    return {"round": state.round, "budgets": state.budgets, "scores": state.scores}


BLIND = BlindRuleset()
