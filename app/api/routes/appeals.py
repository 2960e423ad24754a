"""Appeals (issue 26): a side appeals a ruling, the umpire decides, anyone reading the game
lists them (``app.service.appeals``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import SeatDep, UowDep
from app.api.problems import responses
from app.api.routes._outcome import APPENDED_WITH_BODY, WriteDep, appended
from app.service import appeals as uc
from app.service.errors import INT4_MAX
from app.service.results import ActionResult, AppealList

router = APIRouter(prefix="/games/{game_id}", tags=["appeals"])


class AppealRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    note: str = Field(
        description=f"Why the ruling is appealed: 1 to {uc.NOTE_MAX} characters, no control "
        "characters (422 `appeal.invalid_note`)."
    )


class DecisionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    outcome: Literal["upheld", "overridden"] = Field(
        description="`upheld`: the ruling stands; `overridden`: undone by `rollback_to` or "
        "replaced by `action`."
    )
    note: str = Field(default="", description=f"The umpire's note (at most {uc.NOTE_MAX}).")
    rollback_to: int | None = Field(
        default=None,
        ge=1,
        le=INT4_MAX,
        description="Override: restore this earlier version (as `POST /games/{id}/rollback`).",
    )
    action: dict[str, Any] | None = Field(
        default=None,
        description="Override: a corrected action, judged and applied as the umpire's submission.",
    )


@router.post(
    "/events/{seq}/appeal",
    summary="Appeal the ruling of an action event (a side)",
    status_code=201,
    response_model=ActionResult,
    responses=APPENDED_WITH_BODY,
)
def appeal(
    game_id: str,
    seq: Annotated[int, Path(ge=1, le=INT4_MAX)],
    body: AppealRequest,
    write: WriteDep,
) -> Any:
    """A side's seat appeals the ruling of action event `seq`, one it may read, while at most
    `match.appeal_window_events` events followed it (default 5). Appends an `appeal` event
    visible to the readers of the appealed event; the umpire is notified. 403
    `appeal.sides_only`, `appeal.hidden_event`; 404 `event.not_found`; 409
    `appeal.not_an_action`, `appeal.window_closed`, `appeal.already_open`, `game.finished`;
    422 `appeal.invalid_note`."""
    outcome = uc.appeal(write, seq, body.note)
    return appended(game_id, outcome)


@router.post(
    "/appeals/{appeal}/decision",
    summary="Decide an appeal (umpire)",
    status_code=201,
    response_model=ActionResult,
    responses=APPENDED_WITH_BODY,
)
def decide(
    game_id: str,
    appeal: Annotated[int, Path(ge=1, le=INT4_MAX, description="The appeal's event number.")],
    body: DecisionRequest,
    write: WriteDep,
) -> Any:
    """The umpire upholds or overrides an open appeal: appends an `appeal_decided` event (an
    override by `rollback_to` restores that version; by `action` applies the corrected
    action). The appellant is notified. 403 `appeal.umpire_only`; 404 `appeal.not_found`;
    409 `appeal.already_decided`, `game.finished`; 422 `appeal.bad_decision`,
    `appeal.invalid_note`, `rollback.bad_version`, `action.invalid`, `action.illegal`."""
    outcome = uc.decide(
        write,
        appeal,
        outcome=body.outcome,
        note=body.note,
        rollback_to=body.rollback_to,
        action=body.action,
    )
    return appended(game_id, outcome)


@router.get(
    "/appeals",
    summary="List the appeals",
    response_model=AppealList,
    responses=responses(401, 404, 422),
)
def list_appeals(game_id: str, uow: UowDep, token: SeatDep) -> Any:
    """The appeals the reader may see (those of rulings it may read), oldest first, each
    `open` or `decided` with its decision."""
    return uc.list_appeals(uow, game_id, token=token)
