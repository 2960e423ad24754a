"""Every rule case of every ruleset, judged in the rules core (format: tests/rules/rule_cases.py),
plus the checks on the case collection itself: unique names, authors, coverage of catalogs."""

from __future__ import annotations

import pytest

from app.rules import registry
from app.rules.battlefield.catalog import OWN_IDS
from app.rules.terrain.catalog import GUIDANCE_SECTIONS
from tests.rules import convert_cases, frozen
from tests.rules.rule_cases import AUTHORS, PACKAGES, Case, all_cases, iter_cited, run_case

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule_case(case: Case) -> None:
    run_case(case)


def test_no_old_format_case_files_are_left() -> None:
    assert convert_cases.run(check_only=True) == 0, "run: python -m tests.rules.convert_cases"


@pytest.mark.parametrize("ruleset", list(PACKAGES))
def test_case_names_are_unique(ruleset: str) -> None:
    names = [c.name for c in CASES if c.ruleset == ruleset]
    assert names, f"no cases for {ruleset}"
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_every_case_states_author_verdict_and_citations() -> None:
    for case in CASES:
        data, expect = case.data, case.expect
        assert data.get("description"), f"{case.id}: no description"
        assert data.get("author") in AUTHORS, f"{case.id}: author must be one of {AUTHORS}"
        assert case.topic != "cases", f"{case.id}: case files live in cases/<topic>/"
        if "invalid_scenario" in data or expect.get("error"):
            continue
        stated = list(iter_cited(case)) or expect.get("interpretations")
        assert stated, f"{case.id}: cites nothing and names no interpretation"
        if "action" in data or "sealed" in data:
            assert "legal" in expect and "effects" in expect, f"{case.id}: verdict and effects"
        loose = expect.get("citations_loose")
        assert loose is None or (isinstance(loose, str) and loose.strip()), case.id


@pytest.mark.parametrize("ruleset", list(PACKAGES))
def test_every_catalog_entry_is_cited_by_a_case(ruleset: str) -> None:
    ids = set(registry.get(ruleset).catalog.ids())
    if ruleset == "battlefield":  # composed: the terrain and zone sections are covered there
        ids = set(OWN_IDS)
    covered = {s for c in CASES if c.ruleset == ruleset for s in iter_cited(c)}
    unknown = covered - set(registry.get(ruleset).catalog.ids())
    assert not unknown, f"cases cite sections the catalog does not list: {sorted(unknown)}"
    missing = sorted(ids - covered)
    assert not missing, f"catalog entries no case cites: {missing}"


def test_terrain_guidance_is_cited_by_guidance_cases_only() -> None:
    for case in CASES:
        if case.ruleset == "terrain" and not case.data.get("guidance"):
            assert not set(iter_cited(case)) & set(GUIDANCE_SECTIONS), case.id


SETUP_READINGS = {
    "terrain.road-exits": "decides whether setup refuses a road; its cases are scenario "
    "refusals and acceptances (roads topic), whose errors name no interpretation",
}


@pytest.mark.parametrize("ruleset", ["zoi", "terrain"])
def test_every_interpretation_is_exercised_both_ways(ruleset: str) -> None:
    """Each interpretation with an option appears in a case on its default and on its
    alternative reading."""
    rs = registry.get(ruleset)
    defaults = rs.parse_options({})
    for interp in rs.interpretations:
        if interp.option is None or interp.id in SETUP_READINGS:
            continue
        default_value = getattr(defaults, interp.option)
        seen = set()
        for case in CASES:
            if case.ruleset != ruleset:
                continue
            if interp.id not in case.expect.get("interpretations", []):
                continue
            value = (case.data.get("options") or {}).get(interp.option, default_value)
            seen.add(value == default_value)
        assert seen == {True, False}, f"{interp.id}: readings seen {seen}"


def test_frozen_cases_are_unchanged() -> None:
    """Reviewer and examiner cases match their committed digests: an edit to what they assert
    needs a new `revised:` note and `python -m tests.rules.frozen` (docs/TESTING.md)."""
    bad = frozen.problems(frozen.load_record(), frozen.frozen_cases())
    assert not bad, "\n".join(bad)


def test_frozen_record_refuses_an_unexplained_edit() -> None:
    cases = frozen.frozen_cases()
    cid, case = next(iter(cases.items()))
    record = {cid: {"digest": frozen.digest(case), "revised": case.data.get("revised")}}
    edited = dict(case.data, expect={**case.expect, "legal": not case.expect.get("legal")})
    changed = {cid: Case(case.ruleset, case.file, edited)}
    assert frozen.problems(record, changed) == [
        f"{cid}: expectations edited without a new `revised:` note (why?)"
    ]
    explained = {cid: Case(case.ruleset, case.file, dict(edited, revised="the text says so"))}
    assert "not recorded yet" in frozen.problems(record, explained)[0]
    assert frozen.problems(record, {}) == [f"{cid}: frozen case removed"]
