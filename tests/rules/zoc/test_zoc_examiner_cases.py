"""The second examiner's rule cases (``cases_examiner/*.yaml``), one test each.

Same format and harness as ``cases/`` (see ``zoc_case_harness.py``); written from the text of
section 8, ``docs/rulesets/zoc.md`` and ``docs/API.md`` before reading the code.
"""

from __future__ import annotations

import pytest
from zoc_case_harness import CASES_DIR, REVIEW_DIR, Case, load_cases, run_case

from app.rules.zoc.catalog import CATALOG

EXAMINER_DIR = CASES_DIR.parent / "cases_examiner"
CASES = load_cases(EXAMINER_DIR)


def test_examiner_cases_exist_and_are_unique() -> None:
    names = [c.name for c in CASES]
    assert len(names) >= 30, f"only {len(names)} examiner cases"
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert all(n.startswith("exam-") for n in names), "examiner case names start with exam-"
    others = {c.name for c in load_cases(CASES_DIR) + load_cases(REVIEW_DIR)}
    assert not others & set(names), sorted(others & set(names))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_examiner_case(case: Case) -> None:
    assert case.data.get("description"), f"{case.name}: no description"
    cited = case.expect.get("citations", []) + case.expect.get("illustrates", [])
    if "action" in case.data:
        assert "effects" in case.expect, f"{case.name}: no expected effects ([] if none)"
    assert set(cited) <= set(CATALOG.ids()), f"{case.name}: unknown sections"
    run_case(case)
