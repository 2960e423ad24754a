"""The shipped battle is the battlefield ruleset's example (its rule cases run with every
other ruleset's in tests/rules/test_rule_cases.py)."""

from __future__ import annotations

import json

from app.rules import registry
from tests.rules.rule_cases import REPO

BATTLE = REPO / "scenarios" / "battlefield" / "millers-crossing.json"


def test_the_shipped_battle_is_the_example() -> None:
    shipped = json.loads(BATTLE.read_text(encoding="utf-8"))
    assert registry.get("battlefield").example_scenario() == shipped
