"""Table talk (issue 26 item 4): post, list and stream a game's messages."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from anyio import to_thread
from fastapi import APIRouter, Body, Header, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.exc import DBAPIError

from app.api.deps import SeatDep, SettingsDep, UowDep
from app.api.problems import responses
from app.api.routes.stream import SSE_HEADERS, Pacing, live
from app.api.schemas import Line
from app.db.uow import AbstractUnitOfWork
from app.service import messages as uc
from app.service import stream as svc
from app.service.errors import INT4_MAX
from app.service.pipeline import find_game
from app.service.stream import EventHub, StreamReader

router = APIRouter(tags=["messages"])


class PostMessage(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    to: Line = Field(
        min_length=1,
        max_length=64,
        examples=["all"],
        description="`all`, a side (privately), or `umpire` (privately).",
    )
    text: str = Field(
        min_length=1,
        max_length=uc.MAX_TEXT,
        examples=["Good luck, have fun."],
        description=f"At most {uc.MAX_TEXT} characters; newlines allowed, no other control "
        "character.",
    )


@router.post(
    "/games/{game_id}/messages",
    summary="Post a table-talk message",
    status_code=201,
    response_model=uc.Message,
    responses=responses(400, 401, 403, 404, 413, 415, 422, 429, 503),
)
def post_message(
    game_id: str,
    body: Annotated[PostMessage, Body()],
    uow: UowDep,
    token: SeatDep,
    settings: SettingsDep,
) -> uc.Message:
    """A message from the presented seat to `all`, one side or the umpire. A private message
    is read by its sender, its recipient and the umpire only; spectators read public ones
    unless `match.spectators_read_chat` is false. 403 `token.read_only` for a spectator;
    429 `message.rate_limited` past REFEREE_MESSAGES_PER_MINUTE. See docs/match-flow.md."""
    return uc.post_message(uow, game_id, token=token, to=body.to, text=body.text, settings=settings)


@router.get(
    "/games/{game_id}/messages",
    summary="List the table talk you may read",
    response_model=uc.MessagePage,
    responses=responses(401, 404, 422, 503),
)
def list_messages(
    game_id: str,
    uow: UowDep,
    token: SeatDep,
    after: Annotated[
        int, Query(ge=0, le=INT4_MAX, description="Return messages with seq > after.")
    ] = 0,
    limit: Annotated[int, Query(ge=1, le=uc.PAGE_MAX, description="Page size.")] = 50,
) -> uc.MessagePage:
    """The messages the bearer may read, oldest first; follow `next` until it is null."""
    return uc.list_messages(uow, game_id, token=token, after=after, limit=limit)


@router.get(
    "/games/{game_id}/messages/stream",
    summary="Stream the table talk live (Server-Sent Events)",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "`text/event-stream`: one SSE event per message the reader may read "
            "-- `id` = the message's seq, `event: message`, `data` = the JSON of a list item -- "
            "and `: keep-alive` comments when idle; `event: revoked` ends it when the token no "
            "longer holds.",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **responses(401, 404, 422, 503),
    },
)
async def stream_messages(
    game_id: str,
    request: Request,
    uow: UowDep,
    token: SeatDep,
    settings: SettingsDep,
    after: Annotated[
        int | None,
        Query(ge=0, le=INT4_MAX, description="Start after this seq (Last-Event-ID wins)."),
    ] = None,
    access_token: Annotated[
        str | None,
        Query(description="A seat or spectator token, for EventSource (prefer the header)."),
    ] = None,
    last_event_id: Annotated[
        str | None,
        Header(alias="Last-Event-ID", description="Resume after this seq (sent on reconnect)."),
    ] = None,
) -> Any:
    """Every message the reader may read, from the cursor on, then live. Its own stream, so
    the event stream's ids stay event seqs; the credential is re-checked every batch."""
    cursor = svc.parse_cursor(last_event_id, after)
    presented = token if token is not None else (access_token or None)
    reader = await to_thread.run_sync(_open, uow, game_id, presented)
    hub: EventHub = request.app.state.events_hub

    def catch_up() -> tuple[list[str], bool]:
        nonlocal cursor
        batch = _read(uow, reader, cursor)
        if batch:
            cursor = batch[-1].seq
        return [_sse(m) for m in batch], len(batch) == svc.BATCH

    return StreamingResponse(
        live(hub, [reader.game_id], catch_up, _nothing, Pacing.of(settings), own_poll=True),
        media_type="text/event-stream",
        headers=SSE_HEADERS,
    )


def _nothing() -> None:
    return None


def _open(uow: AbstractUnitOfWork, game_id: str, token: str | None) -> StreamReader:
    return svc.open_stream(uow, game_id, token=token)


def _read(uow: AbstractUnitOfWork, reader: StreamReader, after: int) -> list[uc.Message]:
    try:
        with uow.begin():
            if not svc.still_holds(uow, reader):
                raise svc.StreamRevoked(reader)
            row, _ = find_game(uow, reader.game_id)
            return uc.read_stream_batch(uow, row, reader.seat, after=after, limit=svc.BATCH)
    except DBAPIError as exc:
        raise svc.DatabaseAway(str(exc.orig or exc)) from exc


MESSAGE_EVENT: Literal["message"] = "message"


def _sse(message: uc.Message) -> str:
    return f"id: {message.seq}\nevent: {MESSAGE_EVENT}\ndata: {message.model_dump_json()}\n\n"
