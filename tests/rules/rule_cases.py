"""One rule-case format and one harness for every ruleset (docs/TESTING.md, "Rule cases").

Cases live in ``tests/rules/<package>/cases/<topic>/*.yaml``: folders by rule topic, each case
naming its ``author`` (``implementer``, ``reviewer``, ``examiner``, ``tester``, or ``mutation``
for a case written from the text to kill a surviving mutant, see ``make mutate``). A file holds
``format: 2`` and ``cases:``, a list of cases. A case has:

* ``name`` (unique in its ruleset), ``description``, ``author``; optional ``revised`` (why an
  independent case's expectations were changed), ``snapshot: true`` (expectations filled from
  the implementation's output, not from the text), ``guidance: true`` (terrain design advice),
  ``out_of_sequence: <reason>`` (replayed over HTTP without the sequence of play, saying why);
* the scenario: ``scenario`` (whole) or ``scenario_ref`` (a repository path, JSON or YAML; a
  YAML base may hold ``scenario`` plus ``unit_defaults`` filled into units by ``type``), plus
  ``patch`` (one or a list, merged as :func:`tests.rules.case_tools.merge`: lists of dicts with
  ``id`` merge by id, unless ``patch_lists: replace``);
* ``options``; ``before`` (actions applied first, each legal; the string ``advance`` advances
  the phase); ``dice``;
* exactly one of ``action``, ``query`` (``{name, params}``), ``sealed`` (objective-zones
  sealed orders, see :func:`_run_sealed`) or ``invalid_scenario`` (a list of ``{loc,
  section, code, msg_has}``: an error whose location starts with ``loc`` -- path parts, or a
  dotted string where the ruleset gives one --, cites ``section``, has ``code`` and whose
  message contains ``msg_has``; a bare string is a legacy location matched as a substring);
* ``expect`` -- for rulings: ``legal``, ``violations`` (codes, in order), ``effects`` (the
  complete list in order; an item is a kind or a mapping of fields the effect must have, its
  ``details`` also readable at the top and its ``citations`` as section ids),
  ``citations`` (**exact**: every section the ruling cites, nothing else; ``citations_loose:
  <reason>`` makes it a subset and must say why), ``not_cited``, ``summary_has`` (phrases the
  summary contains, e.g. hex and unit names), ``violation`` (fields of the first violation;
  ``message_has``, in it or in an effect mapping, lists phrases of its message),
  ``violation_step``, ``violation_citations`` (sections the first violation cites, at least),
  ``details`` (subset; each expected item of a list of mappings matches some actual item),
  ``interpretations`` (exact set of ids), ``dice_needed`` (list of die
  sizes, or their number), ``actor``, ``after`` (state after applying: ``units`` by id, a
  mapping of fields or ``null`` for a unit that is gone, ``removed`` ids that must be listed,
  other keys as a subset, lists as in ``details``), ``order_violations`` (sealed); for
  queries: ``result`` (subset), ``absent`` (``{key: [subkeys]}``), ``citations`` (exact),
  ``interpretations``, ``error`` (the query is refused), ``error_has`` (phrases of the
  refusal's message).

In ``zoc``, ``zoi`` and ``terrain`` every violation and effect of a ruling on a unit's action
must name that unit (:func:`check_attribution`), whatever the case states.

The checks on a ruling work on its JSON form, so the HTTP replay
(tests/api/test_rule_cases_api.py) applies exactly the same ones to what the server sends.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from app.rules import InvalidQuery, InvalidScenario, registry
from tests.rules.case_tools import merge, subset

RULES = Path(__file__).resolve().parent
REPO = RULES.parents[1]
PACKAGES: dict[str, str] = {
    rs.id: registry.package_of(rs)
    for rs in registry.all_rulesets()
    if (RULES / registry.package_of(rs) / "cases").is_dir()
}
"""Ruleset id -> folder under tests/rules holding its ``cases/`` (named as the ruleset's
package): every discovered ruleset with rule cases (tests/rules/test_package_layout.py checks
that every built-in ruleset has them)."""
AUTHORS = ("implementer", "reviewer", "examiner", "tester", "mutation")
FORMAT = 2


@dataclass(frozen=True)
class Case:
    """One rule case: its ruleset, file (relative to the repository) and data."""

    ruleset: str
    file: str
    data: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.data["name"])

    @property
    def id(self) -> str:
        return f"{self.ruleset}:{self.name}"

    @property
    def expect(self) -> dict[str, Any]:
        return dict(self.data.get("expect") or {})

    @property
    def topic(self) -> str:
        return Path(self.file).parent.name


def cases_dir(ruleset: str) -> Path:
    return RULES / PACKAGES[ruleset] / "cases"


def case_files(ruleset: str) -> list[Path]:
    return sorted(cases_dir(ruleset).glob("*/*.yaml"))


def load_file(ruleset: str, path: Path) -> list[Case]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(doc, dict) and doc.get("format") == FORMAT, f"{path}: not format {FORMAT}"
    rel = str(path.relative_to(REPO))
    return [Case(ruleset, rel, item) for item in doc["cases"]]


def load_cases(ruleset: str) -> list[Case]:
    return [c for path in case_files(ruleset) for c in load_file(ruleset, path)]


def all_cases() -> list[Case]:
    return [c for rs in PACKAGES for c in load_cases(rs)]


# -- scenario -------------------------------------------------------------------------------


def scenario_of(case: Case) -> dict[str, Any]:
    data = case.data
    defaults: dict[str, Any] = {}
    if "scenario_ref" in data:
        path = REPO / data["scenario_ref"]
        text = path.read_text(encoding="utf-8")
        doc = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        if path.suffix != ".json" and "scenario" in doc:
            defaults = doc.get("unit_defaults") or {}
            doc = doc["scenario"]
        base: Any = doc
    else:
        base = data["scenario"]
    by_id = data.get("patch_lists", "by_id") == "by_id"
    patches = data.get("patch")
    for patch in patches if isinstance(patches, list) else [patches] if patches else []:
        base = merge(base, patch, lists_by_id=by_id)
    out = dict(base)
    if defaults:
        out["units"] = [{**defaults.get(u.get("type"), {}), **u} for u in out.get("units", [])]
    return out


def before_steps(case: Case) -> list[Any]:
    return list(case.data.get("before") or [])


# -- matching -------------------------------------------------------------------------------


def match(expected: Any, actual: Any, where: str = "") -> None:
    """Expected fields are contained in the actual value; lists item by item, same length;
    an empty mapping means empty."""
    subset(expected, actual, where, lists="pairwise", empty_dict_is_exact=True)


def match_message(expected: Mapping[str, Any], actual: Mapping[str, Any], where: str) -> None:
    """:func:`match`, where ``message_has`` lists phrases the item's message contains."""
    want = dict(expected)
    for phrase in want.pop("message_has", []):
        assert phrase in actual["message"], (
            f"{where}: message lacks {phrase!r}: {actual['message']!r}"
        )
    match(want, actual, where)


def sections(citations: Sequence[Any]) -> list[str]:
    """Section ids of citations given as ids or as ``{section: ...}`` objects."""
    return [c if isinstance(c, str) else c["section"] for c in citations]


def effect_view(effect: Mapping[str, Any]) -> dict[str, Any]:
    """An effect as a case states it: its details also at the top, citations as section ids."""
    view = dict(effect)
    view.update({k: v for k, v in (effect.get("details") or {}).items() if k not in view})
    view["citations"] = sections(effect.get("citations") or [])
    return view


def check_citations(expect: Mapping[str, Any], cited: Sequence[str], what: str) -> None:
    got = set(cited)
    want = set(expect.get("citations") or [])
    missing = want - got
    assert not missing, f"{what} does not cite {sorted(missing)} (cites {sorted(got)})"
    if expect.get("citations_loose"):
        assert isinstance(expect["citations_loose"], str), "citations_loose must say why"
    else:
        extra = got - want
        assert not extra, f"{what} also cites {sorted(extra)}, not expected (exact by default)"
    for section in expect.get("not_cited") or []:
        assert section not in got, f"{what} cites {section}, which it should not"


def check_ruling(expect: Mapping[str, Any], ruling: Mapping[str, Any]) -> None:
    """Every check a case states about one ruling, on the ruling's JSON form."""
    summary = ruling["summary"]
    assert ruling["legal"] is expect["legal"], f"expected legal={expect['legal']}: {summary}"
    codes = [v["code"] for v in ruling["violations"]]
    assert codes == list(expect.get("violations") or []), f"violations {codes}: {summary}"
    assert "effects" in expect, "a ruling case states its effects ([] if none)"
    stated = list(expect["effects"])
    kinds = [e if isinstance(e, str) else e["kind"] for e in stated]
    assert [e["kind"] for e in ruling["effects"]] == kinds, ruling["effects"]
    views = [effect_view(e) for e in ruling["effects"]]
    for n, item in enumerate(stated):
        if isinstance(item, dict):
            match_message(item, views[n], f"effects[{n}]")
    cited = sections(ruling["citations"])
    check_citations(expect, cited, "the ruling")
    for v in ruling["violations"]:
        for c in sections(v["citations"]):
            assert c in cited, f"violation {v['code']} cites {c}, which the ruling does not list"
    for e in ruling["effects"]:
        for c in sections(e["citations"]):
            assert c in cited, f"effect {e['kind']} cites {c}, which the ruling does not list"
    for phrase in expect.get("summary_has") or []:
        assert phrase in summary, f"summary lacks {phrase!r}: {summary!r}"
    if "violation" in expect:
        assert ruling["violations"], "no violation to compare"
        match_message(expect["violation"], ruling["violations"][0], "violation")
    if "violation_step" in expect:
        assert ruling["violations"][0]["step"] == expect["violation_step"]
    if "violation_citations" in expect:
        got = set(sections(ruling["violations"][0]["citations"]))
        assert set(expect["violation_citations"]) <= got, f"first violation cites {got}"
    if "details" in expect:
        subset(
            expect["details"],
            ruling["details"],
            "details",
            lists="any_item",
            empty_dict_is_exact=True,
        )
    if "interpretations" in expect:
        got_i = {i["id"] for i in ruling["interpretations"]}
        assert got_i == set(expect["interpretations"]), f"interpretations {sorted(got_i)}"


ATTRIBUTED = ("zoc", "zoi", "terrain")
"""Rulesets whose rulings on a unit's action attribute every violation and effect to it."""
UNATTRIBUTED = {
    "zoc.unknown_unit": "there is no such unit to name",
}
"""Violation codes exempt from :func:`check_attribution`, and why."""


def check_attribution(case: Case, ruling: Mapping[str, Any]) -> None:
    """In :data:`ATTRIBUTED` rulesets every violation and effect of a ruling on an action that
    names a ``unit`` names that unit too (except the codes of :data:`UNATTRIBUTED`)."""
    unit = (case.data.get("action") or {}).get("unit")
    if case.ruleset not in ATTRIBUTED or unit is None:
        return
    for item in [*ruling["violations"], *ruling["effects"]]:
        what = item.get("code") or item.get("kind")
        if what not in UNATTRIBUTED:
            assert item["unit"] == unit, f"{what} names unit {item['unit']!r}, not {unit!r}"


def check_after(expect: Mapping[str, Any], state: Mapping[str, Any]) -> None:
    """``after``: units by id (fields, or null when gone), ``removed`` ids listed, the rest
    as a subset."""
    want = dict(expect.get("after") or {})
    units = {u["id"]: u for u in state.get("units", [])}
    stated = want.pop("units", {})
    if isinstance(stated, list):
        stated = {u["id"]: u for u in stated}
    for uid, fields in stated.items():
        if fields is None:
            assert uid not in units, f"{uid} should be gone"
        else:
            assert uid in units, f"no unit {uid} after the action"
            match(fields, units[uid], f"after.units.{uid}")
    for uid in want.pop("removed", []):
        assert uid in state.get("removed", []), f"{uid} not in removed {state.get('removed')}"
    subset(
        want,
        {k: state[k] for k in want if k in state},
        "after",
        lists="any_item",
        empty_dict_is_exact=True,
    )


def check_query(expect: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    json.dumps(result)
    want = expect.get("result") or {}
    subset(
        want,
        {k: v for k, v in result.items() if k in want},
        "result",
        lists="any_item",
        empty_dict_is_exact=True,
    )
    for key, missing in (expect.get("absent") or {}).items():
        for sub in missing:
            assert sub not in result[key], f"{sub!r} unexpectedly in result[{key!r}]"
    check_citations(expect, sections(result.get("citations") or []), "the query")
    if "interpretations" in expect:
        got = {i if isinstance(i, str) else i["id"] for i in result.get("interpretations", [])}
        assert got == set(expect["interpretations"]), f"interpretations {sorted(got)}"


# -- running one case in the rules core -----------------------------------------------------


def _setup(case: Case) -> tuple[Any, Any, Any, Any]:
    rs = registry.get(case.ruleset)
    options = rs.parse_options(case.data.get("options") or {})
    board, state = rs.setup(rs.parse_scenario(scenario_of(case)), options)
    for raw in before_steps(case):
        if raw == "advance":
            state = rs.advance_phase(board, state)
            continue
        action = rs.parse_action(raw)
        ruling = rs.adjudicate(board, state, action, options)
        assert ruling.legal, f"setup action {raw} was ruled illegal: {ruling.summary}"
        state = rs.apply(board, state, action, ruling)
    return rs, options, board, state


def _at(want: Any, loc: Any) -> bool:
    """An error's location starts with ``want`` (path parts), or, where the ruleset gives the
    location in dotted form (``units[1].side``), starts with that string."""
    if isinstance(want, str):
        return str(loc).startswith(want)
    return list(loc)[: len(want)] == list(want)


def _run_invalid(case: Case) -> None:
    rs = registry.get(case.ruleset)
    options = rs.parse_options(case.data.get("options") or {})
    try:
        rs.setup(rs.parse_scenario(scenario_of(case)), options)
    except InvalidScenario as exc:
        for want in case.data["invalid_scenario"]:
            if isinstance(want, str):
                locs = " ".join(str(e["loc"]) for e in exc.errors)
                assert want in locs, f"no error at {want!r}; errors: {exc.errors}"
                continue
            assert any(
                _at(want["loc"], e["loc"])
                and ("section" not in want or e.get("section") == want["section"])
                and ("code" not in want or e.get("code") == want["code"])
                and want.get("msg_has", "") in str(e.get("msg", ""))
                for e in exc.errors
            ), f"no error {want}; errors: {exc.errors}"
        return
    raise AssertionError("the scenario was accepted")


def _run_sealed(case: Case, rs: Any, options: Any, board: Any, state: Any) -> None:
    """``sealed: {decision, orders: {side: order}, dice: [...] | fill: n}``: every order is
    validated as the service does (refused exactly for the sides in ``order_violations``), the
    dice checked against ``sealed_dice_needed``, the reveal judged and (when legal) applied."""
    expect = case.expect
    sealed = case.data["sealed"]
    decision = rs.sealed_decisions(board, state)[sealed["decision"]]
    bad_sides = {v.get("side") for v in expect.get("order_violations", [{}]) if isinstance(v, dict)}
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
        want = expect["dice_needed"]
        assert (len(need) if isinstance(want, int) else need) == want, need
    dice = sealed["dice"] if "dice" in sealed else [sealed.get("fill", 1)] * len(need)
    assert len(dice) == len(need), f"case gives {len(dice)} dice, {len(need)} needed"
    ruling = rs.resolve_sealed(board, state, decision.id, parsed, options, dice)
    assert rs.resolve_sealed(board, state, decision.id, parsed, options, dice) == ruling
    check_ruling(expect, ruling.model_dump(mode="json"))
    if ruling.legal:
        new = rs.apply_sealed(board, state, decision.id, parsed, ruling)
        assert decision.id not in rs.sealed_decisions(board, new)
        check_after(expect, new.model_dump(mode="json"))


def run_case(case: Case) -> None:
    """Judge one case in the rules core and check every expectation it states."""
    data = case.data
    expect = case.expect
    if "invalid_scenario" in data:
        _run_invalid(case)
        return
    rs, options, board, state = _setup(case)
    if "query" in data:
        spec = rs.queries()[data["query"]["name"]]
        params = spec.params.model_validate(data["query"].get("params") or {})
        if expect.get("error"):
            try:
                spec.run(board, state, options, params)
            except InvalidQuery as exc:
                for phrase in expect.get("error_has") or []:
                    assert phrase in str(exc), f"query refused with {str(exc)!r}"
                return
            raise AssertionError("the query was answered")
        check_query(expect, spec.run(board, state, options, params))
        return
    if "sealed" in data:
        _run_sealed(case, rs, options, board, state)
        return
    action = rs.parse_action(data["action"])
    if "actor" in expect:
        assert rs.actor_side(board, state, action) == expect["actor"]
    if "dice_needed" in expect:
        need = list(rs.dice_needed(board, state, action))
        want = expect["dice_needed"]
        assert (len(need) if isinstance(want, int) else need) == want, need
    dice = list(data.get("dice") or [])
    ruling = rs.adjudicate(board, state, action, options, dice)
    assert rs.adjudicate(board, state, action, options, dice) == ruling, "not deterministic"
    check_ruling(expect, ruling.model_dump(mode="json"))
    check_attribution(case, ruling.model_dump(mode="json"))
    if ruling.legal:
        before = state.model_dump(mode="json")
        after = rs.apply(board, state, action, ruling)
        assert state.model_dump(mode="json") == before, "apply mutated its input"
        check_after(expect, after.model_dump(mode="json"))


def iter_cited(case: Case) -> Iterator[str]:
    """Sections a case pins down: expected citations and invalid-scenario clauses."""
    yield from case.expect.get("citations") or []
    yield from case.expect.get("illustrates") or []
    for e in case.data.get("invalid_scenario") or []:
        if isinstance(e, dict) and "section" in e:
            yield e["section"]
