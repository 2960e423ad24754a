"""Load and run the data-fixture rule cases of the ``objective-zones`` ruleset.

A case file holds ``cases:``. Each case has ``name``, ``description``, an optional
``patch`` merged into the shipped example (``scenarios/objective-zones/example.json``; lists
of dicts merge by ``id``), ``options``, ``before`` (actions applied first, each must be legal),
``advance`` (phases to advance after them), and exactly one of:

* ``action`` (+ optional ``dice``) -- judged by ``adjudicate``;
* ``sealed`` -- ``{decision, orders: {side: order}, dice: [...] | fill: n}``: the orders are
  parsed, the dice checked against ``sealed_dice_needed``, the reveal judged by
  ``resolve_sealed`` and (when legal) applied; every order is also validated with the
  service's validation context, which must refuse it exactly when the case expects an order
  violation for that side;
* ``query`` -- ``{name, params}``;
* ``invalid_scenario`` -- expected error locations.

``expect``: ``legal``, ``violations`` (codes in order), ``effects`` (kinds in order, or
mappings with ``kind`` and fields to match), ``citations``, ``interpretations`` (exact set),
``details`` (subset), ``result`` (query subset), ``dice_needed`` and ``state`` (unit id ->
subset of the unit after applying; ``removed`` list).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from app.rules import registry
from tests.rules import case_tools
from tests.rules.case_tools import Case, assert_effects, assert_invalid_scenario, merge, subset

HERE = Path(__file__).resolve().parent
CASES_DIR = HERE / "cases"
REPO = HERE.parents[2]
EXAMPLE = REPO / "scenarios" / "objective-zones" / "example.json"


def load_cases(directory: Path = CASES_DIR) -> list[Case]:
    return case_tools.load_cases(directory)


def scenario_of(case: Case) -> dict[str, Any]:
    base = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    patch = case.data.get("patch")
    return dict(merge(base, patch)) if patch is not None else dict(base)


def _check_ruling(case: Case, ruling: Any) -> None:
    expect = case.expect
    dump = ruling.model_dump(mode="json")
    assert ruling.legal is expect["legal"], f"expected legal={expect['legal']}: {ruling.summary}"
    assert [v.code for v in ruling.violations] == list(expect.get("violations", [])), dump
    assert_effects(list(expect["effects"]), ruling, dump, subset)
    cited = {c.section for c in ruling.citations}
    for section in expect.get("citations", []):
        assert section in cited, f"section {section} not cited; cited: {sorted(cited)}"
    for v in ruling.violations:
        for c in v.citations:
            assert c.section in cited, "a violation cites a section the ruling does not list"
    for e in ruling.effects:
        for c in e.citations:
            assert c.section in cited, "an effect cites a section the ruling does not list"
    if "details" in expect:
        subset(expect["details"], dump["details"], "details")
    if "interpretations" in expect:
        got = {i.id for i in ruling.interpretations}
        assert got == set(expect["interpretations"]), f"interpretations {sorted(got)}"


def _check_state(case: Case, state: Any) -> None:
    want = case.expect.get("state")
    if not want:
        return
    units = {u.id: u.model_dump(mode="json") for u in state.units}
    for uid, fields in want.items():
        if uid == "removed":
            assert set(fields) <= set(state.removed), state.removed
            for gone in fields:
                assert gone not in units
            continue
        subset(fields, units[uid], f"state.{uid}")


def run_case(case: Case) -> None:
    rs = registry.get("objective-zones")
    data = case.data
    expect = case.expect
    scenario = scenario_of(case)
    options = rs.parse_options(data.get("options") or {})
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
    for _ in range(int(data.get("advance", 0))):
        state = rs.advance_phase(board, state)
    if "query" in data:
        spec = rs.queries()[data["query"]["name"]]
        params = spec.params.model_validate(data["query"].get("params") or {})
        result = spec.run(board, state, options, params)
        json.dumps(result)
        subset(expect.get("result", {}), result, "result")
        for section in expect.get("citations", []):
            assert section in result["citations"], result["citations"]
        return
    if "sealed" in data:
        sealed = data["sealed"]
        decisions = rs.sealed_decisions(board, state)
        decision = decisions[sealed["decision"]]
        bad_sides = {
            v.get("side") for v in expect.get("order_violations", [{}]) if isinstance(v, dict)
        }
        parsed = {}
        for side, doc in sealed["orders"].items():
            parsed[side] = decision.order_model.model_validate(doc)
            context = {"board": board, "state": state, "side": side, "options": options}
            try:
                decision.order_model.model_validate(doc, context=context)
                refused = False
            except ValidationError:
                refused = True
            assert refused is (side in bad_sides), f"{side}: refused on submission={refused}"
        need = list(rs.sealed_dice_needed(board, state, decision.id, parsed))
        if "dice_needed" in expect:
            assert len(need) == expect["dice_needed"], need
        dice = sealed["dice"] if "dice" in sealed else [sealed.get("fill", 1)] * len(need)
        assert len(dice) == len(need), f"case gives {len(dice)} dice, {len(need)} needed"
        ruling = rs.resolve_sealed(board, state, decision.id, parsed, options, dice)
        again = rs.resolve_sealed(board, state, decision.id, parsed, options, dice)
        assert again == ruling, "resolution is not deterministic"
        _check_ruling(case, ruling)
        if ruling.legal:
            new = rs.apply_sealed(board, state, decision.id, parsed, ruling)
            assert decision.id not in rs.sealed_decisions(board, new)
            _check_state(case, new)
        return
    action = rs.parse_action(data["action"])
    dice = list(data.get("dice") or [])
    if "dice_needed" in expect:
        assert len(rs.dice_needed(board, state, action)) == expect["dice_needed"]
    ruling = rs.adjudicate(board, state, action, options, dice)
    assert rs.adjudicate(board, state, action, options, dice) == ruling, "not deterministic"
    _check_ruling(case, ruling)
    if ruling.legal:
        _check_state(case, rs.apply(board, state, action, ruling))
