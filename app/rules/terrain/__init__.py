"""The `terrain` ruleset: measured table-top terrain (seed 003, Terrain Definitions A.1-A.47).

``RULESET`` is the instance :mod:`app.rules.registry` discovers and registers.
"""

from __future__ import annotations

from app.rules.terrain.catalog import CATALOG, INTERPRETATIONS
from app.rules.terrain.models import Board, Options, Scenario, State
from app.rules.terrain.ruleset import TerrainRuleset

RULESET = TerrainRuleset()

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
