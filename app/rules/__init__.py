"""The rules core: pure Python, usable as a library with no server.

>>> from app.rules import registry
>>> [r.id for r in registry.all_rulesets()]  # doctest: +SKIP
['zoc', 'zoi']
"""

from __future__ import annotations

from app.rules.base import (
    UMPIRE,
    InvalidQuery,
    InvalidScenario,
    PhaseSpec,
    Position,
    QuerySpec,
    RulesError,
    Ruleset,
    SealedDecision,
    SequenceOfPlay,
    Sides,
)
from app.rules.catalog import Catalog, Interpretation, RuleSection
from app.rules.ruling import Citation, Effect, InterpretationRef, Ruling, Violation

__all__ = [
    "UMPIRE",
    "Catalog",
    "Citation",
    "Effect",
    "Interpretation",
    "InterpretationRef",
    "InvalidQuery",
    "InvalidScenario",
    "PhaseSpec",
    "Position",
    "QuerySpec",
    "RuleSection",
    "RulesError",
    "Ruleset",
    "Ruling",
    "SealedDecision",
    "SequenceOfPlay",
    "Sides",
    "Violation",
]
