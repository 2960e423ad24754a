"""The rulesets this server knows: catalogs, interpretations, schemas, queries."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from app.api import ruleset_openapi, static_docs
from app.api.problems import responses
from app.rules import registry
from app.service import rulesets as uc
from app.service.results import RulesetInfo, RulesetSummary

_NOT_MODIFIED: dict[int | str, dict[str, Any]] = {
    304: {"description": "Not modified: `If-None-Match` names the current ETag."}
}

router = APIRouter(prefix="/rulesets", tags=["rulesets"])


def _version(ruleset_id: str) -> str:
    """A registered ruleset's version; the service's 404 problem when unknown."""
    try:
        return registry.get(ruleset_id).version
    except registry.UnknownRuleset:
        uc.describe_ruleset(ruleset_id)  # raises RulesetNotFound (404)
        raise


@router.get(
    "",
    summary="List rulesets",
    response_model=list[RulesetSummary],
    responses=_NOT_MODIFIED,
)
def list_rulesets(request: Request) -> Response:
    """Every registered ruleset: id, version, title. Built once per set of ruleset ids and
    versions; served with a strong `ETag` (`If-None-Match` answers 304)."""
    key = ("list", tuple((r.id, r.version) for r in registry.all_rulesets()))
    return static_docs.respond(request, static_docs.document(key, uc.list_rulesets))


@router.get(
    "/{ruleset_id}",
    summary="Describe a ruleset",
    response_model=RulesetInfo,
    responses={**_NOT_MODIFIED, **responses(404)},
)
def describe_ruleset(ruleset_id: str, request: Request) -> Response:
    """Catalog sections (id, title, own-words summary), interpretations with the option that
    flips each, JSON schemas of the scenario, options and every action kind, the queries with
    their parameter schemas, and an example scenario when the ruleset ships one. Built once
    per ruleset id and version; served with a strong `ETag` (`If-None-Match` answers 304)."""
    key = ("describe", ruleset_id, _version(ruleset_id))
    doc = static_docs.document(key, lambda: uc.describe_ruleset(ruleset_id))
    return static_docs.respond(request, doc)


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
        **_NOT_MODIFIED,
        **responses(404),
    },
)
def ruleset_openapi_document(ruleset_id: str, request: Request) -> Response:
    """Generate a typed client from it (e.g. `openapi-python-client generate --url
    .../rulesets/zoc/openapi.json`); operations the same for every ruleset are in
    `/openapi.json`. Served with a strong `ETag` (`If-None-Match` answers 304)."""
    key = ("openapi", ruleset_id, _version(ruleset_id))
    doc = static_docs.document(key, lambda: ruleset_openapi.document(ruleset_id))
    return static_docs.respond(request, doc)
