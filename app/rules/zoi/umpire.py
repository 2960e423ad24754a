"""The umpire's action in ``zoi``: set the phase of the sequence of play."""

from __future__ import annotations

from app.rules.dispatch import NoOutcome
from app.rules.ruling import Ruling
from app.rules.zoi.models import SetPhaseAction, ZoiBoard, ZoiState
from app.rules.zoi.setup import snapshot
from app.rules.zoi.zones import Game, refusal, ruling, violation


def judge_set_phase(game: Game, action: SetPhaseAction) -> Ruling:
    """The umpire sets the phase (and the phasing side, the turn) of the sequence of play."""
    if action.phasing is not None and action.phasing not in game.side_ids():
        return refusal(
            game,
            violation(
                "zoi.unknown_side", f"No side {action.phasing!r} in this game.", ["sequence"]
            ),
        )
    phasing = action.phasing or game.state.phasing
    turn = action.turn or game.state.turn
    return ruling(
        game,
        f"Turn {turn}: {action.phase} phase, {phasing} phasing.",
        sections=["sequence"],
        details={"phase": action.phase, "phasing": phasing, "turn": turn},
    )


def apply_set_phase(
    board: ZoiBoard, state: ZoiState, action: SetPhaseAction, _: NoOutcome
) -> ZoiState:
    """The new phase; a movement phase starts with no unit moved and records where the
    phasing side's units start it."""
    new = state.model_copy(
        update={
            "phase": action.phase,
            "phasing": action.phasing or state.phasing,
            "turn": action.turn or state.turn,
        }
    )
    if action.phase == "movement":
        new = new.model_copy(update={"moved": [], "phase_start": snapshot(new)})
    return new
