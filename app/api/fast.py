"""The hottest requests' common case, served without FastAPI's routing and dependency solving.

``GET /games/{id}``, ``POST /games/{id}/rulings``, ``POST /games/{id}/actions`` and
``GET /healthz`` are most of what a table sends (a console reads the game, asks a dry run per
hex clicked and submits). FastAPI spends 0.3-0.5 ms of CPU on each before the route runs --
matching the path against every route in turn, solving the app-wide guard, the bearer scheme,
the call bundle and each header parameter -- which was half of a GET game and a quarter of a
submission (docs/PERFORMANCE.md, issue 28).

:class:`FastRoutes` is the innermost pure ASGI middleware. For a request whose every part is
plain -- the exact path with a canonical game id, no query string, at most one
``Authorization`` (a well-formed bearer token) and ``If-None-Match``, for a dry run exactly
``Content-Type: application/json`` and a body that is a JSON object -- it calls the same
service function the route calls, in the same worker thread pool, and answers with the
route's own answer builder (:func:`app.api.routes.games.game_answer`,
:func:`app.api.routes.actions.ruling_answer`). Anything else is handed to the full
application unchanged (the request body replayed) *before any work is done*, so the routes
answer every request that is not plain. Once a request is taken here it runs to its end
(nothing is done twice: a submission is a write, and a refused read is still one statement,
``tests/match/test_round_trips.py``); a refusal -- a 404, a 401, an illegal action, a
database error -- is answered by the application's own exception handlers, as its exception
middleware would call them, and an exception no handler takes goes up to the server-error
middleware as from a route (500). ``/healthz`` alone hands a failed check to its route,
which answers and logs it. ``tests/api/test_fast_routes.py`` checks both paths answer byte
for byte alike.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from fastapi import FastAPI
from starlette._utils import get_route_path
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.etags import parse_etags
from app.db.repository import DirectReads
from app.db.uow import SqlAlchemyUnitOfWork
from app.service import actions as actions_uc
from app.service import games as games_uc
from app.service.match import parse_entered_dice
from app.service.pipeline import WriteRequest

_GAME = re.compile(r"/games/([0-9a-f-]{36})(/rulings|/actions)?")
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
}
HEALTHY = {"status": "ok", "database": "ok"}


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


def _plain_headers(scope: Scope) -> _Plain | None:
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
        setattr(out, field, text)
    return out


def _game_id(text: str) -> bool:
    try:
        return str(uuid.UUID(text)) == text
    except ValueError:
        return False


class FastRoutes:
    """See the module docstring. ``owner`` is the application whose state (settings, session
    factory, board cache, clock) the routes use."""

    def __init__(self, app: ASGIApp, *, owner: FastAPI) -> None:
        self.app = app
        self.owner = owner
        self.served = 0
        """Requests answered here (the rest were handed on)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("query_string"):
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        path = get_route_path(scope)
        if method == "GET" and path == "/healthz":
            if await self._health(scope, receive, send):
                return
        elif method in ("GET", "POST"):
            match = _GAME.fullmatch(path)
            if match is not None and (method == "POST") == (match.group(2) is not None):
                game_id = match.group(1)
                plain = _plain_headers(scope) if _game_id(game_id) else None
                if plain is not None:
                    if method == "GET":
                        if await self._game(scope, send, game_id, plain):
                            return
                    else:
                        action, receive = await self._action(receive, plain)
                        if action is not None:
                            if match.group(2) == "/actions":
                                await self._submit(scope, receive, send, game_id, action, plain)
                                return
                            if await self._dry_run(scope, send, game_id, action, plain):
                                return
        await self.app(scope, receive, send)

    def _call(self) -> tuple[SqlAlchemyUnitOfWork, Any, float]:
        state = self.owner.state
        return SqlAlchemyUnitOfWork(state.session_factory), state.boards, float(state.clock())

    async def _health(self, scope: Scope, receive: Receive, send: Send) -> bool:
        def ping() -> None:  # the route's SELECT 1, straight on the driver
            reads = DirectReads(self.owner.state.engine)
            try:
                reads.one("ping", {})
            finally:
                reads.close()

        try:
            await run_in_threadpool(ping)
        except Exception:  # the route answers (and logs) it: 503
            return False
        self.served += 1
        await JSONResponse(HEALTHY)(scope, receive, send)
        return True

    async def _game(self, scope: Scope, send: Send, game_id: str, plain: _Plain) -> bool:
        from app.api.routes.games import game_answer

        uow, boards, now = self._call()
        try:
            view = await run_in_threadpool(
                games_uc.read_game, uow, game_id, token=plain.token, boards=boards, now=now
            )
        except Exception as exc:
            await self._refuse(scope, _no_body, send, exc)
            return True
        self.served += 1
        await game_answer(view, plain.if_none_match)(scope, _no_body, send)
        return True

    async def _action(
        self, receive: Receive, plain: _Plain
    ) -> tuple[dict[str, Any] | None, Receive]:
        """The body as a JSON object (None: not one), and the ``receive`` that replays it."""
        body = await _read_body(receive)
        if body is None:
            return None, receive  # the client went away: let the application see it
        replay = _replay(body, receive)
        if plain.content_type != "application/json":
            return None, replay
        try:
            action = json.loads(body)
        except Exception:  # not JSON, or nested past the parser's depth (RecursionError)
            return None, replay
        return (action if type(action) is dict else None), replay

    async def _dry_run(
        self, scope: Scope, send: Send, game_id: str, action: dict[str, Any], plain: _Plain
    ) -> bool:
        from app.api.routes.actions import ruling_answer

        uow, boards, now = self._call()
        try:
            result = await run_in_threadpool(
                actions_uc.dry_run, uow, game_id, action, token=plain.token, boards=boards, now=now
            )
        except Exception as exc:
            await self._refuse(scope, _no_body, send, exc)
            return True
        self.served += 1
        await ruling_answer(result)(scope, _no_body, send)
        return True

    async def _submit(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        game_id: str,
        action: dict[str, Any],
        plain: _Plain,
    ) -> None:
        """A submission is a write: it is never done twice. Its refusals are answered here by
        the application's own exception handlers, as its exception middleware would (an
        exception no handler takes goes up to the server-error middleware, as from the
        route)."""
        from app.api.routes._outcome import appended, prefers_minimal

        uow, boards, now = self._call()
        minimal = prefers_minimal(plain.prefer)

        def submit() -> Any:
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

        try:
            outcome = await run_in_threadpool(submit)
        except Exception as exc:
            await self._refuse(scope, receive, send, exc)
            return
        self.served += 1
        answer = appended(game_id, outcome, minimal=minimal)
        await answer(scope, _no_body, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, exc: Exception) -> None:
        """Answer ``exc`` as the application's exception middleware would: its handler's
        response; an exception no handler takes goes up (to the server-error middleware: 500,
        logged), as from the route."""
        handler = self._handler(exc)
        if handler is None:
            raise exc
        response = await handler(Request(scope, receive), exc)
        exc.__traceback__ = None
        self.served += 1
        await response(scope, receive, send)

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


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _read_body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
