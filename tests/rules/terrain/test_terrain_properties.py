"""Property tests: a path's length is split exactly among disjoint features and open ground;
the shipped example file matches the example the ruleset ships."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.ops import unary_union

from app.rules import registry
from app.rules.terrain.geometry import TOLERANCE, inside_yards, path_line, placed
from app.rules.terrain.models import Board, Feature, Table
from tests.support.props import examples

REPO = Path(__file__).resolve().parents[3]

coord = st.floats(min_value=0, max_value=400, allow_nan=False).map(lambda v: round(v, 1))
point = st.tuples(coord, coord)


def _grid(cells: list[bool]) -> Board:
    """Disjoint 100-yard squares on a 4x4 grid, woods where ``cells`` says so."""
    feats = []
    for n, on in enumerate(cells):
        if not on:
            continue
        x, y = (n % 4) * 100, (n // 4) * 100
        feats.append(
            Feature(
                id=f"f{n}",
                kind="light_woods",
                polygon=[(x, y), (x + 100, y), (x + 100, y + 99), (x, y + 99)],
            )
        )
    return Board(table=Table(width=400, height=400), sides=[], features=feats)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(st.booleans(), min_size=16, max_size=16),
    point,
    st.lists(point, min_size=1, max_size=5),
)
def test_path_length_split_exactly(
    cells: list[bool], start: tuple[float, float], waypoints: list[tuple[float, float]]
) -> None:
    board = _grid(cells)
    line = path_line(start, waypoints)
    shapes = placed(board)
    by_feature = [inside_yards(line, p.shape) for p in shapes]
    union = unary_union([p.shape for p in shapes])
    # per-feature yards add up to the yards inside the whole wooded area
    assert abs(sum(by_feature) - inside_yards(line, union)) < 1e-3
    if line.is_simple:
        # ... and, with open ground, to the path's whole length
        open_ground = line.difference(union).length
        assert abs(sum(by_feature) - line.intersection(union).length) < 1e-3
        assert abs(sum(by_feature) + open_ground - line.length) < 1e-3 + TOLERANCE


@settings(max_examples=examples(40), deadline=None)
@given(st.floats(min_value=5, max_value=200), st.floats(min_value=0, max_value=200))
def test_skirmish_cap_in_heavy_woods(yards_in: float, offset: float) -> None:
    """A skirmisher's move into heavy woods is legal exactly when it totals <= 60 yards."""
    rs = registry.get("terrain")
    scenario = json.loads((REPO / "scenarios/terrain/example.json").read_text())
    options = rs.parse_options({})
    for u in scenario["units"]:
        if u["id"] == "fr-skirm":
            u["movement"] = 1000
    board, state = rs.setup(rs.parse_scenario(scenario), options)
    start_x = 90.0
    end_x = 100.0 + min(yards_in, 190)
    action = rs.parse_action({"kind": "move", "unit": "fr-skirm", "path": [[end_x, 200]]})
    ruling = rs.adjudicate(board, state, action, options)
    assert ruling.legal is ((end_x - start_x) <= 60 + 1e-6)
    assert "A.44" in {c.section for c in ruling.citations}
    _ = offset


def test_shipped_example_matches_the_ruleset() -> None:
    shipped = json.loads((REPO / "scenarios/terrain/example.json").read_text())
    assert shipped == registry.get("terrain").example_scenario()
