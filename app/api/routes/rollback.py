"""Undo: the umpire rolls the game back; a player takes back their last action."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from pydantic import BaseModel, ConfigDict, Field

from app.api.examples import ROLLBACK_EXAMPLES
from app.api.routes._outcome import APPENDED, APPENDED_WITH_BODY, WriteDep, appended
from app.service import flow as uc
from app.service.errors import INT4_MAX
from app.service.results import ActionResult

router = APIRouter(prefix="/games/{game_id}", tags=["undo"])


class RollbackRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    to_version: int = Field(
        ge=1, le=INT4_MAX, description="The earlier version whose state to restore."
    )


@router.post(
    "/rollback",
    summary="Roll the game back to an earlier version (umpire)",
    status_code=201,
    response_model=ActionResult,
    responses=APPENDED_WITH_BODY,
)
def rollback(
    game_id: str,
    body: Annotated[RollbackRequest, Body(openapi_examples=ROLLBACK_EXAMPLES)],
    write: WriteDep,
) -> Any:
    """Restores the state of version `to_version` by appending a `rollback` event (the log is
    never rewritten; the game gets a new version). Umpire only (403 `rollback.umpire_only`);
    422 `rollback.bad_version` unless 1 <= to_version < current version; 409 `game.finished`
    on a finished game."""
    outcome = uc.rollback(write, body.to_version)
    return appended(game_id, outcome)


@router.post(
    "/takeback",
    summary="Take back your last action",
    status_code=201,
    response_model=ActionResult,
    responses=APPENDED,
)
def takeback(game_id: str, write: WriteDep) -> Any:
    """With match option `takeback`, a side's seat takes back its own last action while
    nothing else happened since: appends a `takeback` event restoring the state before it.
    409 with `takeback.disabled`, `takeback.nothing`, `takeback.not_yours` (someone else
    acted since), `takeback.window_closed` (a phase change, rollback, reveal or clock
    expiry came after it), `takeback.dice_rolled` or `takeback.revealed`."""
    outcome = uc.takeback(write)
    return appended(game_id, outcome)
