"""``HexLayout`` values the property tests of test_geometry.py do not pin down: a line's every
hex on a shortest path (its i-th hex i steps from the start and n - i from the end), the side a
line along a hexside takes, rings, the hexes within a radius at the map's corner (computed
afresh, past the module's cache) and the vertices' directions (issue 27: the shared kit's
survivors, docs/mutation/core.md)."""

from __future__ import annotations

import pytest

from app.rules.geometry.hexgrid import DEFAULT_LAYOUT, Hex, HexIdError, HexLayout, Hexside

LAYOUTS = [HexLayout(o, off, 2, 2) for o in ("flat", "pointy") for off in ("odd", "even")]
ENDS = [("e0101", "e0104"), ("e0101", "e0401"), ("e0505", "e0808"), ("e0302", "e0907"),
        ("e0909", "e0203"), ("e0610", "e0601"), ("e0000", "e0505")]  # fmt: skip


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda x: x.description)
@pytest.mark.parametrize(("a", "b"), ENDS)
def test_every_hex_of_a_line_is_on_a_shortest_path(layout: HexLayout, a: str, b: str) -> None:
    n = layout.distance(a, b)
    for line in (layout.line(a, b), layout._line(a, b, 1e-6), layout._line(a, b, -1e-6)):
        assert len(line) == n + 1 and line[0] == a and line[-1] == b
        for i, h in enumerate(line):
            assert (layout.distance(a, h), layout.distance(h, b)) == (i, n - i), (line, i)


def test_a_line_along_a_hexside_takes_one_side_and_the_other_off_the_grid() -> None:
    plus = DEFAULT_LAYOUT._line("e0505", "e0808", 1e-6)
    minus = DEFAULT_LAYOUT._line("e0505", "e0808", -1e-6)
    assert plus != minus  # ties: each nudge picks its own side
    assert DEFAULT_LAYOUT.line("e0505", "e0808") == plus
    assert DEFAULT_LAYOUT.line("e0101", "e0104") == ["e0101", "e0102", "e0103", "e0104"]
    assert DEFAULT_LAYOUT.line("e0303", "e0303") == ["e0303"]


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda x: x.description)
def test_within_and_rings_are_the_balls_and_spheres_of_the_distance(layout: HexLayout) -> None:
    for center in ("e0505", "e0000", "e0100", "e0001"):
        for radius in (0, 1, 2):
            ball = layout._within(center, radius)  # afresh, not the cached within()
            assert len(ball) == len(set(ball))
            expected = {
                layout.format(layout.parse(f"e{c:02d}{r:02d}"))
                for c in range(0, 9)
                for r in range(0, 9)
                if layout.distance(center, f"e{c:02d}{r:02d}") <= radius
            }
            assert set(ball) == expected, (center, radius)
            ring = list(layout.ring(center, radius))
            assert set(ring) == {h for h in expected if layout.distance(center, h) == radius}
    assert set(layout.ring("e0505", 1)) == set(layout.neighbors("e0505"))


def test_a_vertex_is_between_two_hexside_directions() -> None:
    assert [DEFAULT_LAYOUT.vertex_directions(v) for v in (0, 1, 5, 6, 7)] == [
        (0, 1), (1, 2), (5, 0), (0, 1), (1, 2)
    ]  # fmt: skip


def test_bad_ids_and_coordinates_are_refused_with_what_is_wrong() -> None:
    layout = DEFAULT_LAYOUT
    cases = [
        (lambda: layout.parse(5), "hex id must be a string, got int"),  # type: ignore[arg-type]
        (
            lambda: layout.parse("zz"),
            "malformed hex id 'zz': expected letters (optional map prefix) then 2+2 digits, "
            "e.g. 'e3306'",
        ),
        (
            lambda: layout.parse("e123"),
            "malformed hex id 'e123': expected 2 column digits and 2 row digits",
        ),
        (
            lambda: layout.format(Hex("e", -1, 3)),
            "hex Hex(prefix='e', col=-1, row=3) lies off the numbered map (negative coordinate)",
        ),
        (
            lambda: layout.format(Hex("e", 3, -1)),
            "hex Hex(prefix='e', col=3, row=-1) lies off the numbered map (negative coordinate)",
        ),
        (
            lambda: layout.format(Hex("e", 100, 3)),
            "hex Hex(prefix='e', col=100, row=3) does not fit the layout's digit counts",
        ),
        (
            lambda: layout.distance("e0101", "f0101"),
            "e0101 and f0101 lie on different maps ('e'/'f')",
        ),
        (
            lambda: layout.hexside("e0101", "e0505"),
            "e0101 and e0505 are not adjacent: they share no hexside",
        ),
    ]
    for call, message in cases:
        with pytest.raises(HexIdError) as raised:
            call()
        assert str(raised.value) == message
    with pytest.raises(ValueError) as other:
        Hexside.between("e0101", "e0102").other("e0505")
    assert str(other.value) == "e0505 is not on hexside e0101/e0102"


def test_directions_wrap_round_six_and_stop_at_the_maps_edge() -> None:
    layout = DEFAULT_LAYOUT
    assert [layout.direction_name(d) for d in (0, 6, 7, 11)] == [
        layout.direction_name(0),
        layout.direction_name(0),
        layout.direction_name(1),
        layout.direction_name(5),
    ]
    assert layout.neighbor("e0505", 6) == layout.neighbor("e0505", 0)
    assert layout.neighbor("e0505", 7) == layout.neighbor("e0505", 1)
    edge = [layout.neighbor("e0005", d) for d in range(6)]
    assert edge == ["e0004", "e0104", "e0105", "e0006", None, None]
    corner = [layout.neighbor("e0500", d) for d in range(6)]
    assert None in corner and all(n is None or layout.is_valid(n) for n in corner)


def test_within_stops_at_the_digit_counts_edge() -> None:
    layout = DEFAULT_LAYOUT
    ball = layout._within("e9898", 2)
    expected = {
        f"e{c:02d}{r:02d}"
        for c in range(90, 100)
        for r in range(90, 100)
        if layout.distance("e9898", f"e{c:02d}{r:02d}") <= 2
    }
    assert set(ball) == expected and len(ball) == len(expected) == 15
