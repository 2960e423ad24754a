"""Property tests of the shared hex grid (app.rules.geometry.hexgrid)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.rules.geometry import DEFAULT_LAYOUT, Hex, HexIdError, HexLayout, Hexside
from tests.support.props import examples

LAYOUTS = [
    HexLayout("flat", "odd"),
    HexLayout("flat", "even"),
    HexLayout("pointy", "odd"),
    HexLayout("pointy", "even"),
]

layouts = st.sampled_from(LAYOUTS)
prefixes = st.sampled_from(["", "e", "AB"])


def hex_ids(prefix: str = "e") -> st.SearchStrategy[str]:
    return st.builds(
        lambda c, r: f"{prefix}{c:02d}{r:02d}",
        st.integers(min_value=0, max_value=99),
        st.integers(min_value=0, max_value=99),
    )


inner_ids = st.builds(
    lambda p, c, r: f"{p}{c:02d}{r:02d}",
    prefixes,
    st.integers(min_value=2, max_value=97),
    st.integers(min_value=2, max_value=97),
)


@settings(max_examples=examples(200))
@given(layouts, hex_ids())
def test_adjacency_is_symmetric(layout: HexLayout, a: str) -> None:
    for b in layout.neighbors(a):
        assert a in layout.neighbors(b)
        assert layout.adjacent(a, b) and layout.adjacent(b, a)


@settings(max_examples=examples(200))
@given(layouts, inner_ids)
def test_interior_hexes_have_six_distinct_neighbours(layout: HexLayout, a: str) -> None:
    ns = layout.neighbors(a)
    assert len(ns) == 6 == len(set(ns))
    assert a not in ns


@settings(max_examples=examples(200))
@given(layouts, hex_ids(), hex_ids(), hex_ids())
def test_distance_is_a_metric(layout: HexLayout, a: str, b: str, c: str) -> None:
    assert layout.distance(a, a) == 0
    assert layout.distance(a, b) == layout.distance(b, a)
    assert (layout.distance(a, b) == 0) == (a == b)
    assert layout.distance(a, c) <= layout.distance(a, b) + layout.distance(b, c)


@settings(max_examples=examples(200))
@given(layouts, hex_ids(), hex_ids())
def test_distance_one_exactly_for_neighbours(layout: HexLayout, a: str, b: str) -> None:
    assert (layout.distance(a, b) == 1) == (b in layout.neighbors(a))
    for n in layout.neighbors(a):
        assert layout.distance(a, n) == 1


@settings(max_examples=examples(200))
@given(layouts, prefixes, st.integers(0, 99), st.integers(0, 99))
def test_id_round_trips(layout: HexLayout, prefix: str, col: int, row: int) -> None:
    h = Hex(prefix, col, row)
    hex_id = layout.format(h)
    assert layout.parse(hex_id) == h
    assert layout.format(layout.parse(hex_id)) == hex_id
    q, r = layout.to_axial(h)
    assert layout.from_axial(prefix, q, r) == h


@settings(max_examples=examples(200))
@given(layouts, hex_ids())
def test_hexside_is_the_same_from_both_sides(layout: HexLayout, a: str) -> None:
    for b in layout.neighbors(a):
        side = layout.hexside(a, b)
        assert side == layout.hexside(b, a)
        assert side.id == Hexside.between(b, a).id
        assert side.other(a) == b and side.other(b) == a


@settings(max_examples=examples(200))
@given(layouts, inner_ids)
def test_directions_are_opposite_across_a_hexside(layout: HexLayout, a: str) -> None:
    for d in range(6):
        b = layout.neighbor(a, d)
        assert b is not None
        assert layout.direction(a, b) == d
        assert layout.direction(b, a) == (d + 3) % 6


@settings(max_examples=examples(100))
@given(layouts, inner_ids, st.integers(0, 2))
def test_within_is_the_ball(layout: HexLayout, a: str, radius: int) -> None:
    ball = layout.within(a, radius)
    assert all(layout.distance(a, h) <= radius for h in ball)
    assert len(ball) == 1 + 3 * radius * (radius + 1)


@settings(max_examples=examples(100))
@given(layouts, hex_ids(), hex_ids())
@example(DEFAULT_LAYOUT, "e0199", "e2599")  # along the bottom edge: ties fell on row 100
@example(HexLayout("flat", "even"), "e0101", "e2501")  # along the top edge
@example(HexLayout("pointy", "odd"), "e0101", "e0125")  # along the left edge
@example(HexLayout("pointy", "even"), "e9901", "e9925")  # along the right edge
def test_line_is_contiguous(layout: HexLayout, a: str, b: str) -> None:
    line = layout.line(a, b)
    assert line[0] == a and line[-1] == b
    assert len(line) == layout.distance(a, b) + 1
    for x, y in itertools.pairwise(line):
        assert layout.adjacent(x, y)


def test_seed_example_geometry() -> None:
    """The zone-of-control seed's map: flat-topped, odd columns shifted down."""
    assert set(DEFAULT_LAYOUT.neighbors("e3306")) == {
        "e3305",
        "e3307",
        "e3206",
        "e3207",
        "e3406",
        "e3407",
    }
    assert DEFAULT_LAYOUT.adjacent("e3207", "e3107")
    assert DEFAULT_LAYOUT.adjacent("e3207", "e3307")
    assert DEFAULT_LAYOUT.hexside("e3306", "e3206") == DEFAULT_LAYOUT.hexside("e3206", "e3306")
    assert not DEFAULT_LAYOUT.adjacent("e3107", "e3307")


def test_other_layouts_differ_where_they_should() -> None:
    flat_even = HexLayout("flat", "even")
    assert set(flat_even.neighbors("e3306")) == {
        "e3305",
        "e3307",
        "e3205",
        "e3206",
        "e3405",
        "e3406",
    }
    pointy_odd = HexLayout("pointy", "odd")
    # Row 06 is even, so not shifted: its diagonal neighbours lie in columns 32 and 33.
    assert set(pointy_odd.neighbors("e3306")) == {
        "e3206",
        "e3406",
        "e3205",
        "e3305",
        "e3207",
        "e3307",
    }
    pointy_even = HexLayout("pointy", "even")
    assert set(pointy_even.neighbors("e3306")) == {
        "e3206",
        "e3406",
        "e3305",
        "e3405",
        "e3307",
        "e3407",
    }


@pytest.mark.parametrize(
    "bad", ["", "3306", "e330", "e33066", "e33-06", "33e06", "e33 06", "é3306", "e3306x"]
)
def test_bad_ids_raise_hex_id_error(bad: str) -> None:
    if bad == "3306":
        assert DEFAULT_LAYOUT.parse(bad) == Hex("", 33, 6)  # no prefix is fine
        return
    with pytest.raises(HexIdError):
        DEFAULT_LAYOUT.parse(bad)
    assert not DEFAULT_LAYOUT.is_valid(bad)


def test_non_string_id_raises_hex_id_error() -> None:
    with pytest.raises(HexIdError):
        DEFAULT_LAYOUT.parse(3306)  # type: ignore[arg-type]


def test_non_adjacent_hexside_raises() -> None:
    with pytest.raises(HexIdError):
        DEFAULT_LAYOUT.hexside("e3306", "e3308")


def test_different_maps_are_not_adjacent_and_have_no_distance() -> None:
    assert not DEFAULT_LAYOUT.adjacent("e3306", "f3307")
    with pytest.raises(HexIdError):
        DEFAULT_LAYOUT.distance("e3306", "f3306")


def test_map_edge_has_fewer_neighbours() -> None:
    assert len(DEFAULT_LAYOUT.neighbors("e0000")) < 6
    assert all(DEFAULT_LAYOUT.is_valid(n) for n in DEFAULT_LAYOUT.neighbors("e0000"))
