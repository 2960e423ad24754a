"""The rulesets this server knows: catalogs, interpretations, schemas, queries."""

from __future__ import annotations

from fastapi import APIRouter

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
