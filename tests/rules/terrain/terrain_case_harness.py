"""Load and run the data-fixture rule cases of the ``terrain`` ruleset (``cases/*.yaml``).

A case has ``name``, ``description``, ``scenario_ref`` (or ``scenario``) plus optional
``patch`` (merged as in tests/rules/case_tools.py), ``options``, ``dice`` (d10 values) and
exactly one of ``action``, ``query`` (``{name, params}``) or ``invalid_scenario`` (a list of
``{loc, section}`` the setup must report). ``expect`` holds ``legal``, ``violations`` (codes in
order), ``effects`` (complete list, in order), ``citations``, ``not_cited``, ``details``,
``interpretations`` (exact set), ``result`` (query subset), ``after`` (state subset) and
``dice_needed``. A case may set ``guidance: true`` when it covers scenario-design guidance.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.rules import InvalidScenario, registry
from tests.rules import case_tools
from tests.rules.case_tools import Case, assert_verdict, merge

HERE = Path(__file__).resolve().parent
CASES_DIR = HERE / "cases"
REPO = HERE.parents[2]


def load_cases() -> list[Case]:
    return case_tools.load_cases(CASES_DIR)


def scenario_of(case: Case) -> dict[str, Any]:
    data = case.data
    if "scenario_ref" in data:
        base = json.loads((REPO / data["scenario_ref"]).read_text(encoding="utf-8"))
    else:
        base = data["scenario"]
    patches = data.get("patch")
    for patch in patches if isinstance(patches, list) else [patches] if patches else []:
        base = merge(base, patch)
    return dict(base)


def subset(expected: Any, actual: Any, where: str = "") -> None:
    case_tools.subset(expected, actual, where, lists="any_item", empty_dict_is_exact=True)


def cited_sections(case: Case) -> set[str]:
    """The sections a case pins down (expected citations and invalid-scenario clauses)."""
    out = set(case.expect.get("citations", []))
    out.update(e["section"] for e in case.data.get("invalid_scenario", []) if "section" in e)
    return out


def run_case(case: Case) -> None:
    rs = registry.get("terrain")
    data = case.data
    expect = case.expect
    options = rs.parse_options(data.get("options") or {})
    scenario = rs.parse_scenario(scenario_of(case))
    if "invalid_scenario" in data:
        try:
            rs.setup(scenario, options)
        except InvalidScenario as exc:
            for want in data["invalid_scenario"]:
                loc = list(want["loc"])
                assert any(
                    list(e["loc"])[: len(loc)] == loc and e.get("section") == want.get("section")
                    for e in exc.errors
                ), f"no error {want}; errors: {exc.errors}"
            return
        raise AssertionError("the scenario was accepted")
    board, state = rs.setup(scenario, options)
    if "query" in data:
        spec = rs.queries()[data["query"]["name"]]
        params = spec.params.model_validate(data["query"].get("params") or {})
        result = spec.run(board, state, options, params)
        json.dumps(result)
        subset(expect.get("result", {}), result, "result")
        cited = set(result.get("citations", []))
        for section in expect.get("citations", []):
            assert section in cited, f"section {section} not cited; cited: {sorted(cited)}"
        if "interpretations" in expect:
            assert set(result.get("interpretations", [])) == set(expect["interpretations"])
        return
    action = rs.parse_action(data["action"])
    if "dice_needed" in expect:
        assert list(rs.dice_needed(board, state, action)) == expect["dice_needed"]
    dice = list(data.get("dice") or [])
    ruling = rs.adjudicate(board, state, action, options, dice)
    assert rs.adjudicate(board, state, action, options, dice) == ruling, "not deterministic"
    dump = assert_verdict(case.name, expect, ruling, subset)
    if "violation" in expect:
        subset(expect["violation"], dump["violations"][0], "violation")
    if "details" in expect:
        subset(expect["details"], dump["details"], "details")
    if "interpretations" in expect:
        got = {i.id for i in ruling.interpretations}
        assert got == set(expect["interpretations"]), f"interpretations {sorted(got)}"
    if ruling.legal:
        before = state.model_dump(mode="json")
        after = rs.apply(board, state, action, ruling)
        assert state.model_dump(mode="json") == before, "apply mutated its input"
        if "after" in expect:
            subset(expect["after"], after.model_dump(mode="json"), "after")
