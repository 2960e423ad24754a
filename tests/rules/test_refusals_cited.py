"""Every refusal is cited: a walk over every rule case of every ruleset.

Each refusal the cases reach -- an inconsistent scenario, an illegal action, a sealed order the
ruleset refuses, an illegal reveal -- must carry a stable code and at least one citation of a
section the ruleset's catalog lists (docs/ARCHITECTURE.md, "The judgement kit and the citation
policy"). Unlike the cases themselves, this does not compare with expectations: it fails on any
refusal that names no rule, whatever the case expects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from app.rules import InvalidScenario, registry
from app.rules.ruling import Citation, Violation
from tests.rules.rule_cases import PACKAGES, Case, _setup, all_cases, scenario_of

CASES = [c for c in all_cases() if "query" not in c.data]


def _cited(ruleset: str, citations: Iterable[Citation], what: str) -> None:
    catalog = registry.get(ruleset).catalog
    cites = list(citations)
    assert cites, f"{what}: no citation"
    for c in cites:
        assert c.section in catalog, f"{what}: {c.section} is not in the {ruleset} catalog"


def _violations(ruleset: str, violations: Iterable[Violation], what: str) -> int:
    n = 0
    for v in violations:
        assert v.code and "." in v.code, f"{what}: violation without a stable code: {v}"
        _cited(ruleset, v.citations, f"{what} {v.code}")
        n += 1
    return n


def _scenario_problems(case: Case) -> int:
    rs = registry.get(case.ruleset)
    options = rs.parse_options(case.data.get("options") or {})
    with pytest.raises(InvalidScenario) as info:
        rs.setup(rs.parse_scenario(scenario_of(case)), options)
    errors: Sequence[Mapping[str, Any]] = info.value.errors
    assert errors, f"{case.id}: refused without a problem"
    for e in errors:
        assert str(e.get("location", "")).startswith("/"), f"{case.id}: not a pointer: {e}"
        assert e.get("code"), f"{case.id}: no code: {e}"
        cites = [Citation.model_validate(c) for c in e.get("citations", ())]
        _cited(case.ruleset, cites, f"{case.id} {e['code']}")
    return len(errors)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_refusal_has_a_code_and_a_citation(case: Case) -> None:
    if "invalid_scenario" in case.data:
        assert _scenario_problems(case)
        return
    rs, options, board, state = _setup(case)
    if "sealed" in case.data:
        sealed = case.data["sealed"]
        decision = rs.sealed_decisions(board, state)[sealed["decision"]]
        parsed = {}
        for side, doc in sealed["orders"].items():
            parsed[side] = decision.order_model.model_validate(doc)
            check = rs.judge_order(board, state, decision, side, parsed[side], options)
            refused = _violations(case.ruleset, check.violations, f"{case.id} order of {side}")
            assert check.legal is (refused == 0)
        need = list(rs.sealed_dice_needed(board, state, decision.id, parsed))
        dice = sealed["dice"] if "dice" in sealed else [sealed.get("fill", 1)] * len(need)
        ruling = rs.resolve_sealed(board, state, decision.id, parsed, options, dice)
    else:
        action = rs.parse_action(case.data["action"])
        ruling = rs.adjudicate(board, state, action, options, list(case.data.get("dice") or []))
    refused = _violations(case.ruleset, ruling.violations, case.id)
    assert ruling.legal is (refused == 0), f"{case.id}: legal={ruling.legal}, {refused} refusals"
    if not ruling.legal:
        _cited(case.ruleset, ruling.citations, case.id)


def test_the_walk_reaches_refusals_of_every_ruleset() -> None:
    """The walk is not empty: every ruleset's cases refuse actions and scenarios."""
    for ruleset in PACKAGES:
        mine = [c for c in CASES if c.ruleset == ruleset]
        assert any(c.expect.get("legal") is False for c in mine), ruleset
    scenario_refusals = {c.ruleset for c in CASES if "invalid_scenario" in c.data}
    assert {"zoc", "objective-zones", "terrain"} <= scenario_refusals, scenario_refusals
