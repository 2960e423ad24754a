"""Rule 14 for the ``reachable`` query: a Pareto search over the hexes a unit can enter.

Each label is one way of reaching a hex: the movement points spent, the opportunity-fire chances
given the enemy on the way (14.opportunity.*), whether the unit had to stop (14.stop.*) and
whether every zone hex entered so far was a shift within the zone it started in (14.exit); a
label is kept unless another one reaching the same hex is at least as good on all four. The
steps are judged exactly as :class:`~app.rules.zoi.movement.Walk` judges a move of enter steps
(the tests compare both on generated games), but a label is a few fields and its path (a list
the answer uses as it is) instead of a copy of the walk, and what the search looks up is found
once per hex:

* the board's adjacency once per board, the units by hex once per state;
* the enemy zone, the adjacent enemy carrés and the entry cost of a hex, and the steps out of
  it (neighbour, cost, zone), once per state, side and unit class, from the units in its six
  neighbours, so a query pays for the hexes it reaches, not for every unit (each unit's front
  directions are kept per state too);
* rule objects (citations, effects) are not built during the search: the answer lists the
  sections once, and a refused step is simply not taken;
* a state made by ``apply`` from a move or a melee retreat (one unit changed) gets its
  look-ups from the state before (:func:`moved_to`, :meth:`_StateIndex.handed_on`), less what
  the unit's old and new hexes can change; anything else is built afresh;
* where no two labels reaching a hex can differ but in movement points (a leader; a foot unit
  next to no enemy carré that leaves no zone but the one it began in), the answer is
  found with one label per hex, queued per movement point (:func:`_one_label_hexes`), and
  the label search (:func:`reachable_labels`, :func:`answer`) answers for every other unit.
"""

from __future__ import annotations

import heapq
import weakref
from collections.abc import Iterator
from typing import Any

from app.rules.layers import layered
from app.rules.memo import ByIdentity
from app.rules.zoi.facing import front_directions
from app.rules.zoi.models import Unit, ZoiBoard, ZoiOptions, ZoiState
from app.rules.zoi.tables import CARRE, UNLIMBERED
from app.rules.zoi.zones import Game, class_keys, is_combat, is_foot, is_mounted, terrain_cost

Fire = tuple[str, int, tuple[str, ...], str]
"""One opportunity-fire chance: hex, step, the units entitled to fire, reason."""

Neighbours = dict[str, tuple[tuple[int, str], ...]]

Step = tuple[str, int, "_Zone | None"]
"""One step out of a hex: the neighbour entered, its entry cost, the enemy zone in it."""


def _adjacency(board: ZoiBoard) -> Neighbours:
    layout = board.layout.layout()
    out: Neighbours = {}
    for hex_id in board.hexes:
        found = []
        for d in range(6):
            n = layout.neighbor(hex_id, d)
            if n is not None and n in board.hexes:
                found.append((d, n))
        out[hex_id] = tuple(found)
    return out


_ADJACENCY_OF: ByIdentity[Neighbours] = ByIdentity(_adjacency)


def adjacency(board: ZoiBoard) -> Neighbours:
    """Hex -> its on-map neighbours ``(direction, hex)`` in direction order, once per board."""
    return _ADJACENCY_OF(board)


TerrainSteps = dict[str, tuple[tuple[str, int], ...]]
"""Hex -> ``(neighbour, entry cost)`` of each neighbour whose terrain is open to one unit
class, in direction order."""


class BoardSteps:
    """What every state's look-ups on one board start from, made once per board (nothing of
    it depends on the units): each hex's on-map neighbours (:func:`adjacency`), and per unit
    class the steps out of each hex the terrain allows (:meth:`row`, filled in as hexes are
    asked for)."""

    def __init__(self, board: ZoiBoard) -> None:
        self.adjacent = adjacency(board)
        self.around: dict[str, tuple[str, ...]] = {
            h: tuple(n for _, n in row) for h, row in self.adjacent.items()
        }
        """Hex -> its on-map neighbours in direction order (:func:`adjacency` without the
        directions): whether any holds a unit is one test in C (``keys().isdisjoint``)."""
        self.by_class: dict[tuple[str, str | None], TerrainSteps] = {}
        """Unit class (type, subtype) -> its terrain steps."""

    def terrain(self, unit: Unit) -> TerrainSteps:
        """The terrain steps of ``unit``'s class (filled in by :meth:`row`)."""
        key = (unit.type, unit.subtype)
        found = self.by_class.get(key)
        if found is None:
            found = self.by_class[key] = {}
        return found

    def row(
        self, board: ZoiBoard, unit: Unit, table: TerrainSteps, hex_id: str
    ) -> tuple[tuple[str, int], ...]:
        """``table[hex_id]`` (``table``: :meth:`terrain` of ``unit``) made and put in if not
        there yet: ``(neighbour, entry cost)`` of each neighbour whose terrain is open to the
        unit's class (:func:`~app.rules.zoi.zones.terrain_cost`), in direction order."""
        found = table.get(hex_id)
        if found is None:
            keys = class_keys(unit)
            out = []
            for n in self.around.get(hex_id, ()):
                cost = terrain_cost(board, keys, n)
                if cost is not None:
                    out.append((n, cost))
            found = table[hex_id] = tuple(out)
        return found


_BOARD_STEPS_OF: ByIdentity[BoardSteps] = ByIdentity(BoardSteps)


class _StateIndex:
    """What the searches on one state look up, kept per state object (states are never
    mutated once made), so the next query at the same game version starts warm: units by hex,
    and per side the zone, the adjacent carrés and the steps out of each hex asked about (the
    entry costs by terrain are the board's: :class:`BoardSteps`)."""

    def __init__(self, board: ZoiBoard, state: ZoiState) -> None:
        self.board = weakref.ref(board)
        units_at: dict[str, tuple[Unit, ...]] = {}
        for u in state.units:  # most hexes hold one unit: a tuple made at once, else grown
            here = units_at.get(u.hex)
            units_at[u.hex] = (u,) if here is None else (*here, u)
        self.units_at = units_at
        self.units: dict[str, Unit] = {u.id: u for u in state.units}
        self._count = len(self.units)
        """How many unit ids ``units`` holds (a handed-on ``units`` is layered: its ``len``
        is not that)."""
        self.unit_list = state.units
        """The state's unit list (a state is never changed once made)."""
        self._positions: dict[str, int] | None = None
        self.zones: dict[tuple[str, bool], dict[str, _Zone | None]] = {}
        self.carres: dict[str, dict[str, tuple[str, ...]]] = {}
        self.steps: dict[tuple[str, str, str | None, bool], dict[str, tuple[Step, ...]]] = {}
        self.fronts: dict[bool, dict[str, tuple[int, ...]]] = {}
        self._carres: dict[str, int] | None = None

    def carres_by_side(self) -> dict[str, int]:
        """Side -> how many of its combat units are in carré (14.carre), found when first
        asked for (one pass over the units) and handed on with the move after."""
        found = self._carres
        if found is None:
            found = {}
            for u in self.unit_list:
                if u.formation == CARRE and is_combat(u):
                    found[u.side] = found.get(u.side, 0) + 1
            self._carres = found
        return found

    def positions(self) -> dict[str, int] | None:
        """Unit id -> its place in the state's unit list, made when first asked for; None when
        two units share an id (then a place is not a unit's)."""
        if self._count != len(self.unit_list):
            return None
        found = self._positions
        if found is None:
            found = self._positions = {u.id: i for i, u in enumerate(self.unit_list)}
        return found

    def handed_on(self, board: ZoiBoard, state: ZoiState, move: _Moved) -> _StateIndex | None:
        """The index of ``state``, which is this index's state with one unit moved, turned,
        re-formed or re-sized (:func:`moved_to`), derived from this one; None when there is
        any doubt (build afresh). What one unit ``u`` of side ``S`` standing in hex ``h``
        changes, for each other side (its enemies): the entry cost of ``h`` (enemy units close
        it), the zone and the adjacent carrés of each neighbour of ``h`` (found from the units
        in the six neighbours), the steps out of every hex within two of ``h`` (a step reads
        the cost and the zone of the hex entered), and ``u``'s own front directions. For ``S``
        itself nothing changes (zones, carrés and steps are of enemy units only), so its
        look-ups are kept whole: the two states share them. Both the old and the new hex are
        dropped around."""
        old_unit, new_unit = move.old_unit, move.new_unit
        on_map = board.hexes
        if old_unit.hex not in on_map or (new_unit is not None and new_unit.hex not in on_map):
            return None
        if self.units.get(old_unit.id) is not old_unit:
            return None
        if new_unit is not None and (
            new_unit.id != old_unit.id
            or new_unit.side != old_unit.side
            or new_unit.type != old_unit.type
            or new_unit.subtype != old_unit.subtype
        ):
            return None
        side = old_unit.side
        cells = {old_unit.hex} | ({new_unit.hex} if new_unit is not None else set())
        new = _StateIndex.__new__(_StateIndex)
        new.board = self.board
        new.unit_list = state.units
        new._positions = None
        new._carres = carres_by_side = self._carres
        if carres_by_side is not None:  # the moved unit's side counted again
            before = count = carres_by_side.get(side, 0)
            count -= old_unit.formation == CARRE and is_combat(old_unit)
            if new_unit is not None:
                count += new_unit.formation == CARRE and is_combat(new_unit)
            if count != before:
                changed = new._carres = dict(carres_by_side)
                if count:
                    changed[side] = count
                else:
                    del changed[side]
        # units by hex, units by id and each unit's front directions: layered over the old
        # tables (app.rules.layers), the unit's hexes and entries replaced; nothing copied
        # (the search looks most of them up only where its own look-ups miss)
        units_at = layered(self.units_at, frozenset(cells))
        if move.position is not None:  # the unit changed in its place: the others' places kept
            positions = new._positions = self._positions
            assert positions is not None  # move.position was found with them
            for h in cells:
                listed = [u for u in self.units_at.get(h, ()) if u is not old_unit]
                if new_unit is not None and new_unit.hex == h:
                    listed.append(new_unit)  # in the unit list's order, as a pass would list them
                    listed.sort(key=lambda u: positions[u.id])
                if listed:
                    units_at[h] = tuple(listed)
        else:
            for h in cells:
                here = tuple(u for u in state.units if u.hex == h)
                if here:
                    units_at[h] = here
        new.units_at = units_at
        unit_only = frozenset((old_unit.id,))
        new.units = layered(self.units, unit_only)
        new._count = self._count
        if new_unit is None:
            new._count -= 1
        else:
            new.units[old_unit.id] = new_unit
        zones, carres = self.zones.copy(), self.carres.copy()
        steps = self.steps.copy()
        if (
            all(key[0] == side for key in zones)
            and all(key == side for key in carres)
            and all(key[0] == side for key in steps)
        ):
            # only the unit's own side was asked about (a front end hovering over its own
            # units): every table kept whole, nothing around the hexes to drop
            new.zones, new.carres, new.steps = zones, carres, steps
            new.fronts = {key: layered(t, unit_only) for key, t in self.fronts.copy().items()}
            return new
        adjacent = adjacency(board)
        near = {n for h in cells for _, n in adjacent.get(h, ())}
        """The hexes whose zone and adjacent carrés the unit can change."""
        ring = {n for h in cells | near for _, n in adjacent.get(h, ())}
        """The hexes whose steps out read the cost or the zone of a hex of ``cells | near``."""
        new.zones = {key: _kept(table, key[0] == side, near) for key, table in zones.items()}
        new.carres = {key: _kept(table, key == side, near) for key, table in carres.items()}
        new.steps = {key: _kept(table, key[0] == side, ring) for key, table in steps.items()}
        new.fronts = {key: layered(table, unit_only) for key, table in self.fronts.copy().items()}
        return new


def _kept(table: dict[str, Any], whole: bool, dropped: set[str]) -> dict[str, Any]:
    """One look-up table for the state after the move: kept whole, the table itself (shared
    by both states: what either finds holds in both, and a copy of thousands of entries is
    most of a hand-on), or a copy without the hexes ``dropped``."""
    if whole:
        return table
    kept = table.copy()
    for h in dropped:
        kept.pop(h, None)
    return kept


class _Moved:
    """What :func:`moved_to` changed: the index of the state before, the unit as it was and
    as it is now (None: eliminated), and with :func:`moved_in_place` its place in the unit
    list (the same in both states, every other unit in its own place too)."""

    __slots__ = ("new_unit", "old", "old_unit", "position")

    def __init__(
        self, old: _StateIndex, old_unit: Unit, new_unit: Unit | None, position: int | None = None
    ) -> None:
        self.old = old
        self.old_unit = old_unit
        self.new_unit = new_unit
        self.position = position


_INDEX_OF: ByIdentity[_StateIndex] = ByIdentity(maxsize=128)
_HANDED_ON: ByIdentity[_Moved] = ByIdentity(maxsize=128)
"""New state (made by :func:`moved_to`) -> the change, until the new state's index is made."""


def _index(board: ZoiBoard, state: ZoiState) -> _StateIndex:
    found = _INDEX_OF.get(state, lambda s: _new_index(board, s))
    if found.board() is not board:  # the same state judged on another board
        found = _StateIndex(board, state)
    return found


def _new_index(board: ZoiBoard, state: ZoiState) -> _StateIndex:
    """The index of a state not indexed yet: handed on from the state it was made from
    (:func:`moved_to`) when that one's index is there for this board, else built."""
    move = _HANDED_ON.pop(state)
    if move is not None and move.old.board() is board:
        found = move.old.handed_on(board, state, move)
        if found is not None:
            return found
    return _StateIndex(board, state)


def position_of(board: ZoiBoard, state: ZoiState, unit_id: str) -> int | None:
    """The place of unit ``unit_id`` in ``state``'s unit list, from the state's index when it
    was made for this board (no pass over the units); None when not known that way (no index,
    no such unit, or unit ids not unique)."""
    index = _INDEX_OF.peek(state)
    if index is None or index.board() is not board:
        return None
    positions = index.positions()
    if positions is None:
        return None
    return positions.get(unit_id)


def moved_in_place(state: ZoiState, new: ZoiState, position: int) -> ZoiState:
    """``new``, the state ``apply`` made from ``state`` by replacing the unit at ``position``
    of the unit list (found with :func:`position_of`) with a changed copy of it, every other
    unit the same object in the same place and nothing else the search reads changed: as
    :func:`moved_to`, without a pass over the units."""
    old = _INDEX_OF.peek(state)
    if old is None:
        return new
    su, nu = state.units, new.units
    if old.positions() is None or len(su) != len(nu) or su[position].id != nu[position].id:
        return moved_to(state, new, nu[position].id)
    _HANDED_ON.put(new, _Moved(old, su[position], nu[position], position))
    return new


def moved_to(state: ZoiState, new: ZoiState, unit_id: str) -> ZoiState:
    """``new``, the state ``apply`` made from ``state`` by changing the one unit ``unit_id``
    (its hex, facing, formation or increments) or removing it, and nothing else the search
    reads (units by hex, fronts): when ``state`` was indexed, ``new``'s index will be derived
    from it when first asked for (:meth:`_StateIndex.handed_on`)."""
    old = _INDEX_OF.peek(state)
    if old is None:
        return new
    su, nu = state.units, new.units
    if len(su) == len(nu):  # the unit changed in its place (the usual move): one pass
        changed = [i for i, (a, b) in enumerate(zip(su, nu, strict=True)) if a is not b]
        if len(changed) == 1:
            i = changed[0]
            if su[i].id == unit_id and nu[i].id == unit_id:
                if sum(1 for u in su if u.id == unit_id) != 1:
                    return new
                _HANDED_ON.put(new, _Moved(old, su[i], nu[i]))
                return new
    was = [u for u in state.units if u.id == unit_id]
    now = [u for u in new.units if u.id == unit_id]
    if len(was) != 1 or len(now) > 1:
        return new
    before = [u for u in state.units if u.id != unit_id]
    after = [u for u in new.units if u.id != unit_id]
    if len(before) != len(after) or any(a is not b for a, b in zip(before, after, strict=True)):
        return new  # another unit changed too: build afresh
    _HANDED_ON.put(new, _Moved(old, was[0], now[0] if now else None))
    return new


Label = tuple[str, int, int, bool, bool, list[str], tuple[Fire, ...]]
"""One Pareto-optimal way of reaching a hex: the hex, the movement points spent, the fire
chances given, whether the unit had to stop there, whether every zone hex entered was a shift
within the zone it started in, the hexes entered in order (the start excluded; the answer's
path) and the fire chances themselves. A tuple: made for every label kept, in a loop where a
class's ``__init__`` call cost more than what it holds."""


class _Zone:
    """The enemy zone in one hex, for the moving unit's side (14.zone)."""

    __slots__ = ("by", "cavalry", "others")

    def __init__(self, by: tuple[str, ...], cavalry: tuple[str, ...], others: bool) -> None:
        self.by = by
        """Units projecting it, sorted."""
        self.cavalry = cavalry
        """Those of them that are cavalry, sorted."""
        self.others = others
        """Whether any of them is not cavalry."""


class _Lookups:
    """What the search asks about hexes, each found once per state and side from the units in
    the hex and its six neighbours."""

    def __init__(self, game: Game, unit: Unit) -> None:
        self.game = game
        self.unit = unit
        self.side = unit.side
        board_steps = self._board_steps = _BOARD_STEPS_OF(game.board)
        self.adjacent = board_steps.adjacent
        index = self.index = _index(game.board, game.state)
        self.units_at = index.units_at
        routed = game.options.routed_units_exert_zone  # the one option a zone depends on
        self._zones = index.zones.setdefault((unit.side, routed), {})
        self._carres = index.carres.setdefault(unit.side, {})
        self._steps = index.steps.setdefault((unit.side, unit.type, unit.subtype, routed), {})
        self._front_of = index.fronts.setdefault(routed, {})
        self._terrain = board_steps.terrain(unit)
        self._around = board_steps.around
        self._occupied = index.units_at.keys() if type(index.units_at) is dict else None
        """The hexes holding units, when the table is plain (a handed-on one is layered: its
        keys are not all of them)."""

    def steps(self, hex_id: str) -> tuple[Step, ...]:
        """The neighbours of ``hex_id`` the unit may enter, in direction order, each with its
        entry cost and the enemy zone in it (:meth:`zone`): the board's steps for the unit's
        class (:class:`BoardSteps`: terrain closed to it), less the hexes holding enemy
        units (movement)."""
        found = self._steps.get(hex_id)
        if found is None:
            row = self._terrain.get(hex_id)
            if row is None:
                row = self._board_steps.row(self.game.board, self.unit, self._terrain, hex_id)
            units_at, zones, side = self.units_at, self._zones, self.side
            occupied, around = self._occupied, self._around
            out = []
            for n, cost in row:
                here = units_at.get(n)
                if here is not None and any(u.side != side for u in here):
                    continue  # enemy units close it
                zone = zones.get(n, _UNSEEN)
                if zone is _UNSEEN:
                    if occupied is not None and occupied.isdisjoint(around.get(n, ())):
                        zone = zones[n] = None  # no unit next to it: no zone (as zone finds)
                    else:
                        zone = self.zone(n)
                out.append((n, cost, zone))
            found = self._steps[hex_id] = tuple(out)
        return found

    def zone(self, hex_id: str) -> _Zone | None:
        """Enemies projecting a zone into ``hex_id`` across a front hexside (14.zone, 14.front),
        None if none does."""
        if hex_id in self._zones:
            return self._zones[hex_id]
        side, units_at, front_of = self.side, self.units_at, self._front_of
        found: list[Unit] = []
        for d, n in self.adjacent.get(hex_id, ()):
            near = units_at.get(n)
            if near is None:
                continue
            toward = (d + 3) % 6  # from the unit in n back to hex_id
            for u in near:
                if u.side == side:
                    continue
                front = front_of.get(u.id)
                if front is None:
                    front = front_of[u.id] = self._front(u)
                if toward in front:
                    found.append(u)
        zone = None
        if found:
            zone = _Zone(
                tuple(sorted({u.id for u in found})),
                tuple(sorted({u.id for u in found if u.type == "cavalry"})),
                any(u.type != "cavalry" for u in found),
            )
        self._zones[hex_id] = zone
        return zone

    def _front(self, u: Unit) -> tuple[int, ...]:
        """The directions ``u`` projects its zone across (none if it projects no zone)."""
        if not self.game.exerts_zone(u):
            return ()
        spec = self.game.front_spec(u)
        return () if spec is None else front_directions(spec, u.facing)

    def carres(self, hex_id: str) -> tuple[str, ...]:
        """Enemy carrés adjacent to ``hex_id`` (14.carre), sorted."""
        found = self._carres.get(hex_id)
        if found is None:
            ids = [
                u.id
                for _, n in self.adjacent.get(hex_id, ())
                for u in self.units_at.get(n, ())
                if u.side != self.side and u.formation == "carre" and is_combat(u)
            ]
            found = self._carres[hex_id] = tuple(sorted(ids))
        return found


def unit_named(game: Game, unit_id: str) -> Unit | None:
    """The unit ``unit_id`` of the game's state, from the per-state index (no pass over every
    unit of the game on each query)."""
    return _index(game.board, game.state).units.get(unit_id)


def _union(*groups: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({uid for g in groups for uid in g}))


def _may_loop(board: ZoiBoard) -> bool:
    """Whether some terrain costs fewer than 0 movement points: only then can a path that
    enters a hex twice be Pareto-best (see :func:`reachable_labels`)."""
    return any(
        c is not None and c < 0 for row in board.terrain_costs.values() for c in row.values()
    )


_MAY_LOOP_OF: ByIdentity[bool] = ByIdentity(_may_loop)
_UNSEEN: Any = object()


def reachable_labels(
    game: Game, unit: Unit, look: _Lookups | None = None
) -> dict[str, list[Label]]:
    """Hex -> the Pareto-best labels reaching it by enter steps only (rule 14, movement).

    Labels are expanded cheapest first (movement points, then fire chances, then the order
    they were found), a label dominated after it was queued is still expanded, and ties keep
    the label found first: the same labels, in the same order, as walking each path.

    No hex twice on a path: a path entering a hex again has spent at least the movement
    points, and given at least the fire chances, of its own earlier visit, which was not
    stopped and was a shift-only path if this one is -- so the earlier visit (or a label
    that beat it) dominates it, and only the start hex (never a label of its own) needs the
    check -- made by the start's own label, kept in the table while the search runs (it
    beats every label back into the start) and taken out at the end. A board with negative
    entry costs keeps the full check. ``look``: the unit's look-ups, if made already."""
    if look is None:
        look = _Lookups(game, unit)
    opts = game.options
    combat, foot, mounted = is_combat(unit), is_foot(unit), is_mounted(unit)
    slide_on = opts.shift_within_zone != "stop"
    expend_on_entry = opts.entering_counts_as_expenditure  # 14.opportunity.expend (entry)
    any_cavalry = opts.mixed_zone_stops_cavalry == "any_cavalry"
    may_loop = _MAY_LOOP_OF(game.board)
    began_in_zone = (
        combat
        and game.state.phase_start.get(unit.id, unit.hex) == unit.hex
        and look.zone(unit.hex) is not None
    )
    labels: dict[str, list[Label]] = {}
    if unit.type == "artillery" and unit.formation == UNLIMBERED:
        return labels  # movement: an unlimbered battery must limber before it moves
    all_steps, zones, carres = look._steps, look._zones, look._carres
    steps_of, zone_of, carres_of = look.steps, look.zone, look.carres
    start, ma = unit.hex, unit.ma
    push = heapq.heappush
    counter = 0
    origin: Label = (start, 0, 0, False, True, [], ())
    heap: list[tuple[int, int, int, Label]] | None = None
    queued: list[list[list[Label]]] = []
    if may_loop:
        heap = [(0, 0, 0, origin)]
        taken = _popped(heap)
    else:
        # the start's own label (no movement points, no fire chance, not stopped, a shift
        # only) beats every step back into the start when no entry cost is negative, as
        # skipping the start would: one test fewer per step. Taken out before returning.
        labels[start] = [origin]
        queued = [[] for _ in range(ma + 1)]
        queued[0].append([origin])
        taken = _in_order(queued)
    for walk in taken:
        here, spent, _, stopped_here, slid_before, route, fire_before = walk
        if stopped_here:
            continue
        src_here = None
        if combat:
            src_here = zones.get(here, _UNSEEN)
            if src_here is _UNSEEN:
                src_here = zone_of(here)
            if src_here is not None and foot and not _may_leave(opts, walk, began_in_zone):
                continue
            near = carres.get(here)
            if src_here is not None or (carres_of(here) if near is None else near):
                fire_before += _leaving_fire(look, opts, here, len(route), src_here)
        step, budget = len(route), ma - spent
        chances_before = len(fire_before)
        out = all_steps.get(here)
        for n, cost, src_new in steps_of(here) if out is None else out:
            if cost > budget:
                continue
            if may_loop and (n == start or n in route):
                continue
            mp = spent + cost
            found = labels.get(n)
            if found and (src_new is None or not combat):
                # no zone entered: the label would give no more fire chances than the walk's
                # and neither stop nor shift (nor did any label reaching this hex: it has no
                # zone), so a first label that spent no more and gave no more chances beats it,
                # as the loop below would find
                old = found[0]
                if old[1] <= mp and old[2] <= chances_before:  # movement points, chances
                    continue
            fire, chances = fire_before, chances_before
            stopped = slid = False
            if combat and src_new is not None:
                if expend_on_entry:  # 14.opportunity.expend (entry)
                    fire += ((n, step, src_new.by, "expend"),)
                    chances += 1
                if foot:  # 14.stop.infantry-artillery, unless a shift within the zone
                    slide = (
                        slide_on and src_here is not None and set(src_new.by) <= set(src_here.by)
                    )
                    stopped = not slide
                    slid = slid_before and slide
                elif mounted:  # 14.stop.cavalry, 14.cavalry-passes
                    stopped = bool(src_new.cavalry)
                    if src_new.cavalry and src_new.others:
                        stopped = any_cavalry
            if found is None:
                found = labels[n] = []
            elif found:
                beaten = False
                for old in found:  # a label at least as good on all four counts
                    if (
                        old[1] <= mp
                        and old[2] <= chances
                        and (not old[3] or stopped)
                        and (old[4] or not slid)
                    ):
                        beaten = True
                        break
                if beaten:
                    continue
                found[:] = [
                    old
                    for old in found
                    if not (
                        mp <= old[1]
                        and chances <= old[2]
                        and (not stopped or old[3])
                        and (slid or not old[4])
                    )
                ]
            nxt = (n, mp, chances, stopped, slid, [*route, n], fire)
            found.append(nxt)
            if heap is None:
                by_chances = queued[mp]
                while len(by_chances) <= chances:
                    by_chances.append([])
                by_chances[chances].append(nxt)
            else:
                counter += 1
                push(heap, (mp, chances, counter, nxt))
    if not may_loop:
        del labels[start]
    return labels


def reachable_hexes(game: Game, unit: Unit) -> list[dict[str, Any]]:
    """The ``hexes`` of the ``reachable`` answer: :func:`answer` of :func:`reachable_labels`,
    found by :func:`_one_label_hexes` where no hex can have more than one label."""
    look = _Lookups(game, unit)
    found = _one_label_hexes(game, unit, look)
    if found is None:
        found = answer(reachable_labels(game, unit, look), unit.ma)
    return found


def _one_label_hexes(
    game: Game, unit: Unit, look: _Lookups | None = None
) -> list[dict[str, Any]] | None:
    """The answer of :func:`reachable_labels` for a unit every label of which, in each hex, is
    like every other label reaching that hex but for the movement points; None for any other
    unit. That is a unit for which

    * every label gives the same fire chances before entering its hex: a leader (rule 14 is
      of combat units), or a foot unit that takes no hex next to an enemy carré (14.carre:
      leaving one gives a chance) and leaves no zone hex but the start
      (14.exit.infantry-artillery: it stops in the first it enters,
      14.stop.infantry-artillery, unless it began in one and may shift within it, then
      ``shift_within_zone`` is not ``stop``: not this search);
    * in each hex every label stops or none does, and none is a shift within a zone: a
      leader stops nowhere, a foot unit in every zone hex and nowhere else (entering one gives
      one more chance under 14.opportunity.expend, on every label reaching it alike);
    * no entry cost is negative (else a path may enter a hex twice).

    Each hex then keeps one label, its cheapest (the first found of equal ones), and a label
    beaten after it was queued expands to no label the cheaper one did not beat: a search
    with one entry per hex and stale queue entries skipped (a Dijkstra search), in the
    label search's order (movement points, then the order found), finds the same labels.
    Whether a hex it takes (the start, or a hex reached and not stopped in, movement points
    left or not) is next to an enemy carré is asked only when the enemy has a carré on the
    map; the first such hex ends this search (None): up to there both searches took the same
    hexes in the same order. ``tests/rules/zoi/test_one_label_search.py``
    compares both on generated games."""
    if unit.type == "artillery" and unit.formation == UNLIMBERED:
        return []  # movement: an unlimbered battery must limber before it moves
    combat = is_combat(unit)
    if unit.ma < 0 or (combat and not is_foot(unit)) or _MAY_LOOP_OF(game.board):
        return None
    if look is None:
        look = _Lookups(game, unit)
    opts = game.options
    start, ma, side = unit.hex, unit.ma, unit.side
    fire0: tuple[Fire, ...] = ()
    expend = near_carres = False
    if combat:
        src_start = look.zone(start)
        if src_start is not None:
            if game.state.phase_start.get(unit.id, start) != start:
                return []  # 14.exit.infantry-artillery: moved into the zone this phase
            if opts.shift_within_zone != "stop":
                return None
            fire0 = _leaving_fire(look, opts, start, 0, src_start)
        expend = opts.entering_counts_as_expenditure  # 14.opportunity.expend (entry)
        counted = look.index.carres_by_side()
        near_carres = any(n for s, n in counted.items() if s != side)
    carres, carres_of = look._carres, look.carres
    all_steps, steps_of = look._steps, look.steps
    best = {start: 0}
    """Hex -> the movement points of its label."""
    found: dict[str, dict[str, Any]] = {}
    """Hex -> its label, as the answer lists it."""
    over = ma + 1
    queued: list[list[tuple[str, list[str]]]] = [[] for _ in range(over)]
    """Movement points -> the hexes reached for as many, with their paths, in the order
    found: taken cheapest first and in that order within each (a step is never negative: a
    label queues only where its own movement points or more are taken), which is the label
    search's queue order (movement points, then the order found)."""
    queued[0].append((start, []))
    for spent in range(over):
        for here, route in queued[spent]:  # takes what this loop queues as well (cost 0)
            if spent > best[here]:
                continue  # beaten after it was queued
            if near_carres:  # 14.carre: leaving here may give a chance: the label search's
                near = carres.get(here)
                if near is None:
                    near = carres_of(here)
                if near:
                    return None
            out = all_steps.get(here)
            for n, cost, zone in steps_of(here) if out is None else out:
                mp = spent + cost
                if best.get(n, over) <= mp:
                    continue  # beyond the allowance, or a label at least as cheap is there
                best[n] = mp
                path = [*route, n]
                stops = zone is not None and combat  # 14.stop.infantry-artillery
                fire = fire0
                if stops and expend and zone is not None:
                    fire = (*fire0, (n, len(route), zone.by, "expend"))
                found[n] = {
                    "path": path,
                    "mp_spent": mp,
                    "mp_left": ma - mp,
                    "must_stop": stops,
                    "opportunity_fire": _fire_rows(fire) if fire else [],
                }
                if not stops:
                    queued[mp].append((n, path))
    return [{"hex": h, "paths": [found[h]]} for h in sorted(found)]


def _fire_rows(fire: tuple[Fire, ...]) -> list[dict[str, Any]]:
    """The fire chances of a path as the answer lists them."""
    return [{"hex": h, "step": s, "by": list(by), "reason": why} for h, s, by, why in fire]


def _popped(heap: list[tuple[int, int, int, Label]]) -> Iterator[Label]:
    """The labels of ``heap`` cheapest first (movement points, fire chances, order found),
    including those pushed while it is taken from."""
    pop = heapq.heappop
    while heap:
        yield pop(heap)[3]


def _in_order(queued: list[list[list[Label]]]) -> Iterator[Label]:
    """The labels of ``queued`` (movement points -> fire chances -> labels in the order
    found) in that order, including those queued while it is taken from. When no entry cost
    is negative this is the heap's order: a label's movement points and fire chances are
    never fewer than those of the label it extends, so it queues where the queue is being
    taken from or later."""
    for by_chances in queued:
        c = 0
        while c < len(by_chances):
            yield from by_chances[c]
            c += 1


def _may_leave(opts: ZoiOptions, walk: Label, began_in_zone: bool) -> bool:
    """14.exit.infantry-artillery: a foot unit leaves an enemy zone only at the beginning of
    its movement (after shifts within the zone, under the ``slide`` reading)."""
    if not walk[5]:  # nothing entered yet
        return began_in_zone
    return began_in_zone and walk[4] and opts.shift_within_zone == "slide"


def _leaving_fire(
    look: _Lookups, opts: ZoiOptions, here: str, step: int, src_here: _Zone | None
) -> tuple[Fire, ...]:
    """The fire chances of leaving ``here`` after ``step`` hexes entered (the same whichever
    hex is entered next)."""
    carres = look.carres(here)
    if carres and step == 0 and opts.carre_fire_only_after_moving_adjacent:
        carres = ()  # 14.carre: only once the unit has moved next to the carré
    if src_here is not None:  # 14.opportunity.exit (with 14.carre), 14.opportunity.expend
        out: tuple[Fire, ...] = ((here, step, _union(src_here.by, carres), "exit"),)
        if opts.exit_cost_counts_in_departed_hex:
            out += ((here, step, src_here.by, "expend"),)
        return out
    if carres:
        return ((here, step, carres, "carre"),)
    return ()


def sort_key(label: Label) -> tuple[int, int, list[str]]:
    return (label[1], label[2], label[5])


def answer(labels: dict[str, list[Label]], ma: int) -> list[dict[str, Any]]:
    """The ``hexes`` of the ``reachable`` answer: by hex id, each hex's paths cheapest first
    (movement points, fire chances, then the hexes entered)."""
    out = []
    for h in sorted(labels):
        found = labels[h]
        if len(found) > 1:
            found = sorted(found, key=sort_key)
        paths = []
        for _, spent, _, stopped, _, route, fire in found:
            paths.append(
                {
                    "path": route,  # the label's own list: labels die with the query
                    "mp_spent": spent,
                    "mp_left": ma - spent,
                    "must_stop": stopped,
                    "opportunity_fire": _fire_rows(fire) if fire else [],
                }
            )
        out.append({"hex": h, "paths": paths})
    return out
