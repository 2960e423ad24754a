"""The per-state index: what one state's rulings and queries look up, kept with the state.

A state is never changed once made, so its index (:class:`StateIndex`: units by id and by hex,
its zones, the moved list, markers by hex, the whole-map zone map, the search's per-side
facts) is kept per state object (:mod:`app.rules.memo`, by identity; dropped with the state)
and the next ruling or query on the same game version starts warm.

:func:`moved_to` makes the state after one unit moved and records the move; the first ruling
or query on that new state derives its index from the old one (:meth:`StateIndex.handed_on`),
dropping only what the move invalidates -- each table's own ``handed_on`` says what that is
(:meth:`app.rules.zoc.zones.Zones.handed_on`, :meth:`app.rules.zoc.search.SideFacts.handed_on`).
Anything else (another board, a hex off the map, any mismatch) builds afresh, and so does a
state of fewer than :data:`HAND_ON_FROM` units on which no search was made, whose index costs
less to build than to hand on.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any, NamedTuple

from app.rules.copies import replaced
from app.rules.layers import layered
from app.rules.memo import ByIdentity
from app.rules.zoc.models import Board, Marker, State, Unit
from app.rules.zoc.topology import Topology
from app.rules.zoc.zones import ZoneMap, Zones


class StateIndex:
    """What one state's rulings look up: units by id and by hex, its zones (filled in hex by
    hex as rulings ask), the units that moved, the markers by hex."""

    def __init__(
        self,
        board: Board,
        units: dict[str, Unit],
        occupants: dict[str, list[tuple[int, Unit]]],
        zones: Zones,
        moved: frozenset[str],
        markers_at: dict[str, list[Marker]],
        beachhead_sides: frozenset[str] | None = None,
        positions: dict[str, int] | None = None,
    ) -> None:
        """(``beachhead_sides`` and ``positions`` are handed on by :meth:`handed_on`; found
        afresh, or made when first asked for, without them.)"""
        self.board = weakref.ref(board)
        self.units = units
        self.occupants = occupants
        """Hex -> (place in the unit list, unit) of each unit in it, in the state's unit
        order (off-map hexes too): the zones' table (:meth:`Zones.positions_table`), which
        holds the off-map hexes as well -- the zones only ever look up hexes of the map."""
        self.zones = zones
        self.beachhead_sides = (
            frozenset(zones.all_beachhead_sides) if beachhead_sides is None else beachhead_sides
        )
        self.moved = moved
        self.markers_at = markers_at
        self.zone_map: ZoneMap | None = None
        """Every projection at once (the ``ezoc-map`` query), made when first asked for;
        never handed on."""
        self.search: dict[str, Any] = {}
        """What the ``reachable`` search keeps per side (``app.rules.zoc.search.SideFacts``),
        each handed on by its own ``handed_on``."""
        self.positions: dict[str, int] = {} if positions is None else positions
        """Unit id -> its place in the unit list (the first, as a scan finds it), made when
        :func:`moved_to` first asks (:meth:`position`); one table shared by every index
        handed on from this one (a move changes no unit's place)."""

    @classmethod
    def of(cls, board: Board, topo: Topology, state: State) -> StateIndex:
        """The index of ``state`` built afresh."""
        units: dict[str, Unit] = {}
        at: dict[str, list[tuple[int, Unit]]] = {}
        # one pass: by id and by hex -- one table for the rulings and the zones, the hexes
        # off the map too (the zones never look them up); a hex's list made with its first
        # unit (the compiled build's setdefault raises and clears a KeyError for every new key)
        for i, unit in enumerate(state.units):
            units[unit.id] = unit
            hex_id = unit.hex
            if hex_id is not None:
                pairs = at.get(hex_id)
                if pairs is None:
                    at[hex_id] = [(i, unit)]
                else:
                    pairs.append((i, unit))
        markers_at: dict[str, list[Marker]] = {}
        for marker in state.markers:
            placed = markers_at.get(marker.hex)
            if placed is None:
                markers_at[marker.hex] = [marker]
            else:
                placed.append(marker)
        zones = Zones(board, topo, (), state.markers, at)
        return cls(board, units, at, zones, frozenset(state.moved), markers_at)

    def position(self, units: list[Unit], unit_id: str) -> int | None:
        """The place of the first unit ``unit_id`` in ``units`` (this index's state's unit
        list, or one in the same order), or None: found in :attr:`positions`, made at the
        first ask in one pass and put in at once (a request reading it meanwhile finds it
        empty, not partly filled)."""
        positions = self.positions
        if not positions:
            made: dict[str, int] = {}
            for i in range(len(units) - 1, -1, -1):  # backwards: the first of an id wins
                made[units[i].id] = i
            positions.update(made)
        return positions.get(unit_id)

    def handed_on(
        self, board: Board, topo: Topology, state: State, move: Moved
    ) -> StateIndex | None:
        """The index of ``state``, which is this index's state with one unit moved (what
        :func:`moved_to` made), derived from this one. None when the move cannot be handed on
        (a hex off the map, a unit list that does not match): build afresh.

        What a unit in hex ``h`` changes, table by table: units by id (the moved unit's entry)
        and by hex (the lists of its old and new hex, rebuilt in list order); the zones next
        to ``h`` (:meth:`Zones.handed_on`); the search's facts around ``h``
        (``SideFacts.handed_on``); the moved list (read afresh) and the whole-map zone map
        (dropped). The markers, weather, phase and start positions are the old state's own
        (:func:`moved_to` changes nothing else), so the markers by hex are shared."""
        i, unit_id, old_hex, new_hex = move.position, move.unit_id, move.old_hex, move.new_hex
        on_map = board.hexes
        if (old_hex is not None and old_hex not in on_map) or (
            new_hex is not None and new_hex not in on_map
        ):
            return None  # a hex off the map: build afresh
        unit = state.units[i]
        # the tables handed on are Layered (app.rules.layers): read through their own `get`
        # (a Mapping here, so that the compiled build does too, not the plain dict's look-up)
        units_before: Mapping[str, Unit] = self.units
        if (
            unit.id != unit_id
            or unit.hex != new_hex
            or unit.side != move.unit.side
            or units_before.get(unit_id) is not move.unit
        ):
            return None
        table = self.zones.positions_table()
        before: Mapping[str, list[tuple[int, Unit]]] = table
        lists: dict[str, list[tuple[int, Unit]]] = {}
        """The on-map hexes whose (position, unit) list the move changes: their new lists
        (empty: no unit left)."""
        if old_hex is not None:
            here = before.get(old_hex, [])
            left = [(j, u) for j, u in here if j != i]
            if len(left) != len(here) - 1:
                return None
            lists[old_hex] = left
        if new_hex is not None:
            here = lists[new_hex] if new_hex in lists else before.get(new_hex, [])
            lists[new_hex] = sorted([*here, (i, unit)], key=_first)
        changed = frozenset(lists)
        # layered over the old tables (app.rules.layers): the two hexes' lists replaced, the
        # moved unit's entry replaced; nothing else copied (made flat, in C, every
        # layers.LAYERS_KEPT moves)
        at = layered(table, changed)  # (the units by hex: one table, StateIndex.occupants)
        for hex_id, listed in lists.items():
            if listed:
                at[hex_id] = listed
        units = layered(self.units, frozenset((unit_id,)))
        units[unit_id] = unit
        cells = [h for h in (old_hex, new_hex) if h is not None]
        if len(cells) == 2:
            near = topo.near(cells[0]) | topo.near(cells[1])
        else:
            near = topo.near(cells[0]) if cells else frozenset()
        """The hexes whose projections (zones, EZOC, no-ZOC notes) the move can change."""
        side = unit.side
        zones = self.zones.handed_on(at, unit_id, side, near)
        moved = self.moved if state.moved is move.moved_before else frozenset(state.moved)
        new = StateIndex(
            board,
            units,
            at,
            zones,
            moved,
            self.markers_at,  # a move changes no marker
            self.beachhead_sides,
            self.positions,  # the same places
        )
        for facts_side, facts in self.search.copy().items():
            handed = getattr(facts, "handed_on", None)
            if handed is not None:
                new.search[facts_side] = handed(cells, near, unit_id, side)
        return new


class Moved(NamedTuple):
    """What :func:`moved_to` changed in a state whose index existed: the index of the state
    before, and the one unit (its place in the unit list, its old object, both hexes). (A
    named tuple: made at every move, in a few steps.)"""

    old: StateIndex
    position: int
    unit_id: str
    unit: Unit
    old_hex: str | None
    new_hex: str | None
    moved_before: list[str]
    """The state before's moved list (the same object in the new state: nothing moved)."""


def _first(pair: tuple[int, Unit]) -> int:
    return pair[0]


_INDEX_OF: ByIdentity[StateIndex] = ByIdentity(maxsize=128)
"""State -> its index (dropped with the state, or when evicted)."""
_HANDED_ON: ByIdentity[Moved] = ByIdentity(maxsize=128)
"""New state (made by :func:`moved_to`) -> the move, until the new state's index is made."""


HAND_ON_FROM = 32
"""The fewest units a state must hold for :func:`moved_to` to record the move, so that the new
state's index is handed on from the old one, unless the old index holds a search's facts:
below it, with no search made on the state, the index is built afresh, which costs less (the
seed example's 5 units: 3 us built, 12 us handed on; the two meet at about 50 units). A
search's facts are always handed on: the first ``reachable`` after a move would otherwise
search a large map afresh (docs/PERFORMANCE.md, issue 28, session 17). The tests set it to 0
to hand small states on."""


def state_index(board: Board, topo: Topology, state: State) -> StateIndex:
    """The index of ``state`` on ``board``: kept, handed on from the state it was moved from,
    or built."""
    found = _INDEX_OF.get(state, lambda s: _new_index(board, topo, s))
    if found.board() is not board:  # the same state judged on another board
        found = StateIndex.of(board, topo, state)
    return found


def _new_index(board: Board, topo: Topology, state: State) -> StateIndex:
    """The index of a state not indexed yet: handed on from the state it was moved from
    (:func:`moved_to`) when that one's index is there for this board, else built."""
    move = _HANDED_ON.pop(state)
    if move is not None and move.old.board() is board:
        found = move.old.handed_on(board, topo, state, move)
        if found is not None:
            return found
    return StateIndex.of(board, topo, state)


def moved_to(state: State, unit_id: str, hex_id: str | None, *, moved: bool = False) -> State:
    """A new state with unit ``unit_id`` in ``hex_id`` (and, with ``moved``, on the moved
    list); KeyError if there is no such unit. Everything else -- the other units, markers,
    weather -- is shared with ``state``, not copied: a state is never changed once made (an
    apply that edits in place works on a deep copy of its own), so sharing is safe and a
    move costs one unit, not the whole game."""
    units = list(state.units)
    old = _INDEX_OF.peek(state)
    if old is not None and len(units) < HAND_ON_FROM and not old.search:
        old = None  # small, and no search to hand on: the new state's index is built afresh
    i = None if old is None else old.position(units, unit_id)  # the scan below, kept
    if i is None or units[i].id != unit_id:
        i = next((k for k, u in enumerate(units) if u.id == unit_id), None)
        if i is None:
            raise KeyError(unit_id)
    unit = units[i]
    units[i] = replaced(unit, {"hex": hex_id})
    update: dict[str, object] = {"units": units}
    if moved and unit_id not in state.moved:
        update["moved"] = [*state.moved, unit_id]
    new = replaced(state, update)
    if old is not None:  # the new state's index will be derived from this one when asked for
        _HANDED_ON.put(new, Moved(old, i, unit_id, unit, unit.hex, hex_id, state.moved))
    return new
