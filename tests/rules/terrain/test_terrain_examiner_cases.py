"""The independent examiner round of ``terrain`` (``cases_examiner/``), written from the seed
text and docs/rulesets/terrain.md before the implementation was read (issue 14)."""

from __future__ import annotations

import pytest
from terrain_case_harness import HERE, Case, run_case

from tests.rules import case_tools

CASES = case_tools.load_cases(HERE / "cases_examiner")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_examiner_case(case: Case) -> None:
    assert case.data.get("author") == "examiner", case.name
    run_case(case)
