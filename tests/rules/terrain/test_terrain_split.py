"""How a path's yards are shared out along an edge two features share (``split``, reading
``terrain.shared-edge``) and the piece arithmetic under it (``_minus``, ``_overlap``,
``_holding``): values worked out by hand. Written for the session-9 mutation survivors of
part terrain (docs/mutation/terrain.md, "Session 9")."""

from __future__ import annotations

import pytest

from app.rules.terrain.geometry import (
    TOLERANCE,
    Piece,
    _holding,
    _minus,
    _overlap,
    path_line,
    placed,
    split,
)
from app.rules.terrain.models import Board, Feature, Table


def _square(fid: str, x: float, y: float) -> Feature:
    return Feature(
        id=fid,
        kind="light_woods",
        polygon=[(x, y), (x + 100, y), (x + 100, y + 100), (x, y + 100)],
    )


def _yards(
    board: Board,
    start: tuple[float, float],
    *waypoints: tuple[float, float],
    once: bool | None = None,
) -> dict[str, float]:
    line = path_line(start, list(waypoints))
    out = split(line, placed(board)) if once is None else split(line, placed(board), once=once)
    return {s.where.id: round(sum(p.length for p in s.parts), 6) for s in out}


def _board(*features: Feature) -> Board:
    return Board(table=Table(width=600, height=400), sides=[], features=list(features))


# west w and east e share the edge x = 100; f lies far to the east (its box misses e's and w's);
# listed e, f, w so that the pair (e, f) whose boxes miss comes before the pair (e, w)
EAST_FAR_WEST = _board(_square("e", 100, 0), _square("f", 300, 0), _square("w", 0, 0))


def test_the_stretch_along_a_shared_edge_stays_with_the_feature_the_unit_was_moving_in() -> None:
    # in w for 50 yards, 30 along the shared edge, then 100 across e and 100 of open ground
    # into f for 50: the 30 yards of edge are w's (its stretch began first), not e's
    assert _yards(EAST_FAR_WEST, (50, 50), (100, 50), (100, 80), (350, 80)) == {
        "e": 100.0,
        "f": 50.0,
        "w": 80.0,
    }


def test_the_default_reading_is_once_and_each_counts_the_edge_in_both() -> None:
    path = ((50, 50), (100, 50), (100, 80), (350, 80))
    assert _yards(EAST_FAR_WEST, *path, once=True) == _yards(EAST_FAR_WEST, *path)
    assert _yards(EAST_FAR_WEST, *path, once=False) == {"e": 130.0, "f": 50.0, "w": 80.0}


def test_from_the_edges_end_the_stretch_goes_to_the_feature_the_unit_goes_on_in() -> None:
    # from open ground onto the end of the edge e (listed first) and w share, 50 yards along
    # it, then 50 into e: both stretches begin together, e's ends later, so the edge is e's
    board = _board(_square("e", 100, 100), _square("w", 0, 100))
    assert _yards(board, (100, 50), (100, 150), (150, 150)) == {"e": 100.0}
    # ... and into w instead: the edge is w's
    assert _yards(board, (100, 50), (100, 150), (50, 150)) == {"w": 100.0}


def test_minus_keeps_what_lies_either_side_of_the_cut_and_the_parts_it_misses() -> None:
    parts = [Piece(0, 10), Piece(20, 30), Piece(40, 50)]
    assert _minus(parts, Piece(22, 25)) == [
        Piece(0, 10),
        Piece(20, 22),
        Piece(25, 30),
        Piece(40, 50),
    ]
    assert _minus(parts, Piece(0, 10)) == [Piece(20, 30), Piece(40, 50)]
    # a remainder no longer than TOLERANCE is dropped, on either side
    assert _minus([Piece(0, 10)], Piece(TOLERANCE, 5)) == [Piece(5, 10)]
    assert _minus([Piece(0, 2 * TOLERANCE)], Piece(0, TOLERANCE)) == []


def test_overlap_is_the_common_stretch_longer_than_tolerance() -> None:
    assert _overlap([Piece(0, 10), Piece(20, 30)], [Piece(5, 25)]) == [Piece(5, 10), Piece(20, 25)]
    assert _overlap([Piece(0, 10)], [Piece(20, 30)]) == []
    assert _overlap([Piece(0, TOLERANCE)], [Piece(0, 5)]) == []


def test_holding_finds_the_piece_that_holds_a_stretch_within_tolerance() -> None:
    assert _holding([Piece(0, 10), Piece(20, 30)], Piece(22, 25)) == Piece(20, 30)
    assert _holding([Piece(TOLERANCE, 10)], Piece(0, 10)) == Piece(TOLERANCE, 10)
    assert _holding([Piece(0, 10 - TOLERANCE)], Piece(0, 10)) == Piece(0, 10 - TOLERANCE)
    # no piece holds it: the stretch itself
    assert _holding([Piece(0, 10)], Piece(5, 15)) == Piece(5, 15)


def test_a_shared_edge_running_east_west_between_narrow_features() -> None:
    # s (20 yards deep) and n north of it share the edge y = 20: in s 10 yards, 30 along the
    # edge, 10 into n; the 30 yards are s's (the unit was moving in it)
    board = _board(
        Feature(id="s", kind="light_woods", polygon=[(0, 0), (100, 0), (100, 20), (0, 20)]),
        Feature(id="n", kind="light_woods", polygon=[(0, 20), (100, 20), (100, 40), (0, 40)]),
    )
    assert _yards(board, (50, 10), (50, 20), (80, 20), (80, 30)) == {"s": 40.0, "n": 10.0}
    assert _yards(board, (50, 10), (50, 20), (80, 20), (80, 30), once=False) == {
        "s": 40.0,
        "n": 40.0,
    }


def test_a_shared_edge_on_the_diagonal() -> None:
    # triangles below (a) and above (b) the diagonal from (0, 0) to (100, 100): from inside a
    # to the diagonal, 20*sqrt(2) yards along it, then into b; the diagonal stretch is a's
    board = _board(
        Feature(id="a", kind="light_woods", polygon=[(0, 0), (100, 0), (100, 100)]),
        Feature(id="b", kind="light_woods", polygon=[(0, 0), (100, 100), (0, 100)]),
    )
    got = _yards(board, (80, 20), (50, 50), (70, 70), (40, 100))
    assert got == {"a": pytest.approx(50 * 2**0.5), "b": pytest.approx(30 * 2**0.5)}


def test_out_along_a_shared_edge_and_straight_back_counts_the_edge_once() -> None:
    # from inside w to the edge, 40 yards along it and back the same way: the turn lies in the
    # middle of the shared stretch, where the path has no single direction; the edge is w's
    path = ((50, 20), (100, 20), (100, 60), (100, 20), (50, 20))
    assert _yards(EAST_FAR_WEST, *path) == {"w": 180.0}
    assert _yards(EAST_FAR_WEST, *path, once=False) == {"e": 80.0, "w": 180.0}
