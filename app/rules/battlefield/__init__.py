"""The `battlefield` ruleset: seed 003 as one game on one measured table (terrain and
objective zones composed). Importing this package registers :class:`BattlefieldRuleset`."""

from __future__ import annotations

from app.rules import registry
from app.rules.battlefield.catalog import CATALOG, INTERPRETATIONS
from app.rules.battlefield.models import Board, Options, Scenario, State
from app.rules.battlefield.ruleset import BattlefieldRuleset

RULESET = registry.register(BattlefieldRuleset())

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
