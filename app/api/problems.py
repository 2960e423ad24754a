"""RFC 9457 problem details: every error the API returns is ``application/problem+json``.

Each problem has a stable ``code`` (also the last segment of its ``type`` URI), a title, the
HTTP status, a human ``detail`` and the request path as ``instance``. Validation problems list
every bad field under ``errors``; an illegal action carries its ``ruling``.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.api.etags import format_etag
from app.rules.base import RulesError
from app.rules.ruling import Citation, Ruling
from app.service import errors as svc
from app.service.errors import FieldError, field_errors, pointer

log = logging.getLogger("referee.api")

PROBLEM_MEDIA_TYPE = "application/problem+json"
DEFAULT_PROBLEM_BASE = "https://referee.dev/problems/"
DEFAULT_DATABASE_RETRY_AFTER = 2


class ProblemFieldError(BaseModel):
    """One bad field of a request."""

    model_config = ConfigDict(populate_by_name=True)

    location: str = Field(examples=["/scenario/pawns/0/at"], description="JSON pointer.")
    in_: str = Field(alias="in", examples=["body"], description="body, query, header or path.")
    message: str
    type: str = Field(examples=["greater_than_equal"])
    code: str | None = Field(
        default=None,
        examples=["terrain.scenario.ford_near_bridge"],
        description="For a refusal by the rules (an inconsistent scenario): its stable code.",
    )
    citations: list[Citation] | None = Field(
        default=None,
        description="For a refusal by the rules: the rule sections that forbid it.",
    )


class Problem(BaseModel):
    """An RFC 9457 problem document."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(examples=["https://referee.dev/problems/game.not_found"])
    code: str = Field(examples=["game.not_found"], description="Stable machine-readable code.")
    title: str
    status: int
    detail: str = ""
    instance: str = Field(default="", examples=["/games/3f1c…"])
    errors: list[ProblemFieldError] | None = None
    ruling: Ruling | None = Field(default=None, description="Present for `action.illegal`.")
    citations: list[Citation] | None = Field(
        default=None,
        description="For a refused match-flow command or dice entry: the rule sections that "
        "forbid it (the ruleset's sequence of play) or the service policy it breaks "
        '(`ruleset: "referee"`, docs/API.md "Service policies").',
    )


TITLES: dict[int, str] = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    406: "Not acceptable",
    409: "Conflict",
    412: "Precondition failed",
    413: "Content too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    428: "Precondition required",
    429: "Too many requests",
    500: "Internal server error",
    503: "Service unavailable",
}

STATUS: dict[type[svc.ServiceError], int] = {
    svc.NotFound: 404,
    svc.RulesetNotFound: 404,
    svc.QueryNotFound: 404,
    svc.EventNotFound: 404,
    svc.PositionNotFound: 404,
    svc.Unauthenticated: 401,
    svc.Forbidden: 403,
    svc.PreconditionRequired: 428,
    svc.PreconditionFailed: 412,
    svc.InvalidInput: 422,
    svc.RulesRejected: 422,
    svc.IllegalAction: 422,
    svc.IdempotencyKeyReused: 422,
    svc.RulesetUnavailable: 503,
    svc.Conflict: 409,
    svc.TooMany: 429,
}

HTTP_CODES: dict[int, str] = {
    400: "request.bad",
    401: "auth.required",
    403: "forbidden",
    404: "route.not_found",
    405: "method.not_allowed",
    406: "request.not_acceptable",
    409: "conflict",
    413: "request.too_large",
    415: "request.unsupported_media_type",
    422: "request.invalid",
    500: "internal",
}


def problem_type(code: str, base: str = DEFAULT_PROBLEM_BASE) -> str:
    return f"{base}{code}"


def problem_body(
    status: int,
    code: str,
    detail: str,
    *,
    instance: str = "",
    base: str = DEFAULT_PROBLEM_BASE,
    title: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": problem_type(code, base),
        "code": code,
        "title": title or TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
        "instance": instance,
    }
    body.update({k: v for k, v in extra.items() if v is not None})
    return body


def problem(
    request: Request,
    status: int,
    code: str,
    detail: str,
    *,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    """A problem+json response for ``request``."""
    settings = getattr(request.app.state, "settings", None)
    base = getattr(settings, "problem_base", DEFAULT_PROBLEM_BASE)
    body = problem_body(status, code, detail, instance=request.url.path, base=base, **extra)
    all_headers = dict(headers or {})
    if status == 401:
        all_headers.setdefault("WWW-Authenticate", 'Bearer realm="referee"')
    return JSONResponse(
        body, status_code=status, headers=all_headers, media_type=PROBLEM_MEDIA_TYPE
    )


def _errors_json(errors: list[FieldError]) -> list[dict[str, Any]]:
    return [e.as_json() for e in errors]


async def service_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, svc.ServiceError)
    status = next((s for cls, s in STATUS.items() if isinstance(exc, cls)), 400)
    extra: dict[str, Any] = dict(exc.extra)
    headers: dict[str, str] = {}
    if isinstance(exc, svc.InvalidInput):
        extra["errors"] = _errors_json(exc.errors)
    if isinstance(exc, svc.IllegalAction):
        extra["ruling"] = exc.ruling.model_dump(mode="json")
        extra["version"] = exc.version
    version = extra.get("version")
    if isinstance(version, int):
        headers["ETag"] = format_etag(version)
    retry_after = extra.get("retry_after")
    if isinstance(exc, svc.TooMany) and isinstance(retry_after, int):
        headers["Retry-After"] = str(retry_after)
    return problem(request, status, exc.code, exc.detail, headers=headers, **extra)


def _request_errors(exc: RequestValidationError) -> list[FieldError]:
    out: list[FieldError] = []
    for err in exc.errors():
        loc = list(err.get("loc", ()))
        source = str(loc[0]) if loc else "body"
        rest = loc[1:]
        etype = str(err.get("type", "invalid"))
        message = str(err.get("msg", "invalid"))
        if etype == "json_invalid":
            ctx = err.get("ctx") or {}
            position = rest[0] if rest else "?"
            message = f"malformed JSON at character {position}: {ctx.get('error', 'invalid')}"
            rest = []
        out.append(FieldError(pointer(rest), message, etype, source))
    return out


def _is_json(content_type: str | None) -> bool:
    if not content_type:
        return False
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


async def validation_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = _request_errors(exc)
    if any(e.type == "json_invalid" for e in errors):
        return problem(
            request,
            400,
            "request.malformed_json",
            "the request body is not valid JSON",
            errors=_errors_json(errors),
        )
    body_errors = [e for e in errors if e.source == "body"]
    content_type = request.headers.get("content-type")
    if body_errors and content_type and not _is_json(content_type):
        return problem(
            request,
            415,
            "request.unsupported_media_type",
            f"send the body as application/json, not {content_type}",
        )
    if any(e.type == "missing" and e.location == "" for e in body_errors):
        return problem(
            request,
            422,
            "request.body_missing",
            "this request needs a JSON body",
            errors=_errors_json(errors),
        )
    names = ", ".join(sorted({e.location or "/" for e in errors}))
    return problem(
        request,
        422,
        "request.invalid",
        f"invalid request: {names}",
        errors=_errors_json(errors),
    )


async def http_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = HTTP_CODES.get(exc.status_code, f"http.{exc.status_code}")
    detail = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
    return problem(
        request,
        exc.status_code,
        code,
        detail,
        headers=dict(exc.headers or {}),
    )


async def pydantic_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """A ValidationError that escaped a use case came from client input."""
    assert isinstance(exc, ValidationError)
    return problem(
        request,
        422,
        "request.invalid",
        "invalid input",
        errors=_errors_json(field_errors(exc)),
    )


async def rules_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """A RulesError or ValueError (e.g. a malformed hex id) that escaped: the input's fault."""
    code = exc.code if isinstance(exc, RulesError) else "rules.unjudgeable"
    return problem(request, 422, code, str(exc) or "the input could not be judged")


def database_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be reached (or answer) right now, rather than
    that a statement is wrong: SQLAlchemy's ``OperationalError`` (connection refused or
    closed, the server shutting down, SQLite ``database is locked`` / ``unable to open``, a
    statement cancelled), ``InterfaceError``, any ``DBAPIError`` that invalidated its
    connection, and a pool checkout that timed out. The pool discards the broken connections
    (a PostgreSQL connection the server wrote to or closed is also pinged at checkout,
    ``app.db.engine.socket_quiet``), so the next request after the database is back
    succeeds."""
    if isinstance(exc, sa_exc.TimeoutError):
        return True
    if isinstance(exc, sa_exc.DBAPIError):
        return exc.connection_invalidated or isinstance(
            exc, sa_exc.OperationalError | sa_exc.InterfaceError
        )
    return False


def retry_after(request: Request) -> int:
    """Seconds a client should wait after a 503 ``service.database_unavailable``."""
    settings = getattr(request.app.state, "settings", None)
    return int(getattr(settings, "database_retry_after_seconds", DEFAULT_DATABASE_RETRY_AFTER))


def database_problem(request: Request, **extra: Any) -> JSONResponse:
    """503 ``service.database_unavailable`` with ``Retry-After``."""
    wait = retry_after(request)
    return problem(
        request,
        503,
        "service.database_unavailable",
        f"the database cannot be reached; retry in {wait} s",
        headers={"Retry-After": str(wait)},
        retry_after=wait,
        **extra,
    )


async def database_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """The database went away (503 with Retry-After); any other database error is a bug
    (500)."""
    if not database_unavailable(exc):
        return await internal_error_handler(request, exc)
    log.warning(
        "database unavailable on %s %s: %s",
        request.method,
        request.url.path,
        str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
    )
    return database_problem(request)


async def internal_error_handler(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return problem(request, 500, "internal", "an internal error occurred; it has been logged")


def install(app: FastAPI) -> None:
    """Register every problem handler on ``app``."""
    app.add_exception_handler(svc.ServiceError, service_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_error_handler)
    app.add_exception_handler(ValidationError, pydantic_error_handler)
    app.add_exception_handler(RulesError, rules_error_handler)
    app.add_exception_handler(ValueError, rules_error_handler)
    app.add_exception_handler(sa_exc.DBAPIError, database_error_handler)
    app.add_exception_handler(sa_exc.TimeoutError, database_error_handler)
    app.add_exception_handler(Exception, internal_error_handler)


DESCRIPTIONS: dict[int, str] = {
    304: "Not modified: the If-None-Match ETag is current.",
    400: "Malformed request (e.g. the body is not JSON).",
    401: "No, malformed or wrong bearer token (`auth.*`).",
    403: "The seat may not submit this action (`seat.not_owner`).",
    409: "The game's position forbids it (`phase.not_your_turn`, `game.finished`, …).",
    404: "No such game, ruleset, query or event.",
    412: "If-Match names a version that is no longer current (`precondition.stale`).",
    413: "The body is larger than REFEREE_MAX_BODY_BYTES (`request.too_large`).",
    415: "The body is not JSON.",
    422: "Validation failed (every bad field in `errors`), or the action is illegal "
    "(`action.illegal`, with the `ruling`).",
    428: "If-Match is required (`precondition.if_match_required`).",
    429: "Over a rate limit (`rate_limited`); retry after `Retry-After` seconds.",
    503: "The database cannot be reached right now (`service.database_unavailable`, with "
    "`Retry-After`), or the game's ruleset is not available on this server "
    "(`ruleset.unavailable`).",
}


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses=`` entries: problem+json documents for each error status."""
    out: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        if status == 304:
            out[status] = {"description": DESCRIPTIONS[304]}
            continue
        code = HTTP_CODES.get(status, f"http.{status}")
        out[status] = {
            "model": Problem,
            "description": DESCRIPTIONS.get(status, TITLES.get(status, "Error")),
            "content": {
                PROBLEM_MEDIA_TYPE: {
                    "example": problem_body(status, code, "…", instance="/games/…"),
                }
            },
        }
    return out


def move_problem_schemas(openapi: dict[str, Any]) -> dict[str, Any]:
    """Error responses are problem+json documents (FastAPI files them under application/json,
    and describes its own 422 with HTTPValidationError): point every one at ``Problem``."""
    problem_ref = {"$ref": "#/components/schemas/Problem"}
    for path in openapi.get("paths", {}).values():
        for operation in path.values():
            if not isinstance(operation, dict):
                continue
            for status, response in operation.get("responses", {}).items():
                if not str(status).startswith(("4", "5")):
                    continue
                content = response.setdefault("content", {})
                content.pop("application/json", None)
                content.setdefault(PROBLEM_MEDIA_TYPE, {})["schema"] = problem_ref
    schemas = openapi.get("components", {}).get("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    return openapi
