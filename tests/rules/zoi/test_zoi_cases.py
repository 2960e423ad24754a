"""Rule 14 cases as data: one test per YAML file in ``cases/``, ``cases_review/`` and
``cases_examiner/`` (id = case name).

Each case gives a scenario (a base from ``bases/`` plus patches), options, and either an action
or a query, with the expected verdict, violations, effects, citations and interpretations. An
action case must state ``effects``: the complete list of the ruling's effects, in order (``[]``
when nothing follows), each a mapping with its ``kind`` plus any fields that must match.
The last test checks that every catalog section is cited by at least one case.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from app.rules import InvalidQuery, registry
from app.rules.ruling import Ruling
from app.rules.zoi import CATALOG, INTERPRETATIONS
from tests.rules.case_tools import merge, subset

HERE = Path(__file__).parent
CASE_FILES = [
    path
    for folder in ("cases", "cases_review", "cases_examiner")
    for path in sorted((HERE / folder).glob("*.yaml"))
]
"""The author's cases, then two independent examiners' cases (``cases_review/``,
``cases_examiner/``)."""
RULESET = registry.get("zoi")


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path
    return data


CASES = [_load(p) for p in CASE_FILES]


def _merge(base: Any, patch: Any) -> Any:
    """Deep-merge dicts; lists and scalars in the patch replace the base."""
    return merge(base, patch, lists_by_id=False)


def build_scenario(case: dict[str, Any]) -> dict[str, Any]:
    base = _load(HERE / "bases" / f"{case.get('base', 'open')}.yaml")
    scenario: dict[str, Any] = _merge(base["scenario"], case.get("scenario", {}))
    defaults = base.get("unit_defaults", {})
    scenario["units"] = [{**defaults.get(u["type"], {}), **u} for u in scenario["units"]]
    return scenario


def _matches(expected: Any, actual: Any, where: str = "") -> None:
    """Recursive subset match: dict keys given must match; lists match element-wise."""
    subset(expected, actual, where, lists="pairwise")


def _effect_view(effect: dict[str, Any]) -> dict[str, Any]:
    view = dict(effect)
    view.update({k: v for k, v in effect.get("details", {}).items() if k not in view})
    view["citations"] = [c["section"] for c in effect.get("citations", [])]
    return view


def _check_ruling(ruling: Ruling, expect: dict[str, Any]) -> None:
    data = ruling.model_dump(mode="json")
    assert ruling.legal is expect["legal"], ruling.summary
    assert [v.code for v in ruling.violations] == expect.get("violations", []), ruling.summary
    if "violation_step" in expect:
        assert ruling.violations[0].step == expect["violation_step"]
    if "violation_citations" in expect:
        got = {c.section for c in ruling.violations[0].citations}
        assert set(expect["violation_citations"]) <= got, got
    # Every action states all its effects, in order ([] when nothing follows); each expected
    # item names its kind, and any further fields it gives must match too.
    stated = expect["effects"]
    assert [e["kind"] for e in stated] == [e.kind for e in ruling.effects], data["effects"]
    _matches(stated, [_effect_view(e) for e in data["effects"]], "effects")
    cited = {c.section for c in ruling.citations}
    missing = set(expect["citations"]) - cited
    assert not missing, f"ruling does not cite {sorted(missing)} (cites {sorted(cited)})"
    if "interpretations" in expect:
        got_i = {i.id for i in ruling.interpretations}
        assert got_i == set(expect["interpretations"]), sorted(got_i)
    if "details" in expect:
        _matches(expect["details"], data["details"], "details")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    rs = RULESET
    options = rs.parse_options(case.get("options", {}))
    board, state = rs.setup(rs.parse_scenario(build_scenario(case)), options)
    for pre in case.get("before", []):
        pre_action = rs.parse_action(pre)
        pre_ruling = rs.adjudicate(board, state, pre_action, options)
        assert pre_ruling.legal, pre_ruling.summary
        state = rs.apply(board, state, pre_action, pre_ruling)
    expect = case["expect"]
    if "query" in case:
        spec = rs.queries()[case["query"]["name"]]
        params = spec.params.model_validate(case["query"].get("params", {}))
        if "error" in expect:
            with pytest.raises(InvalidQuery):
                spec.run(board, state, options, params)
            return
        result = spec.run(board, state, options, params)
        _matches(expect["result"], {k: v for k, v in result.items() if k in expect["result"]})
        cited = {c["section"] for c in result["citations"]}
        assert set(expect["citations"]) <= cited, cited
        if "interpretations" in expect:
            assert {i["id"] for i in result.get("interpretations", [])} == set(
                expect["interpretations"]
            )
        return
    assert "effects" in expect, f"{case['name']}: action cases must state effects ([] if none)"
    assert "effect_kinds" not in expect, f"{case['name']}: effects are compared in full"
    action = rs.parse_action(case["action"])
    if "actor" in expect:
        assert rs.actor_side(board, state, action) == expect["actor"]
    ruling = rs.adjudicate(board, state, action, options)
    _check_ruling(ruling, expect)
    # pure: the same input gives the same ruling
    assert rs.adjudicate(board, state, action, options) == ruling
    if "after" in case:
        before = state.model_dump(mode="json")
        new = rs.apply(board, state, action, ruling)
        assert state.model_dump(mode="json") == before, "apply mutated its input"
        after = new.model_dump(mode="json")
        units = {u["id"]: u for u in after["units"]}
        for uid, fields in case["after"].get("units", {}).items():
            if fields is None:
                assert uid not in units, f"{uid} should be gone"
            else:
                _matches(fields, units[uid], f"after.units.{uid}")
        rest = {k: v for k, v in case["after"].items() if k != "units"}
        _matches(rest, {k: after[k] for k in rest}, "after")


def test_every_case_cites_known_sections() -> None:
    for case in CASES:
        for section in case["expect"]["citations"]:
            assert section in CATALOG, f"{case['name']}: unknown section {section}"
        for i in case["expect"].get("interpretations", []):
            assert i in {x.id for x in INTERPRETATIONS}, f"{case['name']}: unknown {i}"


def test_case_names_are_unique_and_match_files() -> None:
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names))
    assert [p.stem for p in CASE_FILES] == names


def test_every_catalog_section_is_cited_by_a_case() -> None:
    cited = {s for case in CASES for s in case["expect"]["citations"]}
    uncovered = [s for s in CATALOG.ids() if s not in cited]
    assert not uncovered, f"catalog sections no case cites: {uncovered}"


def test_every_interpretation_is_exercised_both_ways() -> None:
    """Each interpretation appears in a case on its default and on its alternative reading."""
    defaults = RULESET.parse_options({})
    for interp in INTERPRETATIONS:
        assert interp.option is not None
        default_value = getattr(defaults, interp.option)
        seen_default = seen_other = False
        for case in CASES:
            if interp.id not in case["expect"].get("interpretations", []):
                continue
            value = case.get("options", {}).get(interp.option, default_value)
            if value == default_value:
                seen_default = True
            else:
                seen_other = True
        assert seen_default and seen_other, f"{interp.id}: default {seen_default}, alt {seen_other}"
