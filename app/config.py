"""Service configuration, read from ``REFEREE_*`` environment variables.

* ``REFEREE_DATABASE_URL`` -- SQLAlchemy URL: ``sqlite:///path/to/file.db`` or
  ``postgresql+psycopg://user:password@host:5432/db``. Default ``sqlite:///./var/referee.db``
  (the directory is created on first connect).
* ``REFEREE_MAX_BODY_BYTES`` -- largest accepted request body; larger gets 413. Default 1 MiB.
* ``REFEREE_BOARD_CACHE_SIZE`` -- parsed boards kept in memory (LRU). Default 128.
* ``REFEREE_BOARD_CACHE_BYTES`` -- and at most this much board JSON (the parsed boards take a
  about 8 times more memory; see docs/OPERATIONS.md). Default 16 MiB.
* ``REFEREE_SCENARIO_BUDGET`` -- largest scenario size: JSON values of the document plus the
  hexes its map areas generate (``app.service.budget``); larger gets 422
  ``scenario.too_large``. Default 50,000.
* ``REFEREE_TIMEOUT_HEADERS_SECONDS`` / ``REFEREE_TIMEOUT_BODY_SECONDS`` -- a connection that
  has not sent a whole request head (or body) this long after it started is closed. Default
  10 / 30.
* ``REFEREE_TIMEOUT_KEEP_ALIVE_SECONDS`` -- an idle keep-alive connection is closed after
  this long. Default 5.
* ``REFEREE_MAX_CONNECTIONS`` -- connections served at once by one process; more get 503.
  Default 1,000.
* ``REFEREE_EVENTS_PAGE_MAX`` -- largest page of ``GET /games/{id}/events``. Default 500.
* ``REFEREE_HOST`` / ``REFEREE_PORT`` -- where ``referee serve`` listens. Default
  ``127.0.0.1:8000``.
* ``REFEREE_PUBLIC_URL`` -- the address players reach the service at (``https://referee.example``;
  absolute http(s), trailing slash dropped): every link the service and the console build
  (invitations, spectator links, ``links`` in answers and webhook payloads) starts with it.
  Default: unset (links use the address the request came to; ``app/links.py``).
* ``REFEREE_WORKERS`` -- server processes of ``referee serve`` (PostgreSQL only; SQLite
  refuses more than one). Default 1.
* ``REFEREE_PROBLEM_BASE`` -- prefix of problem ``type`` URIs.
  Default ``https://referee.dev/problems/``.
* ``REFEREE_SQL_ECHO`` -- log every SQL statement. Default false.
* ``REFEREE_SSE_KEEPALIVE_SECONDS`` -- an idle event stream sends a comment line this often.
  Default 15.
* ``REFEREE_SSE_POLL_SECONDS`` -- how often an idle stream re-reads the log when no
  notification can wake it (SQLite, written by another process). Default 1.
* ``REFEREE_SSE_MAX_SECONDS`` -- an event stream ends after this long (clients reconnect with
  Last-Event-ID and lose nothing); bounds idle connections and lets a server stop. Default 3600.
* ``REFEREE_GAMES_PAGE_MAX`` -- largest page of ``GET /games``; also the most tokens one
  request may present. Default 100.
* ``REFEREE_WEBHOOK_*`` -- the delivery worker: ``POLL_SECONDS`` (1), ``TIMEOUT_SECONDS`` (5:
  the deadline of one attempt, connection to answer), ``MAX_ATTEMPTS`` (8),
  ``BACKOFF_SECONDS`` (2; doubles per retry), ``BACKOFF_MAX_SECONDS`` (3600), ``CONCURRENCY``
  (8: deliveries sent at once), ``ALLOW_PRIVATE_ADDRESSES`` (false: loopback, private and
  link-local receivers are refused), ``WORKER`` (true: run the worker in this process).
* ``REFEREE_SMTP_URL`` -- where email notifications are sent from (issue 24):
  ``smtp://user:password@host:587?starttls=true`` (STARTTLS), ``smtps://user:password@host``
  (TLS from the start, port 465 by default) or ``smtp://host:25`` (plain, for a relay on the
  same machine). Default: unset -- email is off, and registering an address answers 409
  ``email.not_configured``. Needs ``REFEREE_SMTP_FROM`` and ``REFEREE_PUBLIC_URL`` too.
* ``REFEREE_SMTP_FROM`` -- the ``From`` address of every email (``Referee <referee@example.org>``).
* ``REFEREE_SMTP_TIMEOUT_SECONDS`` -- each SMTP network operation's limit. Default 10.
* ``REFEREE_EMAIL_PER_ADDRESS_PER_HOUR`` -- at most this many emails to one address in any
  hour (confirmations and invitations included); more are not sent. Default 6.
* ``REFEREE_INLINE_READS`` -- SQLite: answer a plain GET game or dry run of a game whose board
  and state are kept on the event loop itself (one row read on the loop's own connection, read
  only and never waiting; anything more goes to a worker thread: ``app/api/fast.py``). Default
  true; PostgreSQL never reads inline.
* ``REFEREE_GC_TUNING`` -- at startup, freeze the objects the process has built (modules,
  the app) out of the garbage collector's reach and make its collections rarer
  (``app/runtime.py``; docs/PERFORMANCE.md). Default false; ``referee serve`` sets it true.
* ``REFEREE_RATE_LIMIT_*`` -- token buckets: ``PER_TOKEN`` / ``PER_IP`` requests
  per second (0 = off, the default) with bursts ``TOKEN_BURST`` / ``IP_BURST``; ``MAX_KEYS``
  buckets kept per kind (100,000; the bucket closest to full is dropped first, so a flood of
  new keys cannot push out a drained one); ``SHARED`` -- ``auto`` (default), ``on`` or
  ``off``: the buckets held in PostgreSQL (``rate_buckets``, ``app/db/ratelimit.py``) so that
  every process on the database enforces one limit; ``auto`` shares them on PostgreSQL when
  ``REFEREE_WORKERS`` is above 1. SQLite (one process) always keeps them in memory.
* ``REFEREE_FORWARDED_ALLOW_IPS`` -- addresses (or networks, ``*`` for any) of the proxies whose
  ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed, comma separated. Default: none
  (the client IP is always the socket peer; uvicorn's own default would trust loopback).
* ``REFEREE_DATABASE_RETRY_AFTER_SECONDS`` -- the ``Retry-After`` of the 503
  ``service.database_unavailable`` answered while the database cannot be reached. Default 2.
* ``REFEREE_CORS_ORIGINS`` -- origins whose browser pages may call the API (CORS), comma
  separated (``https://a.example,https://b.example``) or a JSON list; ``*`` allows any origin.
  Default: none (no CORS headers; browsers allow only same-origin pages).
* ``REFEREE_CORS_MAX_AGE`` -- how long (seconds) a browser may cache a preflight answer.
  Default 600.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app.links import normalise_public_url
from app.service import smtp

DEFAULT_DATABASE_URL = "sqlite:///./var/referee.db"


class Settings(BaseSettings):
    """Runtime settings; every field maps to ``REFEREE_<FIELD>``."""

    model_config = SettingsConfigDict(env_prefix="REFEREE_", extra="ignore", frozen=True)

    database_url: str = Field(
        default=DEFAULT_DATABASE_URL,
        description="SQLAlchemy database URL (SQLite file or PostgreSQL via psycopg 3).",
    )
    db_pool_size: int = Field(
        default=15,
        ge=1,
        le=1000,
        description="Database connections each process keeps open, and its most.",
    )
    fast_routes: bool = Field(
        default=True,
        description="Serve the plain case of GET /games/{id}, dry runs and /healthz without "
        "FastAPI's routing (app/api/fast.py); same answers.",
    )
    inline_reads: bool = Field(
        default=True,
        description="SQLite: serve a plain GET game or dry run of a game whose board and state "
        "are kept on the event loop itself, reading its row on a connection that never waits "
        "(app/db/engine.py LoopConnections); anything more goes to a worker thread.",
    )
    inline_writes: bool = Field(
        default=True,
        description="SQLite: run a submission (POST /games/{id}/actions) on the event loop "
        "itself, on a connection the loop keeps that never waits (app/db/engine.py LoopWriter), "
        "when the writer lock is free and the game's board and state are kept; anything more "
        "goes to a worker thread.",
    )
    loop_calls: bool = Field(
        default=True,
        description="PostgreSQL: run a plain GET game, dry run, submission or /healthz on the "
        "event loop itself, in a greenlet whose database waits are the loop's (app/db/pgloop.py), "
        "instead of in a worker thread; one that would wait for a connection goes to a worker "
        "thread.",
    )
    max_body_bytes: int = Field(default=1024 * 1024, ge=1, description="Request body limit.")
    board_cache_size: int = Field(default=128, ge=1, description="Parsed boards kept (LRU).")
    board_cache_bytes: int = Field(
        default=16 * 1024 * 1024, ge=1, description="Board JSON bytes kept parsed (LRU)."
    )
    scenario_budget: int = Field(
        default=50_000, ge=1, description="Largest scenario size (JSON values + map hexes)."
    )
    timeout_headers_seconds: float = Field(
        default=10.0, gt=0, description="Time a connection has to send a request head."
    )
    timeout_body_seconds: float = Field(
        default=30.0, gt=0, description="Time a request has to send its whole body."
    )
    timeout_keep_alive_seconds: float = Field(
        default=5.0, gt=0, description="An idle keep-alive connection is closed after this."
    )
    max_connections: int = Field(
        default=1000, ge=1, description="Connections one process serves at once (then 503)."
    )
    http_protocol: Literal["httptools", "h11"] = Field(
        default="httptools",
        description="The HTTP/1.1 parser `referee serve` runs (both with the same deadlines, "
        "connection cap and problem+json for malformed requests); httptools costs less CPU.",
    )
    events_page_max: int = Field(default=500, ge=1, description="Largest events page.")
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    public_url: str | None = Field(
        default=None,
        description="The address players reach the service at; every link built starts with it.",
    )
    workers: int = Field(
        default=1, ge=1, le=64, description="Server processes (more than one: PostgreSQL only)."
    )
    problem_base: str = Field(
        default="https://referee.dev/problems/",
        description="Problem `type` URIs are this prefix plus the problem code.",
    )
    sql_echo: bool = False
    sse_keepalive_seconds: float = Field(
        default=15.0, gt=0, description="Keep-alive comment interval of event streams."
    )
    sse_poll_seconds: float = Field(
        default=1.0, gt=0, description="Re-read interval of idle streams without notifications."
    )
    sse_max_seconds: float = Field(
        default=3600.0, gt=0, description="An event stream ends after this long (resumable)."
    )
    games_page_max: int = Field(
        default=100, ge=1, le=1000, description="Largest page of GET /games; most tokens."
    )
    webhook_worker: bool = Field(default=True, description="Run the delivery worker here.")
    gc_tuning: bool = Field(
        default=False,
        description="Tune the garbage collector at startup (app/runtime.py); `referee serve` "
        "turns it on.",
    )
    webhook_poll_seconds: float = Field(default=1.0, gt=0, description="Outbox poll interval.")
    webhook_timeout_seconds: float = Field(
        default=5.0, gt=0, description="Deadline of one delivery try."
    )
    webhook_max_attempts: int = Field(default=8, ge=1, le=100, description="Tries per delivery.")
    webhook_backoff_seconds: float = Field(
        default=2.0, gt=0, description="Delay before the first retry; doubles each retry."
    )
    webhook_backoff_max_seconds: float = Field(default=3600.0, gt=0, description="Retry cap.")
    webhook_concurrency: int = Field(
        default=8, ge=1, le=64, description="Deliveries one process sends at once."
    )
    webhook_allow_private_addresses: bool = Field(
        default=False, description="Allow loopback/private/link-local receivers (tests, LAN)."
    )
    smtp_url: str | None = Field(
        default=None,
        description="smtp://user:pass@host:587?starttls=true or smtps://...; unset: email off.",
    )
    smtp_from: str | None = Field(default=None, description="The From address of emails.")
    smtp_timeout_seconds: float = Field(
        default=10.0, gt=0, description="Limit of each SMTP network operation."
    )
    email_per_address_per_hour: int = Field(
        default=6, ge=1, le=1000, description="Emails one address may get in any hour."
    )
    messages_per_minute: int = Field(
        default=10,
        ge=1,
        le=1000,
        description="Table-talk messages one seat may post to one "
        "game in any minute (then 429 message.rate_limited).",
    )
    rate_limit_per_token: float = Field(
        default=0.0, ge=0, description="Requests per second per bearer token; 0 = off."
    )
    rate_limit_token_burst: int = Field(default=60, ge=1, description="Token bucket size.")
    rate_limit_per_ip: float = Field(
        default=0.0, ge=0, description="Requests per second per client IP; 0 = off."
    )
    rate_limit_ip_burst: int = Field(default=120, ge=1, description="IP bucket size.")
    rate_limit_max_keys: int = Field(
        default=100_000, ge=1, description="Buckets kept per kind (token, IP)."
    )
    rate_limit_shared: Literal["auto", "on", "off"] = Field(
        default="auto",
        description="Rate-limit buckets in the database, one limit for every process "
        "(PostgreSQL only): `on`, `off`, or `auto` (on PostgreSQL with more than one worker).",
    )
    forwarded_allow_ips: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Proxies whose X-Forwarded-For is believed (addresses, networks, `*`); "
        "none by default: the client IP is the socket peer.",
    )
    database_retry_after_seconds: int = Field(
        default=2, ge=1, le=3600, description="Retry-After of 503 service.database_unavailable."
    )
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Origins allowed to call the API from a browser (CORS); `*` for any.",
    )
    cors_max_age: int = Field(default=600, ge=0, description="Preflight cache lifetime (s).")

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        """Accept a comma-separated string or a JSON list (from the environment)."""
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [o.strip().rstrip("/") for o in text.split(",") if o.strip()]
        return value

    @field_validator("forwarded_allow_ips", mode="before")
    @classmethod
    def _split_addresses(cls, value: Any) -> Any:
        """Accept a comma-separated string or a JSON list (from the environment)."""
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [a.strip() for a in text.split(",") if a.strip()]
        return value

    @field_validator("smtp_url", "smtp_from", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("smtp_url")
    @classmethod
    def _smtp_url(cls, value: str | None) -> str | None:
        """A URL the mailer can use (``app.service.smtp.parse_url`` says why not)."""
        if value is not None:
            smtp.parse_url(value)
        return value

    @field_validator("smtp_from")
    @classmethod
    def _smtp_from(cls, value: str | None) -> str | None:
        return None if value is None else smtp.check_from(value)

    @field_validator("public_url", mode="before")
    @classmethod
    def _public_url(cls, value: Any) -> Any:
        """An absolute http(s) URL without its trailing slash; empty means unset."""
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        if not isinstance(value, str):
            raise ValueError("must be a URL string")
        return normalise_public_url(value)


def get_settings() -> Settings:
    """Settings from the environment (a fresh read each call)."""
    return Settings()
