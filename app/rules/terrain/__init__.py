"""The `terrain` ruleset: measured table-top terrain (seed 003, Terrain Definitions A.1-A.47).

Importing this package registers :class:`TerrainRuleset` with the registry.
"""

from __future__ import annotations

from app.rules import registry
from app.rules.terrain.catalog import CATALOG, INTERPRETATIONS
from app.rules.terrain.models import Board, Options, Scenario, State
from app.rules.terrain.ruleset import TerrainRuleset

RULESET = registry.register(TerrainRuleset())

__all__ = [
    "CATALOG",
    "INTERPRETATIONS",
    "RULESET",
    "Board",
    "Options",
    "Scenario",
    "State",
    "TerrainRuleset",
]
