"""Use cases: plain functions taking a unit of work (cosmicpython's service layer)."""

from __future__ import annotations

from app.service.actions import dry_run, submit_action
from app.service.boards import BoardCache
from app.service.events import get_event, list_events
from app.service.games import create_game, get_game, get_scenario
from app.service.pipeline import IfMatch
from app.service.queries import run_query
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
