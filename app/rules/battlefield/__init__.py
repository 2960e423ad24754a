"""The `battlefield` ruleset: seed 003 as one game on one measured table (terrain and
objective zones composed).

``RULESET`` is the instance :mod:`app.rules.registry` discovers and registers.
"""

from __future__ import annotations

from app.rules.battlefield.catalog import CATALOG, INTERPRETATIONS
from app.rules.battlefield.models import Board, Options, Scenario, State
from app.rules.battlefield.ruleset import BattlefieldRuleset

RULESET = BattlefieldRuleset()

__all__ = [
    "CATALOG",
    "INTERPRETATIONS",
    "RULESET",
    "BattlefieldRuleset",
    "Board",
    "Options",
    "Scenario",
    "State",
]
