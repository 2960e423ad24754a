"""A typed Python client of the Referee HTTP API, sync and async, on httpx.

Every operation of the API; results are the service's own pydantic models (``GameView``,
``ActionResult``, ``Ruling``…); errors are typed :class:`ProblemError` subclasses
(``IllegalAction`` carries the ruling, ``StaleVersion`` a 412…). The client keeps the newest
ETag of each game, shared by all its seats, sends it as ``If-Match`` with a fresh
``Idempotency-Key``, refreshes it on 412 and, when asked (``retry_stale``), re-sends commands
that are safe to judge again. Live streams reconnect with ``Last-Event-ID`` and can be
cancelled. Guide and runnable examples: ``docs/CLIENT.md``.

>>> from app.client import RefereeClient
>>> with RefereeClient("http://127.0.0.1:8000") as referee:         # doctest: +SKIP
...     game = referee.create_game("zoc", referee.ruleset("zoc").example_scenario or {})
...     axis = referee.seat(game.id, game.seats["axis"])
...     ruling = axis.dry_run({"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]})
...     accepted = axis.submit({"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]})
"""

from __future__ import annotations

from app.client.aio import AsyncEventStream, AsyncRefereeClient, AsyncSeat
from app.client.operations import Etags
from app.client.problems import (
    BadRequest,
    Conflict,
    Forbidden,
    IllegalAction,
    NotFound,
    PreconditionRequired,
    Problem,
    ProblemError,
    RateLimited,
    ServiceUnavailable,
    StaleVersion,
    TooLarge,
    Unauthorized,
    Unprocessable,
    UnsupportedMediaType,
)
from app.client.sse import StreamEvent
from app.client.streaming import StreamPolicy
from app.client.sync import EventStream, RefereeClient, Seat

SeatClient = Seat
"""The former name of :class:`Seat`."""

__all__ = [
    "AsyncEventStream",
    "AsyncRefereeClient",
    "AsyncSeat",
    "BadRequest",
    "Conflict",
    "Etags",
    "EventStream",
    "Forbidden",
    "IllegalAction",
    "NotFound",
    "PreconditionRequired",
    "Problem",
    "ProblemError",
    "RateLimited",
    "RefereeClient",
    "Seat",
    "SeatClient",
    "ServiceUnavailable",
    "StaleVersion",
    "StreamEvent",
    "StreamPolicy",
    "TooLarge",
    "Unauthorized",
    "Unprocessable",
    "UnsupportedMediaType",
]
