"""Read-only questions a front end may ask about a game (zone maps, reachable hexes…)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from app.api.deps import BoardsDep, NowDep, SeatDep, UowDep
from app.api.problems import responses
from app.service import queries as uc
from app.service.results import QueryResult

router = APIRouter(prefix="/games/{game_id}/queries", tags=["queries"])


@router.get(
    "/{name}",
    summary="Run a ruleset query",
    response_model=QueryResult,
    responses=responses(401, 404, 422, 503),
)
def run_query(
    game_id: str,
    name: str,
    request: Request,
    uow: UowDep,
    boards: BoardsDep,
    token: SeatDep,
    now: NowDep,
) -> QueryResult:
    """Parameters come from the query string and are validated by the query's parameter
    schema (listed by GET /rulesets/{id}); a repeated parameter becomes a list."""
    params: dict[str, Any] = {}
    for key, value in request.query_params.multi_items():
        if key in params:
            prior = params[key]
            params[key] = [*prior, value] if isinstance(prior, list) else [prior, value]
        else:
            params[key] = value
    return uc.run_query(uow, game_id, name, params, token=token, boards=boards, now=now)
