"""The games a client's tokens hold, and one event stream across them."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from anyio import to_thread
from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse

from app.api.deps import BoardsDep, SettingsDep, TokensDep, UowDep
from app.api.paging import capped
from app.api.problems import responses
from app.api.routes.stream import SSE_HEADERS, Pacing, live
from app.db.uow import AbstractUnitOfWork
from app.match.clock import TimeSource
from app.service import feed as svc
from app.service import stream as streams
from app.service.boards import BoardCache
from app.service.holdings import GameList, list_games
from app.service.stream import EventHub

router = APIRouter(tags=["games"])


@router.get(
    "/games",
    summary="List the games your tokens hold a seat in",
    response_model=GameList,
    responses={
        200: {
            "headers": {
                "Referee-Limit-Capped": {
                    "description": "Present when `limit` was above the server's maximum: "
                    "the maximum used."
                }
            }
        },
        **responses(401, 422),
    },
)
def games(
    request: Request,
    uow: UowDep,
    tokens: TokensDep,
    boards: BoardsDep,
    settings: SettingsDep,
    status: Annotated[
        Literal["active", "finished"] | None, Query(description="Only games in this status.")
    ] = None,
    my_turn: Annotated[
        bool | None, Query(description="Only games that wait (true) or not (false) for you.")
    ] = None,
    after: Annotated[
        str | None, Query(max_length=200, description="The `next` of the previous page.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=2_147_483_647, description="Page size.")] = 50,
) -> Any:
    """Every (game, seat) the presented tokens hold -- `Authorization: Bearer <token>` and
    more in `Referee-Tokens: <t2>,<t3>` -- ordered by game id then seat, with the position,
    whom the game waits for and `my_turn`. A token that holds nothing is a 401 naming it."""
    page_limit, headers = capped(limit, settings.games_page_max)
    listing = list_games(
        uow,
        tokens,
        boards=boards,
        status=status,
        my_turn=my_turn,
        after=after,
        limit=page_limit,
        max_tokens=settings.games_page_max,
    )
    return JSONResponse(
        listing.model_dump(mode="json"), headers={**headers, "Vary": "Authorization"}
    )


@router.get(
    "/events/stream",
    summary="Stream the events of every game your tokens hold (Server-Sent Events)",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "`text/event-stream`: `id` = the cursor of the whole stream, "
            "`event` = kind, `data` = `{game, seat, event}` where `event` is an item of that "
            "game's events list as that seat sees it.",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **responses(401, 422),
    },
)
async def feed(
    request: Request,
    uow: UowDep,
    tokens: TokensDep,
    settings: SettingsDep,
    boards: BoardsDep,
    access_token: Annotated[
        list[str] | None,
        Query(
            description="Tokens, for clients that cannot send headers (EventSource); repeat "
            "the parameter for several. Prefer the headers: URLs end up in logs."
        ),
    ] = None,
    cursor: Annotated[
        str | None, Query(max_length=20000, description="Resume here (Last-Event-ID wins).")
    ] = None,
    last_event_id: Annotated[
        str | None,
        Header(alias="Last-Event-ID", description="The last `id` received (sent on reconnect)."),
    ] = None,
) -> Any:
    """One stream for a bot following many games: each game's events as its own stream would
    send them, interleaved live. Resume with `Last-Event-ID`: every game continues where it
    stopped."""
    presented = [*tokens, *(access_token or [])]
    readers = await to_thread.run_sync(_open, uow, presented, settings.games_page_max)
    start = svc.parse_cursor(last_event_id if last_event_id else cursor, readers)
    clock: TimeSource = request.app.state.clock
    hub: EventHub = request.app.state.events_hub
    game_ids = sorted({r.game_id for r in readers.values()})
    for game_id in game_ids:
        await to_thread.run_sync(_settle, uow, game_id, clock, boards)

    def catch_up() -> tuple[list[str], bool]:
        events, gone = svc.read_feed(uow, readers, start, limit=streams.BATCH)
        texts = []
        for key, view in events:
            start[key] = view.seq
            texts.append(svc.sse_feed_event(readers[key], view, svc.format_cursor(start)))
        for key in gone:  # a token revoked, rotated or reissued: that game's events stop here
            reader = readers.pop(key)
            start.pop(key, None)
            if not readers:
                raise streams.StreamRevoked(reader)
            texts.append(streams.sse_revoked(reader))
        return texts, bool(events)

    return StreamingResponse(
        live(
            hub,
            game_ids,
            catch_up,
            lambda: _settle_all(uow, game_ids, clock, boards),
            Pacing.of(settings),
        ),
        media_type="text/event-stream",
        headers=SSE_HEADERS,
    )


def _open(uow: AbstractUnitOfWork, tokens: list[str], limit: int) -> svc.FeedReaders:
    return svc.open_feed(uow, tokens, limit=limit)


def _settle(uow: AbstractUnitOfWork, game_id: str, clock: TimeSource, boards: BoardCache) -> None:
    streams.settle(uow, game_id, now=float(clock()), boards=boards, strict=False)


def _settle_all(
    uow: AbstractUnitOfWork, game_ids: list[str], clock: TimeSource, boards: BoardCache
) -> None:
    for game_id in game_ids:
        _settle(uow, game_id, clock, boards)
