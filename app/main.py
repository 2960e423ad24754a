"""The ASGI application: ``app.main:app``, or ``create_app(settings)`` for tests and tools."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from app import __version__
from app.api import problems
from app.api.middleware import BodySizeLimitMiddleware
from app.api.routes import actions, events, games, health, queries, rulesets
from app.config import Settings, get_settings
from app.db.engine import make_engine, make_session_factory
from app.service.boards import BoardCache

DESCRIPTION = """\
A rules referee for tabletop wargames. Create a game from a scenario, then ask for **rulings**
(dry runs) or submit **actions**. Every ruling says whether the action is legal, what follows
from it, and cites the rule sections behind each point.

* Auth: `Authorization: Bearer <seat token>`; tokens are issued once by `POST /games`.
* Concurrency: `GET /games/{id}` returns an `ETag`; `POST /games/{id}/actions` needs it as
  `If-Match` (428 without, 412 when stale). `Idempotency-Key` makes retries safe.
* Errors: RFC 9457 `application/problem+json` with a stable `code`.
"""

TAGS = [
    {"name": "rulesets", "description": "Rulesets, their catalogs and schemas."},
    {"name": "games", "description": "Create and read games."},
    {"name": "actions", "description": "Dry runs and real submissions."},
    {"name": "events", "description": "The append-only log."},
    {"name": "queries", "description": "Read-only ruleset queries."},
    {"name": "health", "description": "Liveness."},
]


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the application for ``settings`` (default: from the environment).

    The database engine is created here but connects lazily; the schema must already exist
    (``referee migrate``).
    """
    settings = settings or get_settings()
    engine = make_engine(settings.database_url, echo=settings.sql_echo)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        engine.dispose()

    app = FastAPI(
        title="Referee",
        version=__version__,
        description=DESCRIPTION,
        openapi_tags=TAGS,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.session_factory = make_session_factory(engine)
    app.state.boards = BoardCache(settings.board_cache_size)

    problems.install(app)
    for module in (health, rulesets, games, actions, events, queries):
        app.include_router(module.router)
    app.add_middleware(
        BodySizeLimitMiddleware,
        max_bytes=settings.max_body_bytes,
        problem_base=settings.problem_base,
    )

    default_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = problems.move_problem_schemas(default_openapi())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


app = create_app()
