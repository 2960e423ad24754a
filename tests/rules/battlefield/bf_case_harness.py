"""Load and run the data-fixture rule cases of the ``battlefield`` ruleset (``cases/*.yaml``).

A case has ``name``, ``description``, an optional ``patch`` merged into the shipped battle
(``scenarios/battlefield/millers-crossing.json``; lists of dicts merge by ``id``, see
tests/rules/case_tools.py), ``options``, ``before`` (actions applied first, each must be legal,
or ``advance`` for the next phase), and exactly one of ``action`` (+ ``dice``), ``sealed``
(``{decision, orders, dice}``), ``query`` (``{name, params}``) or ``invalid_scenario`` (error
locations). ``expect`` as in the other harnesses: ``legal``, ``violations``, ``effects`` (exact,
in order), ``citations``, ``not_cited``, ``interpretations`` (exact set), ``details``,
``result`` (query subset) and ``state`` (subset of the state after applying).
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
REPO = HERE.parents[2]
BATTLE = REPO / "scenarios" / "battlefield" / "millers-crossing.json"


def load_cases() -> list[Case]:
    return case_tools.load_cases(CASES_DIR)


def scenario_of(case: Case) -> dict[str, Any]:
    base = json.loads(BATTLE.read_text(encoding="utf-8"))
    patch = case.data.get("patch")
    return dict(merge(base, patch)) if patch is not None else dict(base)


def subset(expected: Any, actual: Any, where: str = "") -> None:
    case_tools.subset(expected, actual, where, lists="any_item", empty_dict_is_exact=True)


def _interpretations(case: Case, got: set[str]) -> None:
    if "interpretations" in case.expect:
        assert got == set(case.expect["interpretations"]), f"interpretations {sorted(got)}"


def run_case(case: Case) -> None:
    rs = registry.get("battlefield")
    data = case.data
    expect = case.expect
    options = rs.parse_options(data.get("options") or {})
    scenario = scenario_of(case)
    if "invalid_scenario" in data:
        assert_invalid_scenario(rs, scenario, options, data["invalid_scenario"])
        return
    board, state = rs.setup(rs.parse_scenario(scenario), options)
    for raw in data.get("before") or []:
        if raw == "advance":
            state = rs.advance_phase(board, state)
            continue
        action = rs.parse_action(raw)
        ruling = rs.adjudicate(board, state, action, options)
        assert ruling.legal, f"setup action {raw} was ruled illegal: {ruling.summary}"
        state = rs.apply(board, state, action, ruling)
    if "query" in data:
        spec = rs.queries()[data["query"]["name"]]
        params = spec.params.model_validate(data["query"].get("params") or {})
        result = spec.run(board, state, options, params)
        json.dumps(result)
        subset(expect.get("result", {}), result, "result")
        for section in expect.get("citations", []):
            assert section in result["citations"], result["citations"]
        _interpretations(case, set(result.get("interpretations", [])))
        return
    if "sealed" in data:
        sealed = data["sealed"]
        decision = rs.sealed_decisions(board, state)[sealed["decision"]]
        context = {"board": board, "state": state, "options": options}
        orders = {
            side: decision.order_model.model_validate(doc, context={**context, "side": side})
            for side, doc in sealed["orders"].items()
        }
        dice = list(sealed["dice"])
        assert len(dice) == len(rs.sealed_dice_needed(board, state, decision.id, orders))
        ruling = rs.resolve_sealed(board, state, decision.id, orders, options, dice)
        assert_verdict(case.name, expect, ruling, subset)
        _interpretations(case, {i.id for i in ruling.interpretations})
        if ruling.legal and "state" in expect:
            after = rs.apply_sealed(board, state, decision.id, orders, ruling)
            subset(expect["state"], after.model_dump(mode="json"), "state")
        return
    action = rs.parse_action(data["action"])
    dice = list(data.get("dice") or [])
    if "dice_needed" in expect:
        assert list(rs.dice_needed(board, state, action)) == expect["dice_needed"]
    ruling = rs.adjudicate(board, state, action, options, dice)
    assert rs.adjudicate(board, state, action, options, dice) == ruling, "not deterministic"
    dump = assert_verdict(case.name, expect, ruling, subset)
    for e in ruling.effects:
        for c in e.citations:
            assert c in ruling.citations, "an effect cites a section the ruling does not list"
    if "details" in expect:
        subset(expect["details"], dump["details"], "details")
    _interpretations(case, {i.id for i in ruling.interpretations})
    if ruling.legal:
        before = state.model_dump(mode="json")
        after = rs.apply(board, state, action, ruling)
        assert state.model_dump(mode="json") == before, "apply mutated its input"
        if "state" in expect:
            subset(expect["state"], after.model_dump(mode="json"), "state")
