"""What can go wrong in a use case, as small typed exceptions with stable codes.

The API maps each class to an HTTP status (``app/api/problems.py``); the service knows no HTTP.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import ValidationError

from app.rules.judgement import pointer as rules_pointer
from app.rules.ruling import Ruling

INT4_MAX = 2_147_483_647
"""The largest value of an SQL ``INTEGER`` (int4) column: every integer a client sends that
reaches a query (sequence numbers, versions, page sizes) is bounded by it, so an out-of-range
value is a 422 naming the parameter, never a database overflow."""


@dataclass(frozen=True)
class FieldError:
    """One bad field: an RFC 6901 JSON-pointer location, a message, a machine-readable type,
    and -- for a refusal by the rules -- its stable ``code`` and the rule sections that forbid
    it (``citations``: ruleset, section, title)."""

    location: str
    message: str
    type: str = "invalid"
    source: str = "body"
    code: str | None = None
    citations: tuple[Mapping[str, Any], ...] = ()

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "location": self.location,
            "in": self.source,
            "message": self.message,
            "type": self.type,
        }
        if self.code is not None:
            out["code"] = self.code
            out["citations"] = [dict(c) for c in self.citations]
        return out


def pointer(parts: Iterable[Any]) -> str:
    """``("scenario", "pawns", 0, "at")`` -> ``/scenario/pawns/0/at`` (RFC 6901 escaping)."""
    return rules_pointer(parts)


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
    """The problems a ruleset attached to ``InvalidScenario`` (as the judgement kit writes
    them: ``code``, ``message``, ``location`` -- a JSON pointer inside the scenario --
    and ``citations``), located under ``prefix``."""
    out: list[FieldError] = []
    for err in errors:
        location = str(err.get("location") or "")
        code = str(err.get("code") or "scenario.invalid")
        out.append(
            FieldError(
                location=pointer(prefix) + location,
                message=str(err.get("message", "invalid")),
                type=code,
                code=code,
                citations=tuple(err.get("citations") or ()),
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


class PositionNotFound(ServiceError):
    """A version the game has not reached (``GET /games/{id}/positions/{version}``)."""

    code = "position.not_found"


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


class IllegalOrder(IllegalAction):
    """The ruleset refuses a sealed order (:meth:`Ruleset.judge_order`). Nothing was written."""

    code = "sealed.order_illegal"


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


class TooMany(ServiceError):
    """Over a cap (429; ``retry_after`` seconds in the problem and in ``Retry-After``)."""

    code = "rate_limited"
