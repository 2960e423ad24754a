"""FastAPI dependencies, as ``Annotated`` aliases the routes use.

They are ``async`` (none does I/O), so FastAPI calls them on the event loop instead of
handing each to a worker thread; the routes that every game request hits take one bundle,
:data:`CallDep` (or ``WriteDep``), as solving each dependency has its own cost per request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.api.etags import parse_etags
from app.config import Settings
from app.db.uow import AbstractUnitOfWork, SqlAlchemyUnitOfWork
from app.service.boards import BoardCache
from app.service.errors import FieldError, InvalidInput, Unauthenticated
from app.service.jsonsafe import bad_line
from app.service.pipeline import IfMatch

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="SeatToken",
    description="A seat token from `POST /games` (a side's or the umpire's).",
)


async def plain_parameters(request: Request) -> None:
    """Every route's guard (an app-wide dependency): a path or query parameter holding a
    control character (NUL among them, which PostgreSQL cannot store or compare), an unpaired
    surrogate or a line separator is a 422 naming it, whatever the route does with it."""
    errors: list[FieldError] = []
    for source, items in (
        ("path", request.path_params.items()),
        ("query", request.query_params.multi_items()),
    ):
        for name, value in items:
            problem = bad_line(value) if isinstance(value, str) else None
            if problem:
                errors.append(FieldError(f"/{name}", problem, "text.unsupported", source))
    if errors:
        names = ", ".join(sorted({e.location for e in errors}))
        raise InvalidInput(f"invalid request: {names}", errors)


async def get_settings(request: Request) -> Settings:
    settings = request.app.state.settings
    assert isinstance(settings, Settings)
    return settings


async def get_uow(request: Request) -> AbstractUnitOfWork:
    return SqlAlchemyUnitOfWork(request.app.state.session_factory)


async def get_boards(request: Request) -> BoardCache:
    boards = request.app.state.boards
    assert isinstance(boards, BoardCache)
    return boards


async def seat_token(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str | None:
    """The bearer token presented, if any. Which seat it holds is decided per game by the
    service (never from the body); a malformed Authorization header is a 401."""
    return _token(request, credentials)


def _token(request: Request, credentials: HTTPAuthorizationCredentials | None) -> str | None:
    if "authorization" not in request.headers:
        return None
    if credentials is None or not credentials.credentials.strip():
        raise Unauthenticated("use `Authorization: Bearer <seat token>`", code="auth.malformed")
    return credentials.credentials.strip()


IfMatchHeader = Annotated[
    str | None,
    Header(
        alias="If-Match",
        description='The ETag of `GET /games/{id}` (`W/"<version>"` or `"<version>"`).',
    ),
]
IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=255,
        pattern=r"^[\x21-\x7e]+$",
        description="Retrying with the same key and body returns the stored response.",
    ),
]
ClientSeedHeader = Annotated[
    str | None,
    Header(
        alias="Referee-Client-Seed",
        description="Optional: 1-64 visible ASCII characters mixed into every die this "
        "request rolls (see docs/match-flow.md, Dice).",
    ),
]
EnteredDiceHeader = Annotated[
    str | None,
    Header(
        alias="Referee-Dice",
        description="Physical dice entered by the umpire (match option physical_dice), "
        "comma-separated in the order the action needs them, e.g. `4,2`.",
    ),
]
BearerCredentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


async def if_match(value: IfMatchHeader = None) -> IfMatch | None:
    return parse_etags(value)


async def idempotency_key(value: IdempotencyKeyHeader = None) -> str | None:
    return value


async def get_now(request: Request) -> float:
    """The current time from the app's injected time source (``create_app(clock=...)``)."""
    return float(request.app.state.clock())


async def client_seed(value: ClientSeedHeader = None) -> str | None:
    return value


async def entered_dice(value: EnteredDiceHeader = None) -> str | None:
    return value


async def presented_tokens(
    token: Annotated[str | None, Depends(seat_token)],
    more: Annotated[
        str | None,
        Header(
            alias="Referee-Tokens",
            description="More tokens, comma-separated, for the endpoints that span games "
            "(`GET /games`, `GET /events/stream`); together with `Authorization` at most "
            "REFEREE_GAMES_PAGE_MAX (100).",
        ),
    ] = None,
) -> list[str]:
    """Every token presented: the bearer token, then those of ``Referee-Tokens``."""
    tokens = [token] if token else []
    tokens += [t.strip() for t in (more or "").split(",") if t.strip()]
    return tokens


@dataclass(frozen=True)
class Call:
    """What a game route needs besides its own parameters: a unit of work, the board cache,
    the presented seat token (None: anonymous) and the time."""

    uow: AbstractUnitOfWork
    boards: BoardCache
    token: str | None
    now: float


async def call(request: Request, credentials: BearerCredentials) -> Call:
    """:class:`Call` in one dependency (see :func:`seat_token` for the token)."""
    return Call(
        await get_uow(request),
        await get_boards(request),
        _token(request, credentials),
        await get_now(request),
    )


SettingsDep = Annotated[Settings, Depends(get_settings)]
UowDep = Annotated[AbstractUnitOfWork, Depends(get_uow)]
BoardsDep = Annotated[BoardCache, Depends(get_boards)]
CallDep = Annotated[Call, Depends(call)]
"""A game route's unit of work, board cache, seat token and time, in one dependency."""
SeatDep = Annotated[str | None, Depends(seat_token)]
"""The presented seat token (None when anonymous)."""
TokensDep = Annotated[list[str], Depends(presented_tokens)]
"""Every token presented (Authorization, then Referee-Tokens)."""
IfMatchDep = Annotated[IfMatch | None, Depends(if_match)]
IdempotencyKeyDep = Annotated[str | None, Depends(idempotency_key)]
NowDep = Annotated[float, Depends(get_now)]
"""Seconds since the epoch from the injected time source."""
ClientSeedDep = Annotated[str | None, Depends(client_seed)]
EnteredDiceDep = Annotated[str | None, Depends(entered_dice)]
