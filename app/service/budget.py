"""The size budget of a scenario: one limit, for every ruleset, on everything that costs
memory or CPU when a game is set up and its board is kept.

A scenario's **size** is the number of JSON values in its document (every object, array,
string, number, boolean and null, at any depth: each explicit hex, area, feature, unit and
each coordinate of a vertex counts) plus what the ruleset's ``setup`` builds that the document
does not list one by one (``Ruleset.generated_size``: the hexes of a rectangular map area).
A scenario over the budget (``REFEREE_SCENARIO_BUDGET``, default :data:`DEFAULT_BUDGET`) is
refused with 422 ``scenario.too_large`` naming the limit and the size, before the ruleset
builds anything. The document is counted first, stopping as soon as it is over the budget,
so even validating an oversized document is never paid for.
"""

from __future__ import annotations

from typing import Any

from app.rules.base import Ruleset
from app.service.errors import FieldError, InvalidInput

DEFAULT_BUDGET = 50_000
"""Default largest scenario size: a 40,000-hex map (the largest a hex ruleset builds) with
room for its units and features; every shipped scenario is under 300."""


def document_size(data: Any, stop_after: int | None = None) -> int:
    """JSON values in ``data`` (counting stops once past ``stop_after``)."""
    count = 0
    stack = [data]
    while stack:
        value = stack.pop()
        count += 1
        if stop_after is not None and count > stop_after:
            return count
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
    return count


def too_large(size: int, budget: int, what: str) -> InvalidInput:
    return InvalidInput(
        f"the scenario is too large: {what} exceeds the budget of {budget} elements "
        "(JSON values of the document plus generated map hexes; REFEREE_SCENARIO_BUDGET)",
        [FieldError("/scenario", f"size over {budget}", "scenario.too_large")],
        code="scenario.too_large",
        limit=budget,
        size=size,
    )


def check_document(scenario: Any, budget: int) -> int:
    """The document's size, or 422 ``scenario.too_large`` (before it is even validated)."""
    size = document_size(scenario, stop_after=budget)
    if size > budget:
        raise too_large(size, budget, f"the document alone (more than {budget} values)")
    return size


def check_generated(
    ruleset: Ruleset[Any, Any, Any, Any], parsed: Any, document: int, budget: int
) -> None:
    """422 ``scenario.too_large`` if the document plus what setup would generate is over."""
    generated = ruleset.generated_size(parsed)
    if document + generated > budget:
        raise too_large(
            document + generated,
            budget,
            f"{document} document values plus {generated} generated hexes",
        )
