"""Liveness and database reachability."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text

from app.api.problems import responses

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
    """``ok`` when the service runs and its database answers."""
    try:
        with request.app.state.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception:
        return JSONResponse({"status": "degraded", "database": "unreachable"}, status_code=503)
    return {"status": "ok", "database": "ok"}
