"""The honest HTTP baseline: a bare FastAPI app with raw ``sqlite3`` / ``psycopg``.

No project code (nothing is imported from ``app``), no middleware, no ORM, no pool: one
connection per worker thread, opened with the project's database settings (as
``app/db/engine.py`` sets them: SQLite in WAL mode, ``synchronous=NORMAL``, foreign keys on,
a 30 s busy timeout, write transactions begun with ``BEGIN IMMEDIATE``; PostgreSQL through
psycopg 3 with a 5 s connect timeout).

* ``GET /healthz`` answers ``SELECT 1``.
* ``GET /bare/read/{id}`` selects one row by primary key (a JSON text the size of a game's
  state, copied from the game the bench measures) and answers the text as is.
* ``POST /bare/write/{id}`` updates one row and inserts one (the request body), in one
  transaction: the shape of a submission's write.

Start: ``uvicorn bench.bare:create --factory`` with ``BARE_DATABASE_URL`` set
(``sqlite:///path`` or ``postgresql://...``); :func:`seed` creates the tables and the rows.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, HTTPException, Request, Response
from starlette.concurrency import run_in_threadpool

TABLES = (
    "CREATE TABLE IF NOT EXISTS bare_doc (id VARCHAR(36) PRIMARY KEY, version INTEGER NOT NULL,"
    " state TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS bare_log (id {serial} PRIMARY KEY, doc VARCHAR(36) NOT NULL,"
    " version INTEGER NOT NULL, body TEXT NOT NULL)",
)


def _is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def _sqlite_path(url: str) -> str:
    return url.split(":///", 1)[1]


def _pg_dsn(url: str) -> str:
    """``postgresql+psycopg://`` (SQLAlchemy's spelling) -> ``postgresql://`` (libpq's)."""
    scheme, rest = url.split("://", 1)
    return "postgresql://" + rest if scheme.startswith("postgres") else url


class Db:
    """One raw connection per thread (uvicorn's thread pool runs the sync work)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sqlite = _is_sqlite(url)
        self.param = "?" if self.sqlite else "%s"
        self._local = threading.local()

    def conn(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
        return conn

    def _connect(self) -> Any:
        if self.sqlite:
            conn = sqlite3.connect(
                _sqlite_path(self.url), timeout=30, check_same_thread=False, isolation_level=None
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute("PRAGMA synchronous=NORMAL")
            return conn
        import psycopg

        dsn = _pg_dsn(self.url)
        if "connect_timeout" in (urlsplit(dsn).query or ""):
            return psycopg.connect(dsn, autocommit=True)
        return psycopg.connect(dsn, autocommit=True, connect_timeout=5)

    def health(self) -> None:
        self.conn().execute("SELECT 1").fetchone()

    def read(self, doc: str) -> str | None:
        row = (
            self.conn()
            .execute(f"SELECT state FROM bare_doc WHERE id = {self.param}", (doc,))
            .fetchone()
        )
        return None if row is None else str(row[0])

    def write(self, doc: str, body: str) -> int | None:
        conn = self.conn()
        p = self.param
        conn.execute("BEGIN IMMEDIATE" if self.sqlite else "BEGIN")
        try:
            row = conn.execute(
                f"UPDATE bare_doc SET version = version + 1 WHERE id = {p} RETURNING version",
                (doc,),
            ).fetchone()
            if row is None:
                conn.execute("ROLLBACK")
                return None
            conn.execute(
                f"INSERT INTO bare_log (doc, version, body) VALUES ({p}, {p}, {p})",
                (doc, row[0], body),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return int(row[0])


def seed(url: str, docs: dict[str, str]) -> None:
    """Create the tables and one row per id holding the given JSON text (replaced if there)."""
    db = Db(url)
    conn = db.conn()
    serial = "INTEGER" if db.sqlite else "SERIAL"
    for ddl in TABLES:
        conn.execute(ddl.format(serial=serial))
    p = db.param
    for doc, state in docs.items():
        conn.execute(f"DELETE FROM bare_doc WHERE id = {p}", (doc,))
        conn.execute(
            f"INSERT INTO bare_doc (id, version, state) VALUES ({p}, 1, {p})", (doc, state)
        )
    conn.close()


def create() -> FastAPI:
    db = Db(os.environ["BARE_DATABASE_URL"])
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        db.health()
        return {"status": "ok", "database": "ok"}

    @app.get("/bare/read/{doc}")
    def bare_read(doc: str) -> Response:
        state = db.read(doc)
        if state is None:
            raise HTTPException(404)
        return Response(state, media_type="application/json")

    @app.post("/bare/write/{doc}")
    async def bare_write(doc: str, request: Request) -> dict[str, Any]:
        body = (await request.body()).decode()
        version = await run_in_threadpool(db.write, doc, body)
        if version is None:
            raise HTTPException(404)
        return {"id": doc, "version": version}

    return app
