"""Turns and phases: the acting side ends its phase, the umpire advances it or ends the game."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from pydantic import BaseModel, ConfigDict, Field

from app.api.examples import FINISH_EXAMPLES
from app.api.routes._outcome import APPENDED, APPENDED_WITH_BODY, WriteDep, appended
from app.api.schemas import Line
from app.service import flow as uc
from app.service.results import ActionResult

router = APIRouter(prefix="/games/{game_id}", tags=["phases"])


class FinishRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    winner: Line | None = Field(default=None, description="The winning side, or null.")


@router.post(
    "/phase/end",
    summary="End the current phase",
    status_code=201,
    response_model=ActionResult,
    responses=APPENDED,
)
def end_phase(game_id: str, write: WriteDep) -> Any:
    """The side acting in the current phase (the phasing side; a non-phasing side in a
    `non_phasing` phase) or the umpire ends it: the ruleset moves the game to the next phase
    (next side's player turn, next game turn) and a `phase` event is appended. Someone else:
    409 `phase.not_your_turn` citing the sequence rule; a ruleset without a sequence of play:
    409 `phase.no_sequence`. The mover's clock is charged (with the increment)."""
    outcome = uc.end_phase(write)
    return appended(game_id, outcome)


@router.post(
    "/phase/advance",
    summary="Advance the phase (umpire)",
    status_code=201,
    response_model=ActionResult,
    responses=APPENDED,
)
def advance_phase(game_id: str, write: WriteDep) -> Any:
    """The umpire moves the game to the next phase whoever's phase it is (403
    `phase.umpire_only` for any other seat). The clock switches without an increment."""
    outcome = uc.end_phase(write, umpire_advance=True)
    return appended(game_id, outcome)


@router.post(
    "/finish",
    summary="End the game (umpire)",
    status_code=201,
    response_model=ActionResult,
    responses=APPENDED_WITH_BODY,
)
def finish_game(
    game_id: str,
    write: WriteDep,
    body: Annotated[FinishRequest, Body(openapi_examples=FINISH_EXAMPLES)] = FinishRequest(),
) -> Any:
    """The umpire declares the game over, naming the winner (or null). The game's status
    becomes `finished`, its clock stops and its dice seed becomes public."""
    outcome = uc.finish_game(write, body.winner)
    return appended(game_id, outcome)
