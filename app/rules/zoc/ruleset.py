"""The ``zoc`` ruleset: Zone of Control, sections 8-8.2 of seed 000, as a :class:`Ruleset`.

Wiring only: the rules live in the package's rule-family modules (``zones``, ``movement``,
``retreat``, ``supply``, ``umpire``), the setup in ``setup``, the queries in ``queries``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.rules.base import Position, Ruleset, SequenceOfPlay
from app.rules.dispatch import Kind, NoOutcome
from app.rules.memo import ByIdentity
from app.rules.zoc import movement, retreat, supply, umpire
from app.rules.zoc.available import available_actions
from app.rules.zoc.catalog import CATALOG, RULESET_ID, TEXT
from app.rules.zoc.context import Context, illegal
from app.rules.zoc.models import (
    Action,
    Board,
    MoveAction,
    MoveOutcome,
    PlaceMarkerAction,
    PlaceUnitAction,
    RemoveMarkerAction,
    RetreatAction,
    Scenario,
    SetPhaseAction,
    State,
    TraceSupplyAction,
    ZocOptions,
)
from app.rules.zoc.queries import QUERIES
from app.rules.zoc.sequence import PHASE_RULE, PHASES
from app.rules.zoc.setup import advance, build, generated_hexes

KINDS: dict[str, Kind[Context, Board, State, Any, Any]] = {
    "move": Kind(
        MoveAction,
        movement.judge_move,
        movement.apply_move,
        MoveOutcome,
        names=movement.move_names,
        despite_phase=movement.move_problems,
    ),
    "retreat": Kind(RetreatAction, retreat.judge_retreat, retreat.apply_retreat, NoOutcome),
    "trace_supply": Kind(
        TraceSupplyAction, supply.judge_trace_supply, supply.apply_trace_supply, NoOutcome
    ),
    "set_phase": Kind(
        SetPhaseAction, umpire.judge_set_phase, umpire.apply_set_phase, NoOutcome, "umpire"
    ),
    "place_unit": Kind(
        PlaceUnitAction, umpire.judge_place_unit, umpire.apply_place_unit, NoOutcome, "umpire"
    ),
    "place_marker": Kind(
        PlaceMarkerAction,
        umpire.judge_place_marker,
        umpire.apply_place_marker,
        NoOutcome,
        "umpire",
    ),
    "remove_marker": Kind(
        RemoveMarkerAction,
        umpire.judge_remove_marker,
        umpire.apply_remove_marker,
        NoOutcome,
        "umpire",
    ),
}


class ZocRuleset(Ruleset[Board, State, Action, ZocOptions]):
    """Zones of control for an operational hex wargame (seed 000, section 8)."""

    id = RULESET_ID
    version = "1.3.5"
    state_revalidates = True  # tests/db/test_kept_state.py checks every rule case's states
    title = "Zone of Control (operational hex game, section 8)"
    description = (
        "Ground units project zones of control into adjacent hexes; enemy zones stop movement, "
        "pin units in Mud, end moves in Storms or Snow, bar Reserve Movement, cut supply lines "
        "and restrict retreats and exploitation."
    )
    text = TEXT
    scenario_model = Scenario
    kinds = KINDS
    refusal = illegal
    phase_rule = PHASE_RULE
    query_table = QUERIES
    example = "seed-example.json"

    def generated_size(self, scenario: Any) -> int:
        return generated_hexes(scenario) if isinstance(scenario, Scenario) else 0

    def setup(self, scenario: Any, options: ZocOptions) -> tuple[Board, State]:
        return build(self.coerce_scenario(scenario))

    def context(
        self, board: Board, state: State, options: ZocOptions, dice: Sequence[int]
    ) -> Context:
        return Context(board, state, options)

    def sequence_of_play(self, board: Board) -> SequenceOfPlay:
        """Phases of a player turn (project default; the source text gives no sequence): made
        once per board (it depends on the board's sides alone; asked twice a write)."""
        return _SEQUENCE_OF(board)

    def position(self, board: Board, state: State) -> Position:
        return Position(turn=state.turn, phase=state.phase, phasing_side=state.phasing_side)

    def advance_phase(self, board: Board, state: State) -> State:
        return advance(
            state, self.sequence_of_play(board).next_position(self.position(board, state))
        )

    offer = available_actions


__all__ = ["Action", "ZocRuleset"]


def _sequence_of(board: Board) -> SequenceOfPlay:
    return SequenceOfPlay(PHASES, CATALOG.cite("basic.phase"), tuple(s.id for s in board.sides))


_SEQUENCE_OF: ByIdentity[SequenceOfPlay] = ByIdentity(_sequence_of)
"""Board -> its sequence of play (a frozen value; boards are never changed once made)."""
