"""The hottest requests' common case, served without FastAPI's routing and dependency solving.

``GET /games/{id}``, ``POST /games/{id}/rulings`` and ``GET /healthz`` are most of what a
table sends (a console polls the game and asks a dry run per hover). FastAPI spends about
0.4 ms of CPU on each before the route runs -- matching the path against every route in
turn, solving the app-wide guard, the bearer scheme, the call bundle and each header
parameter -- which was half of a GET game (docs/PERFORMANCE.md, issue 28).

:class:`FastRoutes` is the innermost pure ASGI middleware. For a request whose every part is
plain -- the exact path with a canonical game id, no query string, at most one
``Authorization`` (a well-formed bearer token) and ``If-None-Match``, for a dry run exactly
``Content-Type: application/json`` and a body that is a JSON object -- it calls the same
service function the route calls, in the same worker thread pool, and answers with the
route's own answer builder (:func:`app.api.routes.games.game_answer`,
:func:`app.api.routes.actions.ruling_answer`). Anything else, and any exception on the way
(a 404, a 401, a database error), is handed to the full application unchanged (the request
body replayed), so every refusal, problem body and header comes from the one route that
documents it; the work such a request did here is read-only and done again there.
``tests/api/test_fast_routes.py`` checks both paths answer byte for byte alike.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from fastapi import FastAPI
from starlette._utils import get_route_path
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.db.uow import SqlAlchemyUnitOfWork
from app.service import actions as actions_uc
from app.service import games as games_uc

_GAME = re.compile(r"/games/([0-9a-f-]{36})(/rulings)?")
HEALTHY = {"status": "ok", "database": "ok"}


class _Plain:
    """The headers a fast request may carry that matter to it; None: not plain."""

    __slots__ = ("content_type", "if_none_match", "token")

    def __init__(self) -> None:
        self.token: str | None = None
        self.if_none_match: str | None = None
        self.content_type: bytes | None = None


def _plain_headers(scope: Scope) -> _Plain | None:
    out = _Plain()
    seen: set[bytes] = set()
    for name, value in scope["headers"]:
        if name in (b"authorization", b"if-none-match", b"content-type"):
            if name in seen:
                return None  # repeated: which one counts is the route's business
            seen.add(name)
            if name == b"authorization":
                scheme, _, credentials = value.decode("latin-1").partition(" ")
                credentials = credentials.strip()
                if not (scheme and credentials) or scheme.lower() != "bearer":
                    return None  # the route answers a malformed one (401 auth.malformed)
                out.token = credentials
            elif name == b"if-none-match":
                out.if_none_match = value.decode("latin-1")
            else:
                out.content_type = value
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
                        receive = await self._dry_run(scope, receive, send, game_id, plain)
                        if receive is None:
                            return
        await self.app(scope, receive, send)

    def _call(self) -> tuple[SqlAlchemyUnitOfWork, Any, float]:
        state = self.owner.state
        return SqlAlchemyUnitOfWork(state.session_factory), state.boards, float(state.clock())

    async def _health(self, scope: Scope, receive: Receive, send: Send) -> bool:
        from sqlalchemy import text

        def ping() -> None:
            with self.owner.state.engine.connect() as conn:
                conn.execute(text("SELECT 1"))

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
        except Exception:
            return False
        self.served += 1
        await game_answer(view, plain.if_none_match)(scope, _no_body, send)
        return True

    async def _dry_run(
        self, scope: Scope, receive: Receive, send: Send, game_id: str, plain: _Plain
    ) -> Receive | None:
        """None once answered, else the ``receive`` the full application must use."""
        from app.api.routes.actions import ruling_answer

        body = await _read_body(receive)
        if body is None:
            return receive  # the client went away: let the application see it
        replay = _replay(body, receive)
        if plain.content_type != b"application/json":
            return replay
        try:
            action = json.loads(body)
        except ValueError:
            return replay
        if type(action) is not dict:
            return replay
        uow, boards, now = self._call()
        try:
            result = await run_in_threadpool(
                actions_uc.dry_run, uow, game_id, action, token=plain.token, boards=boards, now=now
            )
        except Exception:
            return replay
        self.served += 1
        await ruling_answer(result)(scope, _no_body, send)
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

