"""Read-only use cases about the registered rulesets."""

from __future__ import annotations

from typing import Any

from app.rules import registry
from app.service.errors import RulesetNotFound
from app.service.results import (
    QueryInfo,
    RulesetInfo,
    RulesetSchemas,
    RulesetSummary,
    SectionInfo,
)

AnyRuleset = Any


def _summary(ruleset: AnyRuleset) -> dict[str, Any]:
    return {
        "id": ruleset.id,
        "version": ruleset.version,
        "title": ruleset.title,
        "description": ruleset.description,
        "source": ruleset.source,
    }


def list_rulesets() -> list[RulesetSummary]:
    """Every registered ruleset, by id."""
    return [RulesetSummary(**_summary(r)) for r in registry.all_rulesets()]


def describe_ruleset(ruleset_id: str) -> RulesetInfo:
    """A ruleset's catalog, interpretations, JSON schemas, queries and example scenario."""
    try:
        ruleset = registry.get(ruleset_id)
    except registry.UnknownRuleset:
        raise RulesetNotFound(f"no ruleset {ruleset_id!r}", ruleset=ruleset_id) from None
    return RulesetInfo(
        **_summary(ruleset),
        catalog=[SectionInfo(id=s.id, title=s.title, summary=s.summary) for s in ruleset.catalog],
        interpretations=list(ruleset.interpretations),
        schemas=RulesetSchemas(
            scenario=ruleset.scenario_model.model_json_schema(),
            options=ruleset.options_model.model_json_schema(),
            actions={
                kind: model.model_json_schema() for kind, model in ruleset.action_models.items()
            },
        ),
        queries=[
            QueryInfo(
                name=name,
                description=spec.description,
                params=spec.params.model_json_schema(),
            )
            for name, spec in ruleset.queries().items()
        ],
        example_scenario=ruleset.example_scenario(),
    )
