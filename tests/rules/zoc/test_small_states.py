"""A small state's index is built afresh after a move, not handed on (``HAND_ON_FROM``).

Handing an index on (:meth:`StateIndex.handed_on`) costs about the same whatever the state's
size; building one costs a little per unit. Below ``HAND_ON_FROM`` units :func:`moved_to`
records no move, so the new state's first ruling builds its index (docs/PERFORMANCE.md,
issue 28, session 17). Either way the index answers alike: the rule cases and
``test_index_handoff.py`` (which hands on states of every size) hold that."""

from __future__ import annotations

from typing import Any

from app import native
from app.rules import registry
from app.rules.zoc.topology import topology
from bench.scenarios import hex_id, zoc_scenario

zoc_index = native.selected("app.rules.zoc.index")  # the build in use
RS = registry.get("zoc")


def _moved(units: int) -> tuple[Any, Any, Any]:
    """A game of ``units`` units, indexed, and the state after its first unit is put in
    another hex: (board, state before, state after)."""
    board, state = RS.setup(RS.parse_scenario(zoc_scenario(20, units - 2)), RS.parse_options({}))
    assert len(state.units) == units
    zoc_index.state_index(board, topology(board), state)
    unit = state.units[0]
    target = next(h for h in (hex_id(1, 1, 20), hex_id(1, 2, 20)) if h != unit.hex)
    return board, state, zoc_index.moved_to(state, unit.id, target)


def test_a_move_in_a_small_state_is_not_handed_on() -> None:
    board, _state, new = _moved(zoc_index.HAND_ON_FROM - 1)
    assert zoc_index._HANDED_ON.peek(new) is None
    index = zoc_index.state_index(board, topology(board), new)
    fresh = zoc_index.StateIndex.of(board, topology(board), new)
    assert dict(index.units) == dict(fresh.units)
    assert {h: list(v) for h, v in index.occupants.items()} == dict(fresh.occupants)
    assert index.units[new.units[0].id] is new.units[0]


def test_a_move_in_a_state_of_hand_on_size_is_handed_on() -> None:
    board, state, new = _moved(zoc_index.HAND_ON_FROM)
    move = zoc_index._HANDED_ON.peek(new)
    assert move is not None and move.old is zoc_index._INDEX_OF.peek(state)
    assert (
        zoc_index.state_index(board, topology(board), new).units[new.units[0].id] is (new.units[0])
    )


def test_a_small_state_with_a_search_made_on_it_is_handed_on() -> None:
    """The search's facts go with the index: a front end's first ``reachable`` after a move
    would otherwise search a large map afresh (the review of session 17: 4.5 against 0.8 ms
    on a 60x60 map with 22 units)."""
    units = zoc_index.HAND_ON_FROM - 1
    board, state = RS.setup(RS.parse_scenario(zoc_scenario(20, units - 2)), RS.parse_options({}))
    opts = RS.parse_options({})
    mover = next(u for u in state.units if u.hex is not None)
    RS.queries()["reachable"].run(board, state, opts, {"unit": mover.id})
    index = zoc_index._INDEX_OF.peek(state)
    assert index is not None and index.search  # the search's facts are kept with the index
    other = state.units[-1]
    target = next(h for h in (hex_id(1, 1, 20), hex_id(1, 2, 20)) if h != other.hex)
    new = zoc_index.moved_to(state, other.id, target)
    move = zoc_index._HANDED_ON.peek(new)
    assert move is not None and move.old is index
