"""Load and run the data-fixture rule cases of the ``zoc`` ruleset (``cases/*.yaml``).

A case file holds ``cases:``, a list of cases. Each case has:

* ``name`` (unique), ``description``;
* ``scenario`` (a whole scenario) or ``scenario_ref`` (a path relative to the repository root,
  e.g. ``scenarios/zoc/seed-example.json``) plus an optional ``patch`` merged into it:
  dicts merge key by key, lists of dicts with ``id`` merge by id (``_remove: true`` drops an
  item), any other value replaces;
* ``options`` (per-game options), ``before`` (actions applied first, each must be legal);
* exactly one of ``action`` (judged by ``adjudicate``), ``query`` (``{name, params}``) or
  ``invalid_scenario`` (expected error locations);
* ``expect``: ``legal``, ``violations`` (codes, in order), ``effects`` (required for every
  ``action`` case: the complete list of effects, in order, ``[]`` when nothing follows; each item
  is an effect kind, or a mapping with ``kind`` and any further fields the effect must have),
  ``citations`` (sections that must be cited), ``not_cited``, ``stop_hex``, ``violation`` (subset
  of the first violation), ``details`` (subset), ``interpretations`` (exact set of ids),
  ``result`` (subset of a query result), ``absent`` (``{key: [subkeys]}`` missing from a query
  result) and ``illustrates`` (example sections the case reproduces).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.rules import registry
from tests.rules import case_tools
from tests.rules.case_tools import Case, assert_invalid_scenario, assert_verdict, merge

HERE = Path(__file__).resolve().parent
CASES_DIR = HERE / "cases"
REVIEW_DIR = HERE / "cases_review"
"""An independent examiner's cases, written from the docs and the text (``cases_review/``)."""
REPO = HERE.parents[2]


def load_cases(directory: Path = CASES_DIR) -> list[Case]:
    return case_tools.load_cases(directory)


def scenario_of(case: Case) -> dict[str, Any]:
    data = case.data
    if "scenario_ref" in data:
        base = json.loads((REPO / data["scenario_ref"]).read_text(encoding="utf-8"))
    else:
        base = data["scenario"]
    patches = data.get("patch")
    if patches is None:
        return dict(base)
    for patch in patches if isinstance(patches, list) else [patches]:
        base = merge(base, patch)
    return dict(base)


def subset(expected: Any, actual: Any, where: str = "") -> None:
    """Assert ``expected`` is contained in ``actual``: dicts by key (an empty dict means
    empty), lists of dicts as 'each expected item matches some actual item', any other value
    by equality."""
    case_tools.subset(expected, actual, where, lists="any_item", empty_dict_is_exact=True)


def run_case(case: Case) -> None:
    rs = registry.get("zoc")
    data = case.data
    expect = case.expect
    scenario_data = scenario_of(case)
    options = rs.parse_options(data.get("options") or {})
    if "invalid_scenario" in data:
        assert_invalid_scenario(rs, scenario_data, options, data["invalid_scenario"])
        return
    board, state = rs.setup(rs.parse_scenario(scenario_data), options)
    for raw in data.get("before") or []:
        action = rs.parse_action(raw)
        ruling = rs.adjudicate(board, state, action, options)
        assert ruling.legal, f"setup action {raw} was ruled illegal: {ruling.summary}"
        state = rs.apply(board, state, action, ruling)
    if "query" in data:
        spec = rs.queries()[data["query"]["name"]]
        params = spec.params.model_validate(data["query"].get("params") or {})
        result = spec.run(board, state, options, params)
        json.dumps(result)  # JSON-able
        if "result" in expect:
            subset(expect["result"], result, "result")
        for key, missing in (expect.get("absent") or {}).items():
            for sub in missing:
                assert sub not in result[key], f"{sub!r} unexpectedly in result[{key!r}]"
        cited = set(result.get("citations", []))
        for section in expect.get("citations", []):
            assert section in cited, f"section {section} not cited; cited: {sorted(cited)}"
        if "interpretations" in expect:
            assert set(result.get("interpretations", [])) == set(expect["interpretations"])
        return
    action = rs.parse_action(data["action"])
    ruling = rs.adjudicate(board, state, action, options)
    again = rs.adjudicate(board, state, action, options)
    assert again == ruling, "adjudication is not deterministic"
    dump = assert_verdict(case.name, expect, ruling, subset)
    if "stop_hex" in expect:
        assert ruling.details.get("stop_hex") == expect["stop_hex"], ruling.details
    if "violation" in expect:
        assert ruling.violations, "no violation to compare"
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
