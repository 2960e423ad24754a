"""The hottest requests' common case, served ahead of the whole middleware stack and of
FastAPI's routing and dependency solving.

``GET /games/{id}``, ``POST /games/{id}/rulings``, ``POST /games/{id}/actions`` and
``GET /healthz`` are most of what a table sends (a console reads the game, asks a dry run per
hex clicked and submits). FastAPI spends 0.3-0.5 ms of CPU on each before the route runs --
matching the path against every route in turn, solving the app-wide guard, the bearer scheme,
the call bundle and each header parameter -- and the middleware stack around it another
0.1-0.2 ms (docs/PERFORMANCE.md, issue 28).

:class:`FastRoutes` is the application's front (:class:`FrontedFastAPI` calls it before its
own middleware stack). For a request whose every part is plain -- the exact path (or the
same under ``/v1``) with a canonical game id, no query string, at most one ``Authorization``
(a well-formed bearer token) and ``If-None-Match``, a well-formed ``Content-Length`` within
the body limit, for a dry run exactly ``Content-Type: application/json`` and a body that is a
JSON object -- it calls the same service function the route calls, in a worker thread
(:mod:`app.api.workers`; the route's runs in one of anyio's), and answers with the route's
own answer builder (:func:`app.api.routes.games.game_answer`,
:func:`app.api.routes.actions.ruling_answer`). Anything else is handed to the full
application unchanged (the request body replayed) *before any work is done*, so the
middlewares and routes answer every request that is not plain. Once a request is taken here
it runs to its end (nothing is done twice: a submission is a write, and a refused read is
still one statement, ``tests/match/test_round_trips.py``); a refusal -- a 404, a 401, an
illegal action, a database error -- is answered by the application's own exception handlers,
as its exception middleware would call them, and an exception no handler takes is answered
as the server-error middleware answers it (its 500 handler, then raised to the server, which
logs it). ``/healthz`` alone hands a failed check to its route, which answers and logs it.

What each middleware the application has does to these requests is done here, in the same
order (:meth:`FastRoutes._survey` finds them in the built stack; any middleware it does not
know turns the front off, every request then goes the whole way):

* CORS (``REFEREE_CORS_ORIGINS``): its own ``send`` wraps the answer (``Vary: Origin``, the
  allow and expose headers);
* :class:`app.api.policy.ApiVersionMiddleware`: ``/v1/...`` served as ``/...``, a relative
  ``Location`` given the prefix back, ``Referee-API-Version: 1`` on every answer;
* :class:`app.api.policy.RateLimitMiddleware`: the request charged (once: only when it is
  served here) and refused with its own 429/422;
* :class:`app.api.middleware.BodySizeLimitMiddleware`: a body over the limit, a malformed
  ``Content-Length`` or one with ``Transfer-Encoding`` is handed on (the middleware answers
  its 413/400);
* FastAPI's exception telemetry acts only when an OpenTelemetry provider is configured: then
  every request is handed on; its body limit acts only on a mounted application's scope
  (handed on), or when ``max_body_size`` is set (the front is off);
* the server-error middleware: an exception no handler takes is answered by its handler
  (500 problem+json, outside every other middleware: no version header) and raised on.

A request with a ``root_path`` (the application served under a path prefix) is handed on.

``tests/api/test_fast_routes.py`` checks both paths answer byte for byte alike.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

from fastapi import FastAPI
from fastapi._body_limit import AppBodyLimitMiddleware
from fastapi.middleware.asyncexitstack import AsyncExitStackMiddleware
from fastapi.telemetry._asgi import ExceptionTelemetryMiddleware
from opentelemetry import _logs, metrics, trace
from starlette.datastructures import Headers
from starlette.middleware.body_limit import MAX_BODY_SIZE_SCOPE_KEY
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.etags import parse_etags
from app.api.middleware import BodySizeLimitMiddleware
from app.api.policy import ApiVersionMiddleware, RateLimitMiddleware, tag_headers, unversioned
from app.api.routes._outcome import appended, prefers_minimal
from app.api.routes.actions import ruling_answer
from app.api.routes.games import game_answer
from app.api.workers import run_in_worker
from app.db.pgloop import run_on_loop
from app.db.repository import DirectReads, WouldWait
from app.db.uow import SqlAlchemyUnitOfWork
from app.runtime import env
from app.service import actions as actions_uc
from app.service import games as games_uc
from app.service.match import parse_entered_dice
from app.service.pipeline import WriteRequest

_GAME = re.compile(
    r"/games/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(/rulings|/actions)?"
)
"""The fast paths, with a game id in canonical form (``str(uuid.UUID(id)) == id``, as the
service's lookup needs it: any other spelling is the routes' business)."""
_KEY = re.compile(r"[\x21-\x7e]{1,255}")
"""What the route's ``Idempotency-Key`` parameter accepts (else FastAPI's 422)."""
_HEADERS = {
    b"authorization": "token",
    b"if-none-match": "if_none_match",
    b"content-type": "content_type",
    b"if-match": "if_match",
    b"idempotency-key": "idempotency_key",
    b"referee-client-seed": "client_seed",
    b"referee-dice": "dice",
    b"prefer": "prefer",
    b"content-length": "content_length",
    b"transfer-encoding": "transfer_encoding",
}
HEALTHY = {"status": "ok", "database": "ok"}
_T = TypeVar("_T")
_P = ParamSpec("_P")
INLINE_BODY_BYTES = 4096
"""The largest dry run or submission tried inline: what runs on the event loop is bounded by
the request (a move path of a few hundred hexes; a longer one is judged in a worker thread,
where the loop gets the interpreter back every few milliseconds)."""


def _small(plain: _Plain) -> bool:
    length = plain.content_length
    return length is not None and length.isdigit() and int(length) <= INLINE_BODY_BYTES


class _Plain:
    """The headers a fast request may carry that matter to it; None: not plain."""

    __slots__ = tuple(_HEADERS.values())

    def __init__(self) -> None:
        self.token: str | None = None
        self.if_none_match: str | None = None
        self.content_type: str | None = None
        self.if_match: str | None = None
        self.idempotency_key: str | None = None
        self.client_seed: str | None = None
        self.dice: str | None = None
        self.prefer: str | None = None
        self.content_length: str | None = None
        self.transfer_encoding: str | None = None


_OTEL: tuple[tuple[str, str, Any, str, str], ...] = (
    ("tracing", "tracer_provider", trace, "_TRACER_PROVIDER", "OTEL_PYTHON_TRACER_PROVIDER"),
    (
        "metrics",
        "meter_provider",
        metrics._internal,
        "_METER_PROVIDER",
        "OTEL_PYTHON_METER_PROVIDER",
    ),
    ("logs", "logger_provider", _logs._internal, "_LOGGER_PROVIDER", "OTEL_PYTHON_LOGGER_PROVIDER"),
)
"""Per signal FastAPI's telemetry acts on: its config flag, the provider the app may be given,
where OpenTelemetry keeps the provider set globally, and the variable that names one."""
_UNKNOWN: Any = object()


def telemetry_quiet(config: Any) -> bool:
    """FastAPI's native telemetry certainly does not act (its ``enabled()`` is False): for each
    of tracing, metrics and logs, the app's config turns it off, or the app was given no
    provider, none is set globally and no environment variable names one -- what
    ``enabled()`` finds out through OpenTelemetry's ``get_*_provider``, each of which reads
    ``os.environ`` for a name not set (two exceptions raised and caught, three times a
    request; docs/PERFORMANCE.md, issue 28, session 17). False when unsure (a provider
    somewhere, or OpenTelemetry keeping it elsewhere): then ``enabled()`` is asked."""
    for flag, given, module, name, variable in _OTEL:
        if not config[flag]:
            continue
        if (
            config[given] is not None
            or getattr(module, name, _UNKNOWN) is not None
            or env(variable) is not None
        ):
            return False
    return True


def _plain_headers(scope: Scope, max_bytes: int) -> _Plain | None:
    """None also for a body the body-limit middleware refuses or reads as it streams: a
    ``Transfer-Encoding``, or a ``Content-Length`` malformed or over ``max_bytes``."""
    out = _Plain()
    for name, value in scope["headers"]:
        field = _HEADERS.get(name)
        if field is None:
            continue
        if getattr(out, field) is not None:
            return None  # repeated: which one counts is the route's business
        text = value.decode("latin-1")
        if field == "token":
            scheme, _, credentials = text.partition(" ")
            text = credentials.strip()
            if not (scheme and text) or scheme.lower() != "bearer":
                return None  # the route answers a malformed one (401 auth.malformed)
        elif field == "idempotency_key" and not _KEY.fullmatch(text):
            return None  # the route's parameter refuses it (422)
        elif field == "content_length" and not (
            text.isascii() and text.isdigit() and int(text) <= max_bytes
        ):
            return None  # the body-limit middleware answers (400, 413)
        elif field == "transfer_encoding":
            return None  # streamed: the body-limit middleware reads it
        setattr(out, field, text)
    return out


class FrontedFastAPI(FastAPI):
    """FastAPI with a front: ``front`` (when set) takes every request first, ahead of the
    middleware stack, and hands what it does not serve to :meth:`full`."""

    front: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        front = self.front
        if front is None:
            await FastAPI.__call__(self, scope, receive, send)
        else:
            await front(scope, receive, send)

    async def full(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The whole application: its middleware stack and routes."""
        await FastAPI.__call__(self, scope, receive, send)


class _Out:
    """Where a served request's answer goes: tagged as the API version middleware tags it,
    through the CORS middleware's ``send`` when there is one; ``started`` once begun."""

    __slots__ = ("send", "started", "versioned")

    def __init__(self, send: Send, versioned: bool) -> None:
        self.send = send
        self.versioned = versioned
        self.started = False

    async def answer(self, response: Response) -> None:
        self.started = True
        send = self.send
        await send(
            {
                "type": "http.response.start",
                "status": response.status_code,
                "headers": tag_headers(response.raw_headers, self.versioned),
            }
        )
        await send({"type": "http.response.body", "body": response.body})
        if response.background is not None:
            await response.background()

    async def tagged(self, message: Message) -> None:
        """``send`` for a response that sends itself (an exception handler's)."""
        if message["type"] == "http.response.start":
            self.started = True
            headers = tag_headers(message.get("headers", []), self.versioned)
            message = {**message, "headers": headers}
        await self.send(message)


_KNOWN: frozenset[type] = frozenset(
    {
        ServerErrorMiddleware,
        ExceptionTelemetryMiddleware,
        AppBodyLimitMiddleware,
        CORSMiddleware,
        ApiVersionMiddleware,
        RateLimitMiddleware,
        BodySizeLimitMiddleware,
        ExceptionMiddleware,
        AsyncExitStackMiddleware,
    }
)
"""The middlewares whose work on these requests the front knows (module docstring)."""
_NEEDED: frozenset[type] = frozenset(
    {ServerErrorMiddleware, ApiVersionMiddleware, BodySizeLimitMiddleware, ExceptionMiddleware}
)
"""The middlewares the front does the work of whether or not they are there: without one of
them, the front is off."""


class FastRoutes:
    """See the module docstring. ``owner`` is the application whose state (settings, session
    factory, board cache, clock), middlewares and handlers the routes use."""

    def __init__(self, owner: FrontedFastAPI) -> None:
        self.owner = owner
        self.app: ASGIApp = owner.full
        self.served = 0
        """Requests answered here (the rest were handed on)."""
        self.inline = 0
        """Reads answered (or refused) on the event loop (:meth:`_read`)."""
        self.handed_off = 0
        """Inline reads that met more than their game's row and went to a worker thread."""
        self.inline_writes = 0
        """Submissions answered (or refused) on the event loop (:meth:`_submit`)."""
        self.handed_off_writes = 0
        """Inline submissions that could not go on without waiting, or met a cache miss, and
        went to a worker thread."""
        self.loop_calls = 0
        """PostgreSQL: service calls run on the event loop (:meth:`_blocking`)."""
        self.handed_off_calls = 0
        """PostgreSQL: loop calls that would have waited for a connection and went to a
        worker thread."""
        self._stack: Any = None
        """The middleware stack surveyed (rebuilt: surveyed again)."""
        self._on = False
        self._errors: ServerErrorMiddleware | None = None
        self._cors: CORSMiddleware | None = None
        self._limits: RateLimitMiddleware | None = None
        self._max_bytes = 0

    def _survey(self) -> bool:
        """Find the middlewares in the application's stack (built as FastAPI builds it on
        its first request); False (the front off) if one is not known or a needed one is
        missing."""
        owner = self.owner
        if owner.middleware_stack is None:
            owner.middleware_stack = owner.build_middleware_stack()
        layer: Any = owner.middleware_stack
        self._stack = layer
        self._errors = self._cors = self._limits = None
        self._on = False
        seen: set[type] = set()
        while layer is not owner.router:
            kind = type(layer)
            if kind not in _KNOWN:
                return False
            seen.add(kind)
            if kind is ServerErrorMiddleware:
                self._errors = layer
            elif kind is CORSMiddleware:
                self._cors = layer
            elif kind is RateLimitMiddleware:
                self._limits = layer
            elif kind is BodySizeLimitMiddleware:
                self._max_bytes = layer.max_bytes
            layer = getattr(layer, "app", None)
        self._on = seen >= _NEEDED
        return self._on

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("query_string")
            or scope.get("root_path")
            or not (self._on if self.owner.middleware_stack is self._stack else self._survey())
            or MAX_BODY_SIZE_SCOPE_KEY in scope
            or (
                not telemetry_quiet(self.owner._native_telemetry.config)
                and self.owner._native_telemetry.enabled()
            )
        ):
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        path: str = scope["path"]
        versioned = path.startswith("/v1/")
        if versioned:
            path = path[3:]
        if method == "GET" and path == "/healthz":
            if await self._health(scope, send, versioned):
                return
        elif method in ("GET", "POST"):
            match = _GAME.fullmatch(path)
            if match is not None and (method == "POST") == (match.group(2) is not None):
                plain = _plain_headers(scope, self._max_bytes)
                if plain is not None:
                    if method == "GET":
                        await self._serve(scope, receive, send, versioned, match, plain, None)
                        return
                    action, receive = await self._action(receive, plain)
                    if action is not None:
                        await self._serve(scope, receive, send, versioned, match, plain, action)
                        return
        await self.app(scope, receive, send)

    async def _serve(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        versioned: bool,
        match: re.Match[str],
        plain: _Plain,
        action: dict[str, Any] | None,
    ) -> None:
        """Serve a plain GET game, dry run or submission, as far as the application's
        middlewares would let it go."""
        owner = self.owner
        scope["app"] = owner
        inner = unversioned(scope) if versioned else scope
        cors = self._cors
        out = _Out(
            send if cors is None else _cors_send(cors, send, scope),
            versioned,
        )
        try:
            limits = self._limits
            if limits is not None and await limits.refused(inner, out.tagged):
                return
            game_id = match.group(1)
            if action is None:
                await self._game(inner, out, game_id, plain)
            elif match.group(2) == "/actions":
                await self._submit(inner, receive, out, game_id, action, plain)
            else:
                await self._dry_run(inner, out, game_id, action, plain)
        except Exception as exc:
            if out.started:
                raise
            # as the server-error middleware answers it (outside every other middleware)
            errors = self._errors
            assert errors is not None
            failure = exc

            async def raising(scope: Scope, receive: Receive, send: Send) -> None:
                raise failure

            await ServerErrorMiddleware(raising, handler=errors.handler, debug=errors.debug)(
                scope, receive, send
            )

    async def _read(
        self,
        inline_ok: bool,
        read: Callable[Concatenate[SqlAlchemyUnitOfWork, str, _P], _T],
        game_id: str,
        *args: _P.args,
        **kw: _P.kwargs,
    ) -> _T:
        """``read(uow, game_id, ...)``, a read's service function: on the event loop itself
        where it can be (an *inline read*: SQLite, ``inline_ok`` -- work bounded by a small
        request --, and the game's board and state kept, so one indexed row is all it reads:
        :class:`app.db.engine.LoopConnections`), else -- and the moment it would need more:
        :class:`app.db.repository.WouldWait` -- in a worker thread, as every read went
        before. Either way the same function answers."""
        state = self.owner.state
        inline = getattr(state, "inline_reads", None) if inline_ok else None
        if inline is not None and inline.available():
            try:
                done = read(
                    SqlAlchemyUnitOfWork(state.session_factory, inline), game_id, *args, **kw
                )
            except WouldWait:
                self.handed_off += 1
            except Exception:  # a refusal (404, 401, 422 ...) found inline: answered from it
                self.inline += 1
                raise
            else:
                self.inline += 1
                return done
        return await self._blocking(
            inline_ok,
            lambda: read(SqlAlchemyUnitOfWork(state.session_factory), game_id, *args, **kw),
        )

    async def _blocking(self, loop_ok: bool, call: Callable[[], _T]) -> _T:
        """``call()``, which waits for the database: on PostgreSQL on the event loop itself
        where it can be (a *loop call*: ``loop_ok`` -- work bounded by a small request --,
        :mod:`app.db.pgloop`, its waits the loop's), else -- and when it would wait for a
        connection: :class:`app.db.repository.WouldWait`, nothing written -- in a worker
        thread. ``call`` makes its own unit of work, so it can be run again. With no
        connection idle (a busy pool), it goes to a worker thread straight away."""
        state = self.owner.state
        if not (loop_ok and getattr(state, "loop_calls", False)):
            return await run_in_worker(call)
        if not state.engine.pool.has_idle():
            self.handed_off_calls += 1
            return await run_in_worker(call)
        try:
            done = await run_on_loop(call)
        except WouldWait:
            self.handed_off_calls += 1
        except Exception:  # a refusal (404, 401, 412, 422 ...) found on the loop
            self.loop_calls += 1
            raise
        else:
            self.loop_calls += 1
            return done
        return await run_in_worker(call)

    async def _health(self, scope: Scope, send: Send, versioned: bool) -> bool:
        def ping() -> None:  # the route's SELECT 1, straight on the driver
            reads = DirectReads(self.owner.state.engine)
            try:
                reads.one("ping", {})
            finally:
                reads.close()

        if _plain_headers(scope, self._max_bytes) is None:
            return False  # (a body over the limit: 413 from its middleware)
        cors = self._cors
        try:
            await self._blocking(True, ping)
        except Exception:  # the route answers (and logs) it: 503
            return False
        self.served += 1
        scope["app"] = self.owner
        out = _Out(send if cors is None else _cors_send(cors, send, scope), versioned)
        await out.answer(JSONResponse(HEALTHY))
        return True

    async def _game(self, scope: Scope, out: _Out, game_id: str, plain: _Plain) -> None:
        state = self.owner.state
        try:
            view = await self._read(
                True,
                games_uc.read_game,
                game_id,
                token=plain.token,
                boards=state.boards,
                now=float(state.clock()),
            )
        except Exception as exc:
            await self._refuse(scope, _no_body, out, exc)
            return
        self.served += 1
        await out.answer(game_answer(view, plain.if_none_match))

    async def _action(
        self, receive: Receive, plain: _Plain
    ) -> tuple[dict[str, Any] | None, Receive]:
        """The body as a JSON object (None: not one), and the ``receive`` that replays it."""
        body = await _read_body(receive, self._max_bytes)
        if body is None:
            return None, receive  # the client went away: let the application see it
        if len(body) > self._max_bytes:  # the body-limit middleware answers (413)
            return None, _replay(body, receive, more=True)
        replay = _replay(body, receive)
        if plain.content_type != "application/json":
            return None, replay
        try:
            action = json.loads(body)
        except Exception:  # not JSON, or nested past the parser's depth (RecursionError)
            return None, replay
        return (action if type(action) is dict else None), replay

    async def _dry_run(
        self, scope: Scope, out: _Out, game_id: str, action: dict[str, Any], plain: _Plain
    ) -> None:
        state = self.owner.state
        try:
            result = await self._read(
                # a long path is a long judgement: in a worker, which lets the loop in
                _small(plain),
                actions_uc.dry_run,
                game_id,
                action,
                token=plain.token,
                boards=state.boards,
                now=float(state.clock()),
            )
        except Exception as exc:
            await self._refuse(scope, _no_body, out, exc)
            return
        self.served += 1
        await out.answer(ruling_answer(result))

    async def _submit(
        self,
        scope: Scope,
        receive: Receive,
        out: _Out,
        game_id: str,
        action: dict[str, Any],
        plain: _Plain,
    ) -> None:
        """A submission is a write: it is never done twice. Its refusals are answered here by
        the application's own exception handlers, as its exception middleware would (an
        exception no handler takes goes up, as from the route).

        On SQLite a small one is first run on the event loop itself (an *inline write*,
        :class:`app.db.engine.LoopWriter`): when it cannot go on without waiting -- another
        writer, a board or state to read -- it raises
        :class:`app.db.repository.WouldWait` before anything is written, and is run again
        in a worker thread, as every submission went before. On PostgreSQL a small one is a
        loop call (:meth:`_blocking`)."""
        state = self.owner.state
        boards, now = state.boards, float(state.clock())
        minimal = prefers_minimal(plain.prefer)

        def submit(uow: SqlAlchemyUnitOfWork) -> Any:
            req = WriteRequest(
                uow,
                game_id,
                plain.token,
                parse_etags(plain.if_match),
                plain.idempotency_key,
                boards,
                now,
                minimal,
            )
            dice = parse_entered_dice(plain.dice)
            return actions_uc.submit_action(
                req, actions_uc.SubmitAction(action, plain.client_seed, dice)
            )

        writer = getattr(state, "loop_writer", None) if _small(plain) else None
        try:
            outcome: Any = None
            if writer is not None and writer.available():
                try:
                    outcome = submit(SqlAlchemyUnitOfWork(state.session_factory, writer=writer))
                    self.inline_writes += 1
                except WouldWait:
                    self.handed_off_writes += 1
                except Exception:  # a refusal (401, 404, 412, 422 ...) found inline
                    self.inline_writes += 1
                    raise
            if outcome is None:
                outcome = await self._blocking(
                    _small(plain), lambda: submit(SqlAlchemyUnitOfWork(state.session_factory))
                )
        except Exception as exc:
            await self._refuse(scope, receive, out, exc)
            return
        self.served += 1
        await out.answer(appended(game_id, outcome, minimal=minimal))

    async def _refuse(self, scope: Scope, receive: Receive, out: _Out, exc: Exception) -> None:
        """Answer ``exc`` as the application's exception middleware would: its handler's
        response; an exception no handler takes goes up (to :meth:`_serve`: the server-error
        middleware's 500), as from the route."""
        handler = self._handler(exc)
        if handler is None:
            raise exc
        response = await handler(Request(scope, receive), exc)
        exc.__traceback__ = None
        self.served += 1
        await response(scope, receive, out.tagged)

    def _handler(self, exc: Exception) -> Any:
        """The handler the application's exception middleware would call for ``exc`` (the
        catch-all ``Exception`` handler is the server-error middleware's, not its)."""
        handlers = self.owner.exception_handlers
        for cls in type(exc).__mro__:
            if cls is Exception:
                return None
            if cls in handlers:
                return handlers[cls]
        return None


def _cors_send(cors: CORSMiddleware, send: Send, scope: Scope) -> Send:
    """The CORS middleware's ``send`` for this request, as its simple-response path wraps
    it (preflights are never served here: they are ``OPTIONS``)."""
    return functools.partial(cors.send, send=send, request_headers=Headers(scope=scope))


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The body (None: the client went away); read no further once longer than ``limit``
    (then the rest is still to be received)."""
    chunks: list[bytes] = []
    total = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        chunks.append(chunk)
        total += len(chunk)
        if total > limit or not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive, more: bool = False) -> Receive:
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return replay
