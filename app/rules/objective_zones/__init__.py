"""The `objective-zones` ruleset: Operational Objective Zones (seed 003).

``RULESET`` is the instance :mod:`app.rules.registry` discovers and registers.
"""

from __future__ import annotations

from app.rules.objective_zones.catalog import CATALOG, INTERPRETATIONS
from app.rules.objective_zones.models import Board, Options, Scenario, State
from app.rules.objective_zones.ruleset import ObjectiveZonesRuleset

RULESET = ObjectiveZonesRuleset()

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
