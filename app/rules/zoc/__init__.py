"""The `zoc` ruleset: Zone of Control, sections 8-8.2 (seed 000).

Importing this package registers :class:`ZocRuleset` with :mod:`app.rules.registry`.

>>> from app.rules import registry
>>> registry.get("zoc").id
'zoc'
"""

from __future__ import annotations

from app.rules import registry
from app.rules.zoc.catalog import CATALOG, INTERPRETATIONS
from app.rules.zoc.models import Board, Scenario, State, ZocOptions
from app.rules.zoc.ruleset import ZocRuleset

RULESET = registry.register(ZocRuleset())

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
