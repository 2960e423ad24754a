"""The `zoi` ruleset: La Bataille rule 14, Zone d'Influence (seed 002).

``RULESET`` is the instance :mod:`app.rules.registry` discovers and registers.
"""

from __future__ import annotations

from app.rules.zoi.catalog import CATALOG, INTERPRETATIONS
from app.rules.zoi.models import ZoiBoard, ZoiOptions, ZoiScenario, ZoiState
from app.rules.zoi.ruleset import ZoiRuleset

RULESET = ZoiRuleset()

__all__ = [
    "CATALOG",
    "INTERPRETATIONS",
    "RULESET",
    "ZoiBoard",
    "ZoiOptions",
    "ZoiRuleset",
    "ZoiScenario",
    "ZoiState",
]
