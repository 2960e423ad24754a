"""What can go wrong in a use case, as small typed exceptions with stable codes.

The API maps each class to an HTTP status (``app/api/problems.py``); the service knows no HTTP.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import ValidationError

from app.rules.ruling import Ruling

INT4_MAX = 2_147_483_647
"""The largest value of an SQL ``INTEGER`` (int4) column: every integer a client sends that
reaches a query (sequence numbers, versions, page sizes) is bounded by it, so an out-of-range
value is a 422 naming the parameter, never a database overflow."""


@dataclass(frozen=True)
class FieldError:
    """One bad field: a JSON-pointer location, a message and a machine-readable type."""

    location: str
    message: str
    type: str = "invalid"
    source: str = "body"

    def as_json(self) -> dict[str, str]:
        return {
            "location": self.location,
            "in": self.source,
            "message": self.message,
            "type": self.type,
        }


def pointer(parts: Iterable[Any]) -> str:
    """``("scenario", "pawns", 0, "at")`` -> ``/scenario/pawns/0/at`` (RFC 6901 escaping)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def field_errors(
    exc: ValidationError, prefix: Sequence[Any] = (), *, source: str = "body"
) -> list[FieldError]:
    """Every error of a pydantic ValidationError, located under ``prefix``."""
    out: list[FieldError] = []
    for err in exc.errors(include_url=False):
        loc = list(err.get("loc", ()))
        out.append(
            FieldError(
                location=pointer([*prefix, *loc]),
                message=str(err.get("msg", "invalid")),
                type=str(err.get("type", "invalid")),
                source=source,
            )
        )
    return out


def rules_errors(
    errors: Iterable[Mapping[str, Any]], prefix: Sequence[Any] = ()
) -> list[FieldError]:
    """Errors a ruleset attached to ``InvalidScenario`` (``loc``/``msg`` or ``location``)."""
    out: list[FieldError] = []
    for err in errors:
        loc = err.get("loc", err.get("location", ()))
        if isinstance(loc, str):
            parts: list[Any] = [p for p in loc.strip("/").replace(".", "/").split("/") if p]
        else:
            parts = list(loc or ())
        message = err.get("msg", err.get("message", "invalid"))
        out.append(
            FieldError(
                location=pointer([*prefix, *parts]),
                message=str(message),
                type=str(err.get("type", err.get("code", "scenario.invalid"))),
            )
        )
    return out


class ServiceError(Exception):
    """Base class; ``code`` is the stable problem code the API reports."""

    code: ClassVar[str] = "error"

    def __init__(self, detail: str, *, code: str | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code  # type: ignore[misc]
        self.extra: dict[str, Any] = extra


class NotFound(ServiceError):
    code = "game.not_found"


class RulesetNotFound(ServiceError):
    code = "ruleset.not_found"


class QueryNotFound(ServiceError):
    code = "query.not_found"


class EventNotFound(ServiceError):
    code = "event.not_found"


class Unauthenticated(ServiceError):
    code = "auth.invalid_token"


class Forbidden(ServiceError):
    code = "seat.not_owner"


class PreconditionRequired(ServiceError):
    code = "precondition.if_match_required"


class PreconditionFailed(ServiceError):
    code = "precondition.stale"


class InvalidInput(ServiceError):
    """Input that failed validation; ``errors`` names every bad field."""

    code = "request.invalid"

    def __init__(
        self, detail: str, errors: Sequence[FieldError], *, code: str | None = None, **extra: Any
    ):
        super().__init__(detail, code=code, **extra)
        self.errors = list(errors)


class RulesRejected(ServiceError):
    """The ruleset could not judge the input (RulesError, bad id deep in the rules…)."""

    code = "rules.rejected"


class IllegalAction(ServiceError):
    """The ruling says no. Nothing was written."""

    code = "action.illegal"

    def __init__(self, ruling: Ruling, *, version: int) -> None:
        super().__init__(ruling.summary or "the action is illegal")
        self.ruling = ruling
        self.version = version


class IdempotencyKeyReused(ServiceError):
    code = "idempotency.key_reused"


class RulesetUnavailable(ServiceError):
    """A stored game names a ruleset this server does not have (any more)."""

    code = "ruleset.unavailable"


class Conflict(ServiceError):
    """The request cannot apply to the game as it stands (finished game, takeback window
    closed, nothing to roll back…). Nothing was written."""

    code = "conflict"


class OutOfSequence(Conflict):
    """The seat may not act in the current phase; ``citations`` names the sequence rule."""

    code = "phase.not_your_turn"
