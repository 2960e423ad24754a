"""One test per data-fixture rule case of ``battlefield``, the coverage of its own catalog
entries, and the shipped battle being the ruleset's example."""

from __future__ import annotations

import json

import pytest
from bf_case_harness import BATTLE, Case, load_cases, run_case

from app.rules import registry
from app.rules.battlefield.catalog import CATALOG, OWN_IDS

CASES = load_cases()


def test_case_names_are_unique() -> None:
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_case(case: Case) -> None:
    run_case(case)


def test_every_case_states_its_verdict_and_citations() -> None:
    for case in CASES:
        assert case.data.get("description"), f"{case.name}: no description"
        if "invalid_scenario" in case.data:
            continue
        assert case.expect.get("citations"), f"{case.name}: no citation"
        if "action" in case.data or "sealed" in case.data:
            assert "legal" in case.expect and "effects" in case.expect, case.name


def test_every_own_catalog_entry_is_cited_by_a_case() -> None:
    """The composed catalog lists the terrain and objective-zone sections too; those are
    covered by their own rulesets' cases. Here: the battlefield's own entries."""
    covered: set[str] = set()
    for case in CASES:
        covered.update(case.expect.get("citations", []))
    unknown = covered - set(CATALOG.ids())
    assert not unknown, f"cases cite sections the catalog does not list: {sorted(unknown)}"
    missing = [s for s in OWN_IDS if s not in covered]
    assert not missing, f"catalog entries no case cites: {missing}"


def test_the_shipped_battle_is_the_example() -> None:
    shipped = json.loads(BATTLE.read_text(encoding="utf-8"))
    assert registry.get("battlefield").example_scenario() == shipped
