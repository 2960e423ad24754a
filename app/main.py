"""The ASGI application: ``app.main:app``, or ``create_app(settings)`` for tests and tools."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI
from fastapi.staticfiles import StaticFiles

from app import __version__
from app.api import problems
from app.api.browser import install_cors, install_docs
from app.api.deps import plain_parameters
from app.api.fast import FastRoutes, FrontedFastAPI
from app.api.middleware import BodySizeLimitMiddleware
from app.api.policy import ApiVersionMiddleware, RateLimitMiddleware
from app.api.routes import (
    actions,
    appeals,
    audit,
    available,
    config,
    dice,
    emails,
    events,
    export,
    games,
    health,
    holdings,
    messages,
    phases,
    queries,
    rollback,
    rulesets,
    sealed,
    stream,
    tokens,
    upgrade,
    webhooks,
    whatif,
)
from app.config import Settings, get_settings
from app.db.access import loop_outbox_probe, outbox_probe
from app.db.engine import (
    WalCheckpointer,
    loop_calls,
    loop_connections,
    loop_writer,
    make_engine,
    make_session_factory,
)
from app.db.ratelimit import SharedRateLimits
from app.db.uow import SqlAlchemyUnitOfWork
from app.match.clock import TimeSource
from app.rules import registry
from app.runtime import tune_gc
from app.service.boards import BoardCache
from app.service.delivery import DeliveryWorker, worker_config
from app.service.stream import EventHub
from app.web import STATIC_DIR
from app.web import router as console_router

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
    {"name": "phases", "description": "Turns and phases: end a phase, umpire advance, finish."},
    {"name": "dice", "description": "Verifiable dice: commitment, rolls, reveal, verify."},
    {"name": "undo", "description": "Umpire rollback and player takeback."},
    {"name": "appeals", "description": "A side appeals a ruling; the umpire decides."},
    {"name": "audit", "description": "Re-adjudicate a game's whole log (umpire)."},
    {"name": "upgrade", "description": "Move a game to the running ruleset version (umpire)."},
    {"name": "sealed orders", "description": "Simultaneous secret orders: commit, reveal."},
    {"name": "messages", "description": "Table talk: public and private messages, live."},
    {"name": "tokens", "description": "Spectator (read-only) tokens, rotation, revocation."},
    {"name": "webhooks", "description": "Per-seat webhooks (your turn, reveal, finish)."},
    {"name": "email", "description": "Per-seat email notifications; emailed invitations."},
    {"name": "health", "description": "Liveness."},
    {"name": "config", "description": "The service's public address and versions."},
]


def shared_rate_limits(settings: Settings, dialect: str) -> bool:
    """Whether the rate-limit buckets live in the database (``REFEREE_RATE_LIMIT_SHARED``):
    only on PostgreSQL (SQLite is one process, whose own buckets are the one limit); ``auto``
    when more than one worker serves it."""
    if dialect != "postgresql" or settings.rate_limit_shared == "off":
        return False
    return settings.rate_limit_shared == "on" or settings.workers > 1


def create_app(settings: Settings | None = None, *, clock: TimeSource | None = None) -> FastAPI:
    """Build the application for ``settings`` (default: from the environment).

    The database engine is created here but connects lazily; the schema must already exist
    (``referee migrate``). ``clock`` is the time source of the game clocks (seconds since the
    epoch; default ``time.time``): tests inject a fake one and never wait.
    """
    settings = settings or get_settings()
    registry.load_builtins()  # eagerly: the first requests must find every ruleset
    engine = make_engine(
        settings.database_url, echo=settings.sql_echo, pool_size=settings.db_pool_size
    )

    checkpointer = WalCheckpointer(engine)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if settings.gc_tuning:
            tune_gc()
        checkpointer.start()
        if settings.webhook_worker:
            app.state.webhook_worker.start()
        yield
        app.state.webhook_worker.stop()
        checkpointer.stop()
        await app.state.events_hub.aclose()
        if app.state.inline_reads is not None:  # the loop's connection (this thread's)
            app.state.inline_reads.drop(failed=False)
        if app.state.loop_writer is not None:  # the loop's write connection (this thread's)
            app.state.loop_writer.drop(failed=False)
        engine.dispose()
        if getattr(app.state, "rate_limits", None) is not None:
            app.state.rate_limits.dispose()

    app = FrontedFastAPI(
        title="Referee",
        version=__version__,
        description=DESCRIPTION,
        openapi_tags=TAGS,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        dependencies=[Depends(plain_parameters)],
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.session_factory = make_session_factory(engine)
    app.state.boards = BoardCache(settings.board_cache_size, settings.board_cache_bytes)
    app.state.inline_reads = loop_connections(engine, settings.inline_reads)
    app.state.loop_writer = loop_writer(engine, settings.inline_writes)
    app.state.loop_calls = loop_calls(engine, settings.loop_calls)
    app.state.clock = clock or time.time
    app.state.webhook_worker = DeliveryWorker(
        lambda: SqlAlchemyUnitOfWork(app.state.session_factory),
        worker_config(settings),
        probe=outbox_probe(engine),
        loop_probe=loop_outbox_probe(engine, app.state.inline_reads),
    )

    problems.install(app)
    app.state.events_hub = EventHub(settings.database_url, engine, settings.sse_poll_seconds)
    # before `events`: /games/{id}/events/stream must not be taken for /events/{seq}
    app.include_router(stream.router)
    app.include_router(holdings.router)
    app.include_router(available.router)
    for module in (health, config, rulesets, games, actions, events, queries):
        app.include_router(module.router)
    app.include_router(phases.router)
    app.include_router(dice.router)
    app.include_router(rollback.router)
    app.include_router(appeals.router)
    app.include_router(audit.router)
    app.include_router(upgrade.router)
    app.include_router(whatif.router)
    app.include_router(sealed.router)
    app.include_router(tokens.router)
    app.include_router(webhooks.router)
    app.include_router(export.router)
    app.include_router(emails.router)
    app.include_router(messages.router)
    # the console (app/web): the page at /, its static files under /console/static
    app.include_router(console_router)
    app.mount("/console/static", StaticFiles(directory=STATIC_DIR), name="console-static")
    app.add_middleware(
        BodySizeLimitMiddleware,
        max_bytes=settings.max_body_bytes,
        problem_base=settings.problem_base,
    )
    if settings.rate_limit_per_token > 0 or settings.rate_limit_per_ip > 0:
        shared = (
            SharedRateLimits(settings.database_url, settings.rate_limit_max_keys)
            if shared_rate_limits(settings, engine.dialect.name)
            else None
        )
        app.state.rate_limits = shared
        app.add_middleware(
            RateLimitMiddleware,
            per_token=settings.rate_limit_per_token,
            token_burst=settings.rate_limit_token_burst,
            per_ip=settings.rate_limit_per_ip,
            ip_burst=settings.rate_limit_ip_burst,
            problem_base=settings.problem_base,
            max_tokens=settings.games_page_max,
            max_keys=settings.rate_limit_max_keys,
            shared=shared,
        )
    app.add_middleware(ApiVersionMiddleware)  # outermost: /v1/... is rewritten first
    install_docs(app)
    install_cors(app, settings)  # the outermost middleware: keep it last
    if settings.fast_routes:  # ahead of every middleware, doing their work (app/api/fast.py)
        app.front = FastRoutes(app)

    default_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = problems.move_problem_schemas(default_openapi())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


app = create_app()
