"""The objective-zones sequence of play (OZ.Sequence): the phases of a player turn, who acts
in each, and what lapses when a phase ends."""

from __future__ import annotations

from app.rules.base import PhaseSpec, Position, SequenceOfPlay
from app.rules.objective_zones.catalog import CATALOG
from app.rules.objective_zones.models import Board, State
from app.rules.phases import PhaseRule

ANY_PHASE = ("morale_test",)
"""A unit owing a morale test takes it in whatever phase it falls due (OZ.PostMelee)."""

PHASES: tuple[PhaseSpec, ...] = (
    PhaseSpec(
        "charge_declaration",
        "Charge Declaration Phase",
        kinds=("declare_assault", "charge", *ANY_PHASE),
    ),
    PhaseSpec(
        "movement",
        "Movement Phase",
        acts="both",
        kinds=("enter", "exit", "transfer", "withdraw", "unlimber", *ANY_PHASE),
    ),
    PhaseSpec(
        "initial_fire",
        "Initial Fire Phase",
        acts="both",
        kinds=("musketry", "garrison_fire", "bombard", *ANY_PHASE),
    ),
    PhaseSpec(
        "secondary_fire",
        "Secondary Fire Phase",
        acts="both",
        kinds=("musketry", "garrison_fire", "bombard", *ANY_PHASE),
    ),
    PhaseSpec(
        "objective_combat",
        "Objective Combat Resolution Phase",
        acts="both",
        kinds=("continue_melee", *ANY_PHASE),
    ),
)
"""The phases of a player turn and the action kinds each allows (OZ.Sequence: each action
kind belongs to a phase)."""

PHASE_RULE = PhaseRule(
    "oz.wrong_phase",
    ("OZ.Sequence",),
    messages={
        "unlimber": "An unlimber belongs to the {allowed} phase, not {phase}.",
        "continue_melee": "An engaged melee is fought in the {allowed} phase, not {phase}.",
    },
)
"""How a kind out of its phase is refused."""


def sequence_of_play(board: Board) -> SequenceOfPlay:
    return SequenceOfPlay(
        phases=PHASES,
        citation=CATALOG.cite("OZ.Sequence"),
        sides=tuple(s.id for s in board.sides),
    )


def position(state: State) -> Position:
    return Position(turn=state.turn, phase=state.phase, phasing_side=state.phasing_side)


def advance_phase(board: Board, state: State) -> State:
    """The next phase; after Objective Combat the other side's player turn (turn + 1 after the
    last side). Assaults left unresolved lapse with their phase."""
    nxt = sequence_of_play(board).next_position(position(state))
    new = state.model_copy(deep=True)
    new.phase = nxt.phase  # type: ignore[assignment]
    if nxt.phase != PHASES[0].id:
        return new
    new.assaults = []
    new.fired_secondary = []
    new.phasing_side = nxt.phasing_side or state.phasing_side
    new.turn = nxt.turn
    return new
