"""A refused ``zoi`` query says what was wrong: the unknown side or unit, and the sides there
are (the HTTP layer turns the message into the problem's detail). Rule cases only check that
a query is refused; these check what the refusal says."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import InvalidQuery
from app.rules.zoi import ZoiRuleset

RS = ZoiRuleset()


def _refusal(name: str, params: dict[str, Any]) -> str:
    example = RS.example_scenario()
    assert example is not None
    options = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(example), options)
    with pytest.raises(InvalidQuery) as refused:
        RS.queries()[name].run(board, state, options, params)
    return str(refused.value)


@pytest.mark.parametrize("name", ["zone-map", "defensive-fire"])
def test_unknown_side_is_named_with_the_sides_there_are(name: str) -> None:
    refused = _refusal(name, {"side": "prussian"})
    assert refused == "unknown side 'prussian'; sides: french, austrian"


def test_unknown_unit_is_named() -> None:
    assert _refusal("reachable", {"unit": "fr-nobody"}) == "unknown unit 'fr-nobody'"
