"""Liveness and database reachability."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy import text

from app.api.problems import database_problem, responses

log = logging.getLogger("referee.api")
router = APIRouter(tags=["health"])


@router.get(
    "/healthz",
    summary="Health check",
    responses={
        200: {"content": {"application/json": {"example": {"status": "ok", "database": "ok"}}}},
        **responses(503),
    },
)
def healthz(request: Request) -> Any:
    """``ok`` when the service runs and its database answers; otherwise 503
    ``service.database_unavailable`` with ``Retry-After`` (the answer every other route gives
    meanwhile)."""
    try:
        with request.app.state.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:  # whatever stops `SELECT 1` leaves the service unable to serve
        log.warning(
            "health check: database unreachable: %s", (str(exc) or repr(exc)).split("\n")[0]
        )
        return database_problem(request, database="unreachable")
    return {"status": "ok", "database": "ok"}
