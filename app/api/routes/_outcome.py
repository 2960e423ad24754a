"""What the write routes share: their dependencies as the one typed write request the write
use cases take (:class:`~app.service.pipeline.WriteRequest`), and the HTTP answer (and its
OpenAPI description) of a use case that appended an event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Annotated, Any

from fastapi import Depends, Header, Request
from fastapi.responses import Response

from app.api.deps import (
    BearerCredentials,
    ClientSeedHeader,
    EnteredDiceHeader,
    IdempotencyKeyHeader,
    IfMatchHeader,
    call,
)
from app.api.etags import format_etag, parse_etags
from app.api.problems import responses
from app.service.pipeline import WriteRequest
from app.service.results import ActionOutcome
from app.service.sealed import SealedOutcome


async def write_request(
    request: Request,
    game_id: str,
    credentials: BearerCredentials,
    if_match: IfMatchHeader = None,
    idempotency_key: IdempotencyKeyHeader = None,
) -> WriteRequest:
    """The write request of every route that appends an event (the game in its path, its
    unit of work, seat token, If-Match, Idempotency-Key, board cache and time), as the one
    :class:`~app.service.pipeline.WriteRequest` the write use cases take. One dependency:
    its headers are parameters of this function, not dependencies of their own (FastAPI's
    cost per request grows with the dependencies)."""
    game = await call(request, credentials)
    return WriteRequest(
        game.uow,
        game_id,
        game.token,
        parse_etags(if_match),
        idempotency_key,
        game.boards,
        game.now,
    )


WriteDep = Annotated[WriteRequest, Depends(write_request)]


@dataclass(frozen=True)
class Roll:
    """A write's dice headers: ``Referee-Client-Seed`` and ``Referee-Dice``."""

    client_seed: str | None
    dice: str | None


@dataclass(frozen=True)
class RollingWrite:
    """A write that may roll dice: its :class:`WriteRequest`, its dice headers and whether the
    client prefers the answer without the new state (``Prefer: return=minimal``)."""

    write: WriteRequest
    roll: Roll
    minimal: bool = False


PreferHeader = Annotated[
    str | None,
    Header(
        alias="Prefer",
        description="`return=minimal` (RFC 7240): answer without the new state -- the event, "
        "version, ruling, position and clock -- with `Preference-Applied: return=minimal`. "
        "A replayed retry answers the stored (full) answer, without that header.",
    ),
]


def prefers_minimal(prefer: str | None) -> bool:
    """Whether a ``Prefer`` header (RFC 7240: comma-separated preferences, each
    ``token[=value]`` with optional ``;`` parameters, names case-insensitive, values maybe
    quoted) asks for ``return=minimal``."""
    if not prefer:
        return False
    for item in prefer.split(","):
        name, _, value = item.split(";", 1)[0].partition("=")
        if name.strip().lower() == "return":
            return value.strip().strip('"').lower() == "minimal"
    return False


async def rolling_write_request(
    request: Request,
    game_id: str,
    credentials: BearerCredentials,
    if_match: IfMatchHeader = None,
    idempotency_key: IdempotencyKeyHeader = None,
    client_seed: ClientSeedHeader = None,
    dice: EnteredDiceHeader = None,
    prefer: PreferHeader = None,
) -> RollingWrite:
    """:data:`WriteDep`, the dice headers and ``Prefer``, in one dependency (see
    :func:`write_request`)."""
    write = await write_request(request, game_id, credentials, if_match, idempotency_key)
    minimal = prefers_minimal(prefer)
    if minimal:  # the service then need not make (nor encode the state for) the full answer
        write = replace(write, minimal=True)
    return RollingWrite(write, Roll(client_seed, dice), minimal)


RollingWriteDep = Annotated[RollingWrite, Depends(rolling_write_request)]


def appended_responses(
    description: str, *errors: int, location: str = "/games/{id}/events/{seq}"
) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses=`` of a route that appends an event: its 201 and ``errors``."""
    return {
        201: {
            "description": description,
            "headers": {
                "ETag": {"description": "The new version."},
                "Location": {"description": location},
                "Idempotent-Replayed": {"description": "`true` on a replayed retry."},
                "Preference-Applied": {
                    "description": "`return=minimal` when the body is the change alone "
                    "(`Prefer: return=minimal`, submissions)."
                },
            },
        },
        **responses(*errors),
    }


APPENDED_DESCRIPTION = (
    "Done: an event was appended (the body is the new state as this seat sees it, its "
    "ruling, position and clock)."
)
WRITE_ERRORS = (400, 401, 403, 404, 409, 412, 413, 422, 428, 503)
"""What every write can answer: 400 (bad Content-Length), 413 (body-size middleware), 401,
403, 404, 409, 412, 422 (Idempotency-Key, validation), 428 and 503 (ruleset unavailable)."""

APPENDED = appended_responses(APPENDED_DESCRIPTION, *WRITE_ERRORS)
"""Responses of a write route that reads no body."""

APPENDED_WITH_BODY = appended_responses(APPENDED_DESCRIPTION, *WRITE_ERRORS, 415)
"""Responses of a write route that reads a JSON body (415 when it is not JSON)."""


def appended(
    game_id: str,
    outcome: ActionOutcome | SealedOutcome,
    headers: Mapping[str, str] | None = None,
    *,
    minimal: bool = False,
) -> Response:
    """The stored answer of the event's request (byte for byte on a replay), with the new
    version as ETag, the event as Location and any further ``headers``. ``minimal``
    (``Prefer: return=minimal``): the change alone (:class:`ActionChange`) where the outcome
    has it -- a write just accepted -- with ``Preference-Applied``."""
    answer = {
        "ETag": format_etag(outcome.version),
        "Location": f"/games/{game_id}/events/{outcome.event}",
        **(headers or {}),
    }
    if outcome.replayed:
        answer["Idempotent-Replayed"] = "true"
    body = outcome.body
    if minimal and isinstance(outcome, ActionOutcome) and outcome.minimal is not None:
        body = outcome.minimal
        answer["Preference-Applied"] = "return=minimal"
    status = outcome.status if isinstance(outcome, ActionOutcome) else 201
    return Response(body, status_code=status, headers=answer, media_type="application/json")
