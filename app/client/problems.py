"""Typed RFC 9457 problems: every 4xx/5xx answer of the service becomes a :class:`ProblemError`
subclass chosen by status (and, for an illegal action, by code)."""

from __future__ import annotations

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.rules.ruling import Citation, Ruling


class FieldError(BaseModel):
    """One bad field of a validation problem, as the service sends it: ``location`` (an RFC
    6901 JSON pointer), ``in`` (``body``, ``query``, ``path`` or ``header``: :attr:`source`),
    ``message``, ``type``, and -- for a refusal by the rules -- its stable ``code`` and the
    rule sections that forbid it (``citations``)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    location: str = ""
    source: str = Field(default="body", alias="in")
    message: str = ""
    type: str | None = None
    code: str | None = None
    citations: list[Citation] = Field(default_factory=list)

    @property
    def pointer(self) -> str:
        """The same as :attr:`location` (the name earlier releases of this client used)."""
        return self.location


class Problem(BaseModel):
    """An ``application/problem+json`` body. ``code`` is the stable machine-readable code;
    extension members the client does not know are kept (``model_extra``)."""

    model_config = ConfigDict(extra="allow")

    type: str = "about:blank"
    code: str = "unknown"
    title: str = ""
    status: int = 0
    detail: str = ""
    instance: str = ""
    errors: list[FieldError] = Field(default_factory=list)
    ruling: Ruling | None = None
    citations: list[Citation] = Field(default_factory=list)


class ProblemError(Exception):
    """The service answered with a problem. ``status``, ``code`` and ``problem`` (the parsed
    body) are always set; subclasses name the common cases."""

    def __init__(self, status: int, problem: Problem, headers: httpx.Headers | None = None):
        self.status = status
        self.problem = problem
        self.code = problem.code
        self.headers = headers or httpx.Headers()
        super().__init__(f"{status} {problem.code}: {problem.detail}")

    @property
    def ruling(self) -> Ruling | None:
        """The ruling an illegal action (or an out-of-sequence one) carries, if any."""
        return self.problem.ruling


class BadRequest(ProblemError):
    """400: the body is not JSON, or a header is malformed."""


class Unauthorized(ProblemError):
    """401: a missing or unknown token (``auth.required``, ``auth.invalid_token``)."""


class Forbidden(ProblemError):
    """403: the seat may not do this (``seat.not_owner``, ``*.umpire_only``)."""


class NotFound(ProblemError):
    """404: no such game, ruleset, query or event."""


class Conflict(ProblemError):
    """409: out of sequence (``phase.not_your_turn``, with ``citations``), game finished…"""


class StaleVersion(ProblemError):
    """412 ``precondition.stale``: someone wrote since the ETag this write sent. The client has
    already refreshed the game's ETag: look at the game again and decide."""


class TooLarge(ProblemError):
    """413: the body is over the server's limit."""


class UnsupportedMediaType(ProblemError):
    """415: the body is not JSON."""


class Unprocessable(ProblemError):
    """422: validation failed; ``problem.errors`` names every bad field."""


class IllegalAction(Unprocessable):
    """422 ``action.illegal`` (or ``action.illegal_after_dice``): ``ruling`` says why, with
    its citations. Nothing was written (except a ``dice_consumed`` event after dice)."""

    @property
    def ruling(self) -> Ruling:
        assert self.problem.ruling is not None  # chosen only for problems that carry one
        return self.problem.ruling


class PreconditionRequired(ProblemError):
    """428: a write without ``If-Match``."""


class _RetryAfter(ProblemError):
    @property
    def retry_after(self) -> float | None:
        """The server's ``Retry-After`` in seconds, when it sent one."""
        value = self.headers.get("retry-after")
        try:
            return float(value) if value is not None else None
        except ValueError:
            return None


class RateLimited(_RetryAfter):
    """429: too many requests; ``retry_after`` is the server's ``Retry-After`` in seconds."""


class ServiceUnavailable(_RetryAfter):
    """503: the database cannot be reached right now (``service.database_unavailable``;
    ``retry_after`` says when to try again) or the game's ruleset is unavailable."""


BY_STATUS: dict[int, type[ProblemError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    412: StaleVersion,
    413: TooLarge,
    415: UnsupportedMediaType,
    422: Unprocessable,
    428: PreconditionRequired,
    429: RateLimited,
    503: ServiceUnavailable,
}


def problem_error(response: httpx.Response) -> ProblemError:
    """The typed exception of an error answer (any body: non-JSON gives ``http.error``)."""
    try:
        problem = Problem.model_validate(response.json())
    except (ValueError, ValidationError):
        problem = Problem(code="http.error", status=response.status_code, detail=response.text)
    status = response.status_code
    if status == 422 and problem.ruling is not None and problem.code.startswith("action.illegal"):
        return IllegalAction(status, problem, response.headers)
    return BY_STATUS.get(status, ProblemError)(status, problem, response.headers)


def raise_for_problem(response: httpx.Response) -> httpx.Response:
    """``response`` when it is a success; the typed :class:`ProblemError` otherwise."""
    if response.status_code >= 400:
        raise problem_error(response)
    return response
