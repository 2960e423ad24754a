"""The Referee app plus two bare endpoints, served by uvicorn for the HTTP benchmarks.

The bare endpoints are the baseline: the same process, framework, middleware, engine and
connection pool as the real routes, but no game logic.

* ``GET /_bench/read/{id}`` reads one row (the game's version) and answers it as JSON.
* ``POST /_bench/write/{id}`` updates one row and inserts one, in one transaction.

Start: ``uvicorn bench.server:create --factory`` with ``REFEREE_DATABASE_URL`` set.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException
from sqlalchemy import Engine, text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.main import create_app

BARE_TABLES = (
    "CREATE TABLE IF NOT EXISTS bench_counter (id VARCHAR(36) PRIMARY KEY, n INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS bench_log (id {serial} PRIMARY KEY, counter VARCHAR(36) NOT NULL,"
    " n INTEGER NOT NULL, body TEXT NOT NULL)",
)


def create_bare_tables(engine: Engine) -> None:
    serial = "SERIAL" if engine.dialect.name == "postgresql" else "INTEGER"
    with engine.begin() as conn:
        for ddl in BARE_TABLES:
            conn.execute(text(ddl.format(serial=serial)))


def create() -> FastAPI:
    app = create_app()
    engine: Engine = app.state.engine

    @app.get("/_bench/read/{game_id}")
    def bare_read(game_id: str) -> dict[str, Any]:
        with engine.connect() as conn:
            version = conn.execute(
                text("SELECT version FROM games WHERE id = :id"), {"id": game_id}
            ).scalar()
        if version is None:
            raise HTTPException(404)
        return {"id": game_id, "version": version}

    @app.post("/_bench/write/{game_id}")
    def bare_write(game_id: str, body: dict[str, Any]) -> dict[str, Any]:
        with engine.begin() as conn:
            n = conn.execute(
                text("UPDATE bench_counter SET n = n + 1 WHERE id = :id RETURNING n"),
                {"id": game_id},
            ).scalar()
            if n is None:
                raise HTTPException(404)
            conn.execute(
                text("INSERT INTO bench_log (counter, n, body) VALUES (:id, :n, :body)"),
                {"id": game_id, "n": n, "body": str(body)},
            )
        return {"id": game_id, "n": n}

    return app
