"""Every rule case of every ruleset, judged in the rules core (format: tests/rules/rule_cases.py),
plus the checks on the case collection itself: unique names, authors, coverage of catalogs."""

from __future__ import annotations

import typing
from typing import Any

import pytest

from app.rules import registry
from app.rules.battlefield.catalog import OWN_IDS
from app.rules.terrain.catalog import GUIDANCE_SECTIONS
from tests.rules import convert_cases, frozen
from tests.rules.rule_cases import (
    AUTHORS,
    PACKAGES,
    Case,
    _setup,
    all_cases,
    iter_cited,
    run_case,
)

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


HOME_READINGS = {
    "zoc": "zoc.",
    "zoi": "zoi.",
    "terrain": "terrain.",
    "objective-zones": "oz.",
    "battlefield": "bf.",
}
"""The interpretations each ruleset's cases answer for: its own (battlefield is composed: the
terrain and zone readings are exercised in their home rulesets, as its sections are)."""

READINGS_NOT_YET_PER_CLAUSE: dict[tuple[str, str], str] = {
    ("oz.defender-guns", "OZ.Assault.B.3"): "no ruling cites B.3 for garrison guns that support "
    "a sector, under either reading (the dice they add are cited to OZ.Assault.C)",
    ("oz.defender-guns", "OZ.Basic.E"): "no melee ruling cites Basic.E; garrison fire (Basic.E) "
    "does not depend on the option",
    ("terrain.hill-sight", "A.33"): "A.33 is scenario-design guidance (GUIDANCE_SECTIONS): only "
    "scenario-check cites it, never a sight line",
    ("terrain.in-feature", "A.44"): "no ruling depends on whether a halted unit stands in woods "
    "or rough (A.44-A.46 modify actions by charts the ruleset does not have); in-feature decides "
    "fords, buildings and works only",
    ("terrain.in-feature", "A.45"): "as A.44",
    ("terrain.in-feature", "A.46"): "as A.44",
}
"""(reading, clause) pairs no case exercises on the other reading yet, each with why; the test
fails when one is covered (take it off) and on any pair missing that is not listed."""


def _option_values(rs: Any, option: str) -> list[Any]:
    """Every value an option can take other than its default (booleans and literals)."""
    defaults = rs.parse_options({})
    field = type(defaults).model_fields[option]
    if field.annotation is bool:
        values: list[Any] = [True, False]
    elif typing.get_origin(field.annotation) is typing.Literal:
        values = list(typing.get_args(field.annotation))
    else:
        values = []
    return [v for v in values if v != getattr(defaults, option)]


def _cited_by(case: Case, options: dict[str, Any]) -> set[str]:
    """The sections the case's ruling (or query answer) cites under ``options``."""
    data = dict(case.data, options=options)
    rs, opts, board, state = _setup(Case(case.ruleset, case.file, data))
    if "query" in data:
        spec = rs.queries()[data["query"]["name"]]
        answer = spec.run(board, state, opts, spec.params.model_validate(data["query"]["params"]))
        return set(answer.get("citations") or [])
    action = rs.parse_action(data["action"])
    ruling = rs.adjudicate(board, state, action, opts, list(data.get("dice") or []))
    return {c.section for c in ruling.citations}


def test_every_reading_is_exercised_on_each_clause_it_touches() -> None:
    """For each interpretation with an option and each clause it concerns, some case of the
    ruleset sets the option to another reading and states what that reading does to the
    clause: cites it, or lists it in ``not_cited`` where the same case on the default reading
    does cite it (the other reading takes the clause away). Lists the pairs no case sets."""
    missing = []
    for ruleset in PACKAGES:
        rs = registry.get(ruleset)
        cases = [c for c in CASES if c.ruleset == ruleset]
        for interp in rs.interpretations:
            if not interp.option or not interp.id.startswith(HOME_READINGS[ruleset]):
                continue
            others = _option_values(rs, interp.option)
            if not others:  # an option with one value: no other reading to exercise
                continue
            flipped = [
                c
                for c in cases
                if (c.data.get("options") or {}).get(interp.option, others[0]) in others
                and interp.option in (c.data.get("options") or {})
            ]
            for clause in interp.sections:
                if any(
                    clause in {*iter_cited(c), *c.expect.get("violation_citations", [])}
                    for c in flipped
                ):
                    continue
                taken = [c for c in flipped if clause in c.expect.get("not_cited", [])]
                if any(
                    clause
                    in _cited_by(
                        c, {k: v for k, v in c.data["options"].items() if k != interp.option}
                    )
                    for c in taken
                ):
                    continue
                missing.append((interp.id, clause))
    listed = set(READINGS_NOT_YET_PER_CLAUSE)
    assert not sorted(set(missing) - listed), f"no case exercises: {sorted(set(missing) - listed)}"
    assert not sorted(listed - set(missing)), f"covered now: {sorted(listed - set(missing))}"


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
