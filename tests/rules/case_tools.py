"""Matching helpers of the rule-case harness (tests/rules/rule_cases.py).

* :func:`merge` applies a scenario patch to a base scenario;
* :func:`subset` asserts that an expected fragment is contained in an actual value, lists
  compared as the caller says.
"""

from __future__ import annotations

import copy
from typing import Any, Literal


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
