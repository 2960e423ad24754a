"""Exact refusal messages of the terrain rules core that a rule case only checks by phrase
(``error_has``): a refused query's whole message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.rules import InvalidQuery, registry

EXAMPLE = Path(__file__).resolve().parents[3] / "scenarios" / "terrain" / "example.json"


@pytest.mark.parametrize("at", ["1200.5,400", "-0.5,400", "600,800.5", "600,-0.5"])
def test_terrain_at_off_the_table_says_exactly_so(at: str) -> None:
    rs = registry.get("terrain")
    options = rs.parse_options({})
    board, state = rs.setup(rs.parse_scenario(json.loads(EXAMPLE.read_text())), options)
    spec = rs.queries()["terrain-at"]
    params = spec.params.model_validate({"at": at})
    with pytest.raises(InvalidQuery) as caught:
        spec.run(board, state, options, params)
    assert str(caught.value) == "that point is off the table"
