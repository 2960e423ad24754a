"""Helpers shared by the data-fixture rule-case harnesses (``tests/rules/<ruleset>/``).

* :class:`Case` and :func:`load_cases` read case files holding ``cases:``, a list of cases;
* :func:`merge` applies a scenario patch to a base scenario;
* :func:`subset` asserts that an expected fragment is contained in an actual value;
* :func:`assert_invalid_scenario` and :func:`assert_effects` check the parts of a ruling or a
  setup the harnesses state the same way.

The harnesses differ in how lists behave; both helpers take that as a keyword so each
harness keeps its own documented semantics.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from app.rules import InvalidScenario
from app.rules.base import Ruleset
from app.rules.ruling import Ruling


@dataclass(frozen=True)
class Case:
    """One rule case: the file it came from and its data."""

    file: str
    data: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.data["name"])

    @property
    def expect(self) -> dict[str, Any]:
        return dict(self.data.get("expect") or {})


def load_cases(directory: Path) -> list[Case]:
    """Every case of every ``*.yaml`` file in ``directory``, files in name order."""
    cases: list[Case] = []
    for path in sorted(directory.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        cases.extend(Case(path.name, item) for item in doc["cases"])
    return cases


def merge(base: Any, patch: Any, *, lists_by_id: bool = True) -> Any:
    """Merge ``patch`` into a copy of ``base``.

    Dicts merge key by key. With ``lists_by_id``, two lists whose items are all dicts with an
    ``id`` merge by id (a patch item with ``_remove: true`` drops the base item, an unknown id
    is appended); otherwise a list replaces. Any other value replaces.
    """
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            out[key] = (
                merge(base[key], value, lists_by_id=lists_by_id)
                if key in base
                else copy.deepcopy(value)
            )
        return out
    if (
        lists_by_id
        and isinstance(base, list)
        and isinstance(patch, list)
        and all(isinstance(x, dict) and "id" in x for x in base + patch)
    ):
        items = [copy.deepcopy(x) for x in base]
        for item in patch:
            idx = next((i for i, x in enumerate(items) if x["id"] == item["id"]), None)
            if item.get("_remove"):
                if idx is not None:
                    items.pop(idx)
            elif idx is None:
                items.append(copy.deepcopy(item))
            else:
                items[idx] = merge(items[idx], item)
        return items
    return copy.deepcopy(patch)


ListMatch = Literal["equal", "any_item", "pairwise"]
"""How :func:`subset` compares lists: ``equal`` (plain equality), ``any_item`` (each expected
dict matches some actual item; other lists by equality) or ``pairwise`` (same length, item by
item)."""


def subset(
    expected: Any,
    actual: Any,
    where: str = "",
    *,
    lists: ListMatch = "equal",
    empty_dict_is_exact: bool = False,
) -> None:
    """Assert ``expected`` is contained in ``actual``: dicts by key (with
    ``empty_dict_is_exact``, an empty dict means empty), lists as ``lists`` says, any other
    value by equality."""

    def again(e: Any, a: Any, at: str) -> None:
        subset(e, a, at, lists=lists, empty_dict_is_exact=empty_dict_is_exact)

    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected a mapping, got {actual!r}"
        if empty_dict_is_exact and not expected:
            assert not actual, f"{where}: expected an empty mapping, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{where}: missing key {key!r} in {sorted(actual)}"
            again(value, actual[key], f"{where}.{key}")
        return
    if lists == "pairwise" and isinstance(expected, list):
        assert isinstance(actual, list | tuple), f"{where}: expected a list, got {actual!r}"
        assert len(expected) == len(actual), f"{where}: {len(actual)} items: {actual!r}"
        for n, (e, a) in enumerate(zip(expected, actual, strict=True)):
            again(e, a, f"{where}[{n}]")
        return
    if (
        lists == "any_item"
        and isinstance(expected, list)
        and expected
        and all(isinstance(x, dict) for x in expected)
    ):
        assert isinstance(actual, list), f"{where}: expected a list, got {actual!r}"
        for item in expected:
            for candidate in actual:
                try:
                    again(item, candidate, where)
                except AssertionError:
                    continue
                break
            else:
                raise AssertionError(f"{where}: no item matches {item!r} in {actual!r}")
        return
    assert expected == actual, f"{where}: expected {expected!r}, got {actual!r}"


def assert_invalid_scenario(
    rs: Ruleset[Any, Any, Any, Any], scenario: Any, options: Any, locations: Sequence[str]
) -> None:
    """Assert that setting up ``scenario`` is refused with an error at each of ``locations``."""
    try:
        rs.setup(rs.parse_scenario(scenario), options)
    except InvalidScenario as exc:
        locs = " ".join(str(e["loc"]) for e in exc.errors)
        for loc in locations:
            assert loc in locs, f"no error at {loc!r}; errors: {exc.errors}"
        return
    raise AssertionError("the scenario was accepted")


def assert_effects(
    stated: Sequence[Any],
    ruling: Ruling,
    dump: dict[str, Any],
    match: Callable[[Any, Any, str], None],
) -> None:
    """Assert the ruling's effects are exactly ``stated``, in order: each item is an effect
    kind, or a mapping with ``kind`` and further fields that ``match`` must accept."""
    kinds = [item if isinstance(item, str) else item["kind"] for item in stated]
    assert [e.kind for e in ruling.effects] == kinds, dump["effects"]
    for n, item in enumerate(stated):
        if isinstance(item, dict):
            match(item, dump["effects"][n], f"effects[{n}]")


def assert_verdict(
    name: str,
    expect: dict[str, Any],
    ruling: Ruling,
    match: Callable[[Any, Any, str], None],
) -> dict[str, Any]:
    """Assert a ruling's verdict, violation codes, exact effects and cited sections against a
    case's ``expect`` (``legal``, ``violations``, ``effects``, ``citations``, ``not_cited``);
    every violation's citations must also be listed by the ruling. Returns the ruling as JSON."""
    dump = ruling.model_dump(mode="json")
    assert ruling.legal is expect["legal"], f"expected legal={expect['legal']}: {ruling.summary}"
    assert [v.code for v in ruling.violations] == list(expect.get("violations", [])), dump
    assert "effects" in expect, f"{name}: an action case must state its effects ([] if none)"
    assert_effects(list(expect["effects"]), ruling, dump, match)
    cited = {c.section for c in ruling.citations}
    for section in expect.get("citations", []):
        assert section in cited, f"section {section} not cited; cited: {sorted(cited)}"
    for section in expect.get("not_cited", []):
        assert section not in cited, f"section {section} cited but should not be"
    for v in ruling.violations:
        for c in v.citations:
            assert c.section in cited, "a violation cites a section the ruling does not list"
    return dump
