"""The `objective-zones` ruleset: Operational Objective Zones (seed 003).

Importing this package registers :class:`ObjectiveZonesRuleset` with the registry.
"""

from __future__ import annotations

from app.rules import registry
from app.rules.objective_zones.catalog import CATALOG, INTERPRETATIONS
from app.rules.objective_zones.models import Board, Options, Scenario, State
from app.rules.objective_zones.ruleset import ObjectiveZonesRuleset

RULESET = registry.register(ObjectiveZonesRuleset())

__all__ = [
    "CATALOG",
    "INTERPRETATIONS",
    "RULESET",
    "Board",
    "ObjectiveZonesRuleset",
    "Options",
    "Scenario",
    "State",
]
