"""Examiner's rule cases (``cases_review/``), written from the text and the ruleset docs
independently of the implementation; run with the same harness as ``cases/``."""

from __future__ import annotations

import pytest
from oz_case_harness import HERE, Case, load_cases, run_case

REVIEW = load_cases(HERE / "cases_review")


def test_review_cases_exist_and_are_unique() -> None:
    names = [c.name for c in REVIEW]
    assert names, "no review cases found"
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


@pytest.mark.parametrize("case", REVIEW, ids=[c.name for c in REVIEW])
def test_review_case(case: Case) -> None:
    assert case.data.get("description"), f"{case.name}: no description"
    assert case.expect.get("citations") or "invalid_scenario" in case.data, case.name
    run_case(case)
