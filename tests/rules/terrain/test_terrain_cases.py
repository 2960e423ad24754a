"""One test per data-fixture rule case of ``terrain``, plus the catalog coverage checks."""

from __future__ import annotations

import pytest
from terrain_case_harness import Case, cited_sections, load_cases, run_case

from app.rules.terrain.catalog import CATALOG, GUIDANCE_SECTIONS

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
        assert cited_sections(case), f"{case.name}: cites nothing"
        if "action" in case.data:
            assert "legal" in case.expect and "effects" in case.expect, case.name


def test_every_catalog_entry_is_cited_by_a_case() -> None:
    covered: set[str] = set()
    for case in CASES:
        sections = cited_sections(case)
        if case.data.get("guidance"):
            assert sections <= set(CATALOG.ids()), case.name
        covered |= sections
    unknown = covered - set(CATALOG.ids())
    assert not unknown, f"cases cite sections the catalog does not list: {sorted(unknown)}"
    missing = [s for s in CATALOG.ids() if s not in covered]
    assert not missing, f"catalog entries no case cites: {missing}"


def test_guidance_sections_are_cited_by_guidance_cases_only() -> None:
    for case in CASES:
        if "action" in case.data:
            assert not cited_sections(case) & set(GUIDANCE_SECTIONS), case.name
