"""Running a ruleset's named read-only queries (``GET /games/{id}/queries/{name}``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from app.db.uow import AbstractUnitOfWork
from app.service.boards import BoardCache
from app.service.errors import InvalidInput, QueryNotFound, field_errors
from app.service.pipeline import clock_now, guard, reading
from app.service.results import QueryResult


def run_query(
    uow: AbstractUnitOfWork,
    game_id: str,
    name: str,
    params: Mapping[str, Any],
    *,
    token: str | None,
    boards: BoardCache,
    now: float | None = None,
) -> QueryResult:
    """Run one of the ruleset's named read-only queries with query-string parameters."""
    with reading(uow, game_id, token=token, boards=boards, now=clock_now(now)) as (game, _):
        spec = game.ruleset.queries().get(name)
        if spec is None:
            raise QueryNotFound(
                f"ruleset {game.ruleset.id!r} has no query {name!r}",
                known=sorted(game.ruleset.queries()),
            )
        try:
            parsed = spec.params.model_validate(dict(params))
        except ValidationError as exc:
            raise InvalidInput(
                f"invalid parameters for query {name!r}",
                field_errors(exc, source="query"),
                code="query.invalid_params",
            ) from exc
        with guard("query"):
            result = spec.run(game.board, game.state, game.options, parsed)
        return QueryResult(query=name, version=game.row.version, result=result)
