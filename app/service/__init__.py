"""Use cases: plain functions taking a unit of work (cosmicpython's service layer)."""

from __future__ import annotations

from app.service.boards import BoardCache
from app.service.games import (
    create_game,
    dry_run,
    get_event,
    get_game,
    get_scenario,
    list_events,
    run_query,
    submit_action,
)
from app.service.pipeline import IfMatch
from app.service.rulesets import describe_ruleset, list_rulesets

__all__ = [
    "BoardCache",
    "IfMatch",
    "create_game",
    "describe_ruleset",
    "dry_run",
    "get_event",
    "get_game",
    "get_scenario",
    "list_events",
    "list_rulesets",
    "run_query",
    "submit_action",
]
