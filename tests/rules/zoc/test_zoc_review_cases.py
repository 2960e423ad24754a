"""The independent examiner's rule cases (``cases_review/*.yaml``), one test each.

They use the same format and harness as ``cases/`` (see ``zoc_case_harness.py``) but were
written from the text of section 8 and ``docs/rulesets/zoc.md`` without reading the code.
"""

from __future__ import annotations

import pytest
from zoc_case_harness import REVIEW_DIR, Case, load_cases, run_case

from app.rules.zoc.catalog import CATALOG

CASES = load_cases(REVIEW_DIR)


def test_review_cases_exist_and_are_unique() -> None:
    names = [c.name for c in CASES]
    assert names, "no review cases found"
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert all(n.startswith("review-") for n in names), "review case names start with review-"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_review_case(case: Case) -> None:
    assert case.data.get("description"), f"{case.name}: no description"
    cited = case.expect.get("citations", []) + case.expect.get("illustrates", [])
    assert cited, f"{case.name}: no citation"
    assert set(cited) <= set(CATALOG.ids()), f"{case.name}: unknown sections"
    if "action" in case.data:
        assert "effects" in case.expect, f"{case.name}: no expected effects ([] if none)"
    run_case(case)
