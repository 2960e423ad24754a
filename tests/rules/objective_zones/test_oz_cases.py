"""One test per data-fixture rule case, plus the catalog coverage check."""

from __future__ import annotations

import pytest
from oz_case_harness import Case, load_cases, run_case

from app.rules.objective_zones.catalog import CATALOG

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
            assert "legal" in case.expect, f"{case.name}: no expected verdict"
            assert "effects" in case.expect, f"{case.name}: no expected effects"


def test_every_catalog_entry_is_cited_by_a_case() -> None:
    covered: set[str] = set()
    for case in CASES:
        covered.update(case.expect.get("citations", []))
    unknown = covered - set(CATALOG.ids())
    assert not unknown, f"cases cite sections the catalog does not list: {sorted(unknown)}"
    missing = [s for s in CATALOG.ids() if s not in covered]
    assert not missing, f"catalog entries no case cites: {missing}"
