"""The models the client returns: the service's own result models (so they cannot drift from
the API), in one place. ``Ruling`` and its parts come from :mod:`app.rules.ruling`."""

from __future__ import annotations

from app.rules.ruling import Citation, Effect, InterpretationRef, Ruling, Violation
from app.service.results import (
    ActionResult,
    AuditReport,
    CreatedGame,
    DiceInfo,
    DiceVerification,
    DryRun,
    EventPage,
    EventView,
    GameView,
    QueryResult,
    RulesetInfo,
    RulesetSummary,
    ScenarioView,
)
from app.service.sealed import RevealView, SealedListing, SubmitResult

__all__ = [
    "ActionResult",
    "AuditReport",
    "Citation",
    "CreatedGame",
    "DiceInfo",
    "DiceVerification",
    "DryRun",
    "Effect",
    "EventPage",
    "EventView",
    "GameView",
    "InterpretationRef",
    "QueryResult",
    "RevealView",
    "RulesetInfo",
    "RulesetSummary",
    "Ruling",
    "ScenarioView",
    "SealedListing",
    "SubmitResult",
    "Violation",
]
