"""The `zoi` ruleset: La Bataille rule 14, Zone d'Influence (seed 002).

Importing the package registers :class:`ZoiRuleset` with :mod:`app.rules.registry`.
"""

from __future__ import annotations

from app.rules import registry
from app.rules.zoi.catalog import CATALOG, INTERPRETATIONS
from app.rules.zoi.models import ZoiBoard, ZoiOptions, ZoiScenario, ZoiState
from app.rules.zoi.ruleset import ZoiRuleset

registry.register(ZoiRuleset())

__all__ = [
    "CATALOG",
    "INTERPRETATIONS",
    "ZoiBoard",
    "ZoiOptions",
    "ZoiRuleset",
    "ZoiScenario",
    "ZoiState",
]
