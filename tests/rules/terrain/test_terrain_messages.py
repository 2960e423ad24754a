"""Exact refusal messages of the terrain rules core that a rule case only checks by phrase
(``error_has``, ``msg_has``): a refused query's and a refused scenario's whole message; and the
board setup makes keeps the scenario's title (read by no rule, but part of the stored board)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from app.rules import InvalidQuery, InvalidScenario, registry

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


def test_a_refused_scenario_says_it_is_inconsistent() -> None:
    rs = registry.get("terrain")
    options = rs.parse_options({})
    data = json.loads(EXAMPLE.read_text())
    data["sides"].append(dict(data["sides"][0]))
    with pytest.raises(InvalidScenario) as caught:
        rs.setup(rs.parse_scenario(data), options)
    assert str(caught.value) == (
        "the terrain scenario is inconsistent: 1 problem(s), first: duplicate side id"
    )


def test_the_board_keeps_the_scenario_title() -> None:
    rs = registry.get("terrain")
    options = rs.parse_options({})
    data = json.loads(EXAMPLE.read_text())
    board, _ = rs.setup(rs.parse_scenario(data), options)
    assert data["title"]
    assert board.title == data["title"]


@pytest.mark.parametrize("at", ["1,2,3", "100"])
def test_a_point_not_written_x_comma_y_is_refused_with_its_format(at: str) -> None:
    spec = registry.get("terrain").queries()["terrain-at"]
    with pytest.raises(ValidationError) as caught:
        spec.params.model_validate({"at": at})
    assert [e["msg"] for e in caught.value.errors()] == ["Value error, a point is 'x,y' in yards"]


def test_a_scenario_without_obstacle_yards_has_exactly_the_defaults() -> None:
    rs = registry.get("terrain")
    data = json.loads(EXAMPLE.read_text())
    data.pop("obstacle_yards", None)
    scenario: Any = rs.parse_scenario(data)
    assert scenario.obstacle_yards == {"fence": 10.0, "stone_wall": 20.0}
    board, _ = rs.setup(scenario, rs.parse_options({}))
    assert board.obstacle_yards == {"fence": 10.0, "stone_wall": 20.0}
