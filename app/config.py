"""Service configuration, read from ``REFEREE_*`` environment variables.

* ``REFEREE_DATABASE_URL`` -- SQLAlchemy URL: ``sqlite:///path/to/file.db`` or
  ``postgresql+psycopg://user:password@host:5432/db``. Default ``sqlite:///./var/referee.db``
  (the directory is created on first connect).
* ``REFEREE_MAX_BODY_BYTES`` -- largest accepted request body; larger gets 413. Default 1 MiB.
* ``REFEREE_BOARD_CACHE_SIZE`` -- parsed boards kept in memory (LRU). Default 128.
* ``REFEREE_EVENTS_PAGE_MAX`` -- largest page of ``GET /games/{id}/events``. Default 500.
* ``REFEREE_HOST`` / ``REFEREE_PORT`` -- where ``referee serve`` listens. Default
  ``127.0.0.1:8000``.
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
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite:///./var/referee.db"


class Settings(BaseSettings):
    """Runtime settings; every field maps to ``REFEREE_<FIELD>``."""

    model_config = SettingsConfigDict(env_prefix="REFEREE_", extra="ignore", frozen=True)

    database_url: str = Field(
        default=DEFAULT_DATABASE_URL,
        description="SQLAlchemy database URL (SQLite file or PostgreSQL via psycopg 3).",
    )
    max_body_bytes: int = Field(default=1024 * 1024, ge=1, description="Request body limit.")
    board_cache_size: int = Field(default=128, ge=1, description="Parsed boards kept (LRU).")
    events_page_max: int = Field(default=500, ge=1, description="Largest events page.")
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
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


def get_settings() -> Settings:
    """Settings from the environment (a fresh read each call)."""
    return Settings()
