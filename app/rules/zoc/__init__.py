"""The `zoc` ruleset: Zone of Control, sections 8-8.2 (seed 000).

``RULESET`` is the instance :mod:`app.rules.registry` discovers and registers.

>>> >>> registry.get("zoc").id
'zoc'
"""

from __future__ import annotations

from app.rules.zoc.catalog import CATALOG, INTERPRETATIONS
from app.rules.zoc.models import Board, Scenario, State, ZocOptions
from app.rules.zoc.ruleset import ZocRuleset

RULESET = ZocRuleset()

__all__ = [
    "CATALOG",
    "INTERPRETATIONS",
    "RULESET",
    "Board",
    "Scenario",
    "State",
    "ZocOptions",
    "ZocRuleset",
]
