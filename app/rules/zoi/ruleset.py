"""The ``zoi`` ruleset: La Bataille rule 14, Zone d'Influence, as a :class:`Ruleset` plug-in.

Wiring only: the rules live in the package's rule-family modules (``zones``, ``facing``,
``movement``, ``retreat``, ``umpire``), the setup in ``setup``, the queries in ``queries``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel

from app.rules.base import Position, Ruleset, SequenceOfPlay
from app.rules.dispatch import Kind, NoOutcome
from app.rules.zoi import movement, retreat, umpire
from app.rules.zoi.available import available_actions
from app.rules.zoi.catalog import CATALOG, TEXT
from app.rules.zoi.models import (
    Action,
    MeleeRetreatAction,
    MeleeRetreatOutcome,
    MoveAction,
    MoveOutcome,
    SetPhaseAction,
    ZoiBoard,
    ZoiOptions,
    ZoiScenario,
    ZoiState,
)
from app.rules.zoi.queries import QUERIES
from app.rules.zoi.sequence import PHASE_RULE, PHASES
from app.rules.zoi.setup import advance, build, generated_hexes
from app.rules.zoi.zones import Game, refused

KINDS: dict[str, Kind[Game, ZoiBoard, ZoiState, Any, Any]] = {
    "move": Kind(
        MoveAction, movement.judge_move, movement.apply_move, MoveOutcome, names=movement.move_names
    ),
    "melee_retreat": Kind(
        MeleeRetreatAction,
        retreat.judge_melee_retreat,
        retreat.apply_melee_retreat,
        MeleeRetreatOutcome,
        names=retreat.retreat_names,
    ),
    "set_phase": Kind(
        SetPhaseAction, umpire.judge_set_phase, umpire.apply_set_phase, NoOutcome, "umpire"
    ),
}


class ZoiRuleset(Ruleset[ZoiBoard, ZoiState, Action, ZoiOptions]):
    """La Bataille rule 14: zones of influence that follow facing and formation.

    >>> from app.rules.zoi import ZoiRuleset
    >>> rs = ZoiRuleset()
    >>> board, state = rs.setup(rs.parse_scenario(rs.example_scenario()), rs.parse_options({}))
    >>> rs.adjudicate(board, state, rs.parse_action(
    ...     {"kind": "move", "unit": "fr-4-2", "steps": [{"do": "enter", "hex": "0607"}]}),
    ...     rs.parse_options({})).legal
    True
    """

    id: ClassVar[str] = "zoi"
    version: ClassVar[str] = "1.2.0"
    state_revalidates = True  # tests/db/test_kept_state.py checks every rule case's states
    title: ClassVar[str] = "La Bataille: Zone d'Influence (rule 14)"
    description: ClassVar[str] = (
        "Napoleonic hex rules where a unit's zone of influence follows its facing and "
        "formation, halts enemy movement and draws opportunity fire."
    )
    text = TEXT
    scenario_model: ClassVar[type[BaseModel]] = ZoiScenario
    kinds = KINDS
    refusal = refused
    phase_rule = PHASE_RULE
    query_table = QUERIES
    example = "example.json"

    def generated_size(self, scenario: Any) -> int:
        return generated_hexes(scenario) if isinstance(scenario, ZoiScenario) else 0

    def setup(self, scenario: Any, options: ZoiOptions) -> tuple[ZoiBoard, ZoiState]:
        return build(self.coerce_scenario(scenario), options)

    def context(
        self, board: ZoiBoard, state: ZoiState, options: ZoiOptions, dice: Sequence[int]
    ) -> Game:
        return Game(board, state, options)

    def sequence_of_play(self, board: ZoiBoard) -> SequenceOfPlay:
        """The phases of a player turn; the non-phasing side fires in the defensive fire
        phase. Player turns rotate through the board's sides."""
        return SequenceOfPlay(PHASES, CATALOG.cite("sequence"), tuple(s.id for s in board.sides))

    def position(self, board: ZoiBoard, state: ZoiState) -> Position:
        return Position(turn=state.turn, phase=state.phase, phasing_side=state.phasing)

    def advance_phase(self, board: ZoiBoard, state: ZoiState) -> ZoiState:
        nxt = self.sequence_of_play(board).next_position(self.position(board, state))
        return advance(state, nxt)

    offer = available_actions
