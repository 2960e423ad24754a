"""The append-only event log of a game."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse

from app.api.deps import SeatDep, SettingsDep, UowDep
from app.api.paging import LIMIT_CAPPED_HEADER, capped
from app.api.problems import responses
from app.service import events as uc
from app.service.errors import INT4_MAX
from app.service.results import EventPage, EventView

router = APIRouter(prefix="/games/{game_id}/events", tags=["events"])


@router.get(
    "",
    summary="Page through the event log",
    response_model=EventPage,
    responses={
        200: {
            "headers": {
                LIMIT_CAPPED_HEADER: {
                    "description": "Present when `limit` was above REFEREE_EVENTS_PAGE_MAX: "
                    "the maximum used (follow `next` for the rest)."
                }
            }
        },
        **responses(401, 404, 422),
    },
)
def list_events(
    game_id: str,
    uow: UowDep,
    token: SeatDep,
    settings: SettingsDep,
    after: Annotated[
        int, Query(ge=0, le=INT4_MAX, description="Return events with seq > after.")
    ] = 0,
    limit: Annotated[
        int, Query(ge=1, le=INT4_MAX, description="Page size (capped by the server).")
    ] = 50,
) -> Any:
    """Accepted actions oldest first, each with its ruling, dice and resulting version.
    Readable by whoever may read the game. Follow `next` until it is null. A `limit` above
    the server's maximum is lowered to it and signalled with `Referee-Limit-Capped`."""
    page_limit, headers = capped(limit, settings.events_page_max)
    page = uc.list_events(uow, game_id, token=token, after=after, limit=page_limit)
    return JSONResponse(page.model_dump(mode="json"), headers=headers)


@router.get(
    "/{seq}", summary="Read one event", response_model=EventView, responses=responses(401, 404, 422)
)
def get_event(
    game_id: str, seq: Annotated[int, Path(ge=1, le=INT4_MAX)], uow: UowDep, token: SeatDep
) -> EventView:
    """One event of the log."""
    return uc.get_event(uow, game_id, seq, token=token)
