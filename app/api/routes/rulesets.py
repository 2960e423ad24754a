"""The rulesets this server knows: catalogs, interpretations, schemas, queries."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.api import ruleset_openapi
from app.api.problems import responses
from app.service import rulesets as uc
from app.service.results import RulesetInfo, RulesetSummary

router = APIRouter(prefix="/rulesets", tags=["rulesets"])


@router.get("", summary="List rulesets", response_model=list[RulesetSummary])
def list_rulesets() -> list[RulesetSummary]:
    """Every registered ruleset: id, version, title."""
    return uc.list_rulesets()


@router.get(
    "/{ruleset_id}",
    summary="Describe a ruleset",
    response_model=RulesetInfo,
    responses=responses(404),
)
def describe_ruleset(ruleset_id: str) -> RulesetInfo:
    """Catalog sections (id, title, own-words summary), interpretations with the option that
    flips each, JSON schemas of the scenario, options and every action kind, the queries with
    their parameter schemas, and an example scenario when the ruleset ships one."""
    return uc.describe_ruleset(ruleset_id)


@router.get(
    "/{ruleset_id}/openapi.json",
    summary="The API typed for one ruleset (OpenAPI)",
    responses={
        200: {
            "description": "An OpenAPI 3.1 document: POST /games with this ruleset's scenario "
            "and options, the action union by `kind` (rulings, actions), `state` in game views "
            "and action results, and each query as its own path with typed parameters and "
            "result. For client generators.",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
        **responses(404),
    },
)
def ruleset_openapi_document(ruleset_id: str) -> Any:
    """Generate a typed client from it (e.g. `openapi-python-client generate --url
    .../rulesets/zoc/openapi.json`); operations the same for every ruleset are in
    `/openapi.json`."""
    return ruleset_openapi.document(ruleset_id)
