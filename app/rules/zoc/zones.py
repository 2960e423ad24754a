"""Section 8 and 8.1: who projects a ZOC where, which zones are enemy, and what negates them.

:class:`Topology` is the board's adjacency (computed once per board and cached). :class:`Zones`
answers "which units project a ZOC into this hex" lazily, hex by hex, from the units in the six
neighbouring hexes, so a ruling or a search pays for the hexes it looks at, not for every unit
of the game; :func:`compute_zones` gives the whole map at once (the ``ezoc-map`` query).
:class:`Context` bundles board, state, options, topology and zones with the per-ruling
bookkeeping: the sections cited and the interpretations relied on.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from app.rules.geometry import Hexside
from app.rules.geometry.hexgrid import AXIAL_DIRECTIONS
from app.rules.geometry.layout_spec import LayoutSpec
from app.rules.judgement import Judgement, Mark, Problem
from app.rules.memo import ByIdentity
from app.rules.ruling import Citation, Effect, InterpretationRef, Ruling
from app.rules.zoc.catalog import CATALOG, INTERPRETATION_BY_ID
from app.rules.zoc.models import (
    ALL_SEA_TERRAIN,
    Board,
    Marker,
    State,
    Unit,
    ZocOptions,
)

NON_NEGATING_MARKERS = ("logistics", "partisan_base", "detachment")


# -- topology -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Topology:
    """Adjacency of the map hexes: hex -> ((neighbour, hexside id), ...) in direction order."""

    neighbors: dict[str, tuple[tuple[str, str], ...]]

    def adjacent(self, a: str, b: str) -> bool:
        return any(n == b for n, _ in self.neighbors.get(a, ()))

    def hexside(self, a: str, b: str) -> str:
        return Hexside.between(a, b).id


@lru_cache(maxsize=64)
def _topology(layout_spec: LayoutSpec, hex_ids: tuple[str, ...]) -> Topology:
    layout = layout_spec.layout()
    by_axial: dict[tuple[str, int, int], str] = {}
    axial: dict[str, tuple[str, int, int]] = {}
    for hex_id in hex_ids:
        h = layout.parse(hex_id)
        q, r = layout.to_axial(h)
        by_axial[(h.prefix, q, r)] = hex_id
        axial[hex_id] = (h.prefix, q, r)
    neighbors: dict[str, tuple[tuple[str, str], ...]] = {}
    for hex_id, (prefix, q, r) in axial.items():
        found: list[tuple[str, str]] = []
        for d in range(6):
            dq, dr = AXIAL_DIRECTIONS[(d + 1) % 6 if layout.orientation == "pointy" else d]
            other = by_axial.get((prefix, q + dq, r + dr))
            if other is not None:
                found.append((other, Hexside.between(hex_id, other).id))
        neighbors[hex_id] = tuple(found)
    return Topology(neighbors)


def _board_topology(board: Board) -> Topology:
    return _topology(board.layout, tuple(board.hexes))


_TOPOLOGY_OF = ByIdentity(_board_topology)


def topology(board: Board) -> Topology:
    """The board's adjacency, cached per board (boards are immutable)."""
    return _TOPOLOGY_OF(board)


@dataclass(frozen=True)
class EntryCost:
    """Movement points to enter a hex across one hexside, before the Beachhead exception."""

    cost: int | None
    why: str
    across_all_sea: bool
    """The hexside has an All-Sea feature: a Beachhead Hexside may lift it (state-dependent)."""


class _BoardCosts:
    """Entry costs of one board, filled in as hexes are entered (boards never change)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.sides: dict[tuple[str, str], str] = {}
        self.costs: dict[tuple[str, str], EntryCost] = {}

    def side_id(self, src: str, dst: str) -> str:
        key = (src, dst)
        found = self.sides.get(key)
        if found is None:
            found = self.sides[key] = Hexside.between(src, dst).id
        return found

    def entry(self, src: str, dst: str) -> EntryCost:
        key = (src, dst)
        found = self.costs.get(key)
        if found is None:
            found = self.costs[key] = self._entry(src, dst, beachhead_sides=frozenset())
        return found

    def _entry(self, src: str, dst: str, beachhead_sides: frozenset[str]) -> EntryCost:
        costs = self.board.movement_costs
        terrain = self.board.hexes[dst].terrain
        base = costs.terrain.get(terrain)
        side_id = self.side_id(src, dst)
        features = self.board.hexsides.get(side_id, ())
        sea = "all_sea" in features
        if base is None:
            return EntryCost(None, f"terrain {terrain!r} of {dst} is impassable", sea)
        extra = 0
        for feature in features:
            if feature == "all_sea" and side_id in beachhead_sides:
                continue
            add = costs.hexside.get(feature, 0)
            if add is None:
                return EntryCost(None, f"{feature} hexside {side_id} cannot be crossed", sea)
            extra += add
        return EntryCost(base + extra, "", sea)


_COSTS_OF = ByIdentity(_BoardCosts)


def board_costs(board: Board) -> _BoardCosts:
    """The board's entry costs, filled in as hexes are entered (cached per board)."""
    return _COSTS_OF(board)


# -- projections ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Blocked:
    """A projection that section 8 stops: ``unit`` in ``source`` does not zone ``target``."""

    unit: str
    side: str
    source: str
    target: str
    section: str
    reason: str

    def as_json(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "from": self.source,
            "to": self.target,
            "reason": self.reason,
            "section": self.section,
        }


@dataclass(frozen=True)
class Silent:
    """A unit on the map that projects no ZOC at all, and why."""

    unit: str
    side: str
    section: str
    reason: str


@dataclass
class ZoneMap:
    """Every ZOC projection of one state: hex -> units projecting into it (any side)."""

    into: dict[str, list[Unit]] = field(default_factory=dict)
    blocked: list[Blocked] = field(default_factory=list)
    silent: list[Silent] = field(default_factory=list)
    blocked_into: dict[str, list[Blocked]] = field(default_factory=dict)
    silent_at: dict[str, list[Silent]] = field(default_factory=dict)
    via_beachhead: set[tuple[str, str]] = field(default_factory=set)
    """(unit id, target hex) pairs projected across a Beachhead Hexside of sea."""

    def ezoc(self, hex_id: str, side: str) -> list[Unit]:
        """Units exerting an EZOC in ``hex_id`` for units of ``side`` (8.1: all other sides)."""
        return [u for u in self.into.get(hex_id, ()) if u.side != side]


def beachhead_hexsides(board: Board, markers: Iterable[Marker]) -> dict[str, set[str]]:
    """All-Sea hexes holding a Beachhead marker -> their Beachhead Hexside ids."""
    out: dict[str, set[str]] = {}
    for marker in markers:
        if marker.kind != "beachhead" or marker.hexside is None:
            continue
        info = board.hexes.get(marker.hex)
        if info is None or info.terrain != ALL_SEA_TERRAIN:
            continue
        a, b = marker.hexside.split("/", 1)
        out.setdefault(marker.hex, set()).add(Hexside.between(a, b).id)
    return out


def _silence(board: Board, unit: Unit) -> Silent | None:
    """Section 8's reason a unit on the map projects no ZOC at all, if any."""
    country = board.countries.get(unit.country) if unit.country else None
    if not unit.ground:
        return Silent(unit.id, unit.side, "8", "not a ground unit")
    if country is not None and country.policy_affected:
        return Silent(unit.id, unit.side, "8.exc.policy-unit", "unit of a Policy Affected country")
    return None


def compute_zones(
    board: Board, topo: Topology, units: Iterable[Unit], markers: Iterable[Marker]
) -> ZoneMap:
    """Apply section 8 to every unit on the map (the whole map at once)."""
    zones = ZoneMap()
    beachheads = beachhead_hexsides(board, markers)
    all_beachhead_sides = {s for sides in beachheads.values() for s in sides}
    for unit in units:
        if unit.hex is None or unit.hex not in board.hexes:
            continue
        silent = _silence(board, unit)
        if silent is not None:
            zones.silent.append(silent)
            zones.silent_at.setdefault(unit.hex, []).append(silent)
            continue
        for target, side_id in topo.neighbors.get(unit.hex, ()):
            section, reason = _projection_block(
                board, unit.hex, target, side_id, beachheads, all_beachhead_sides
            )
            if section is not None:
                blocked = Blocked(unit.id, unit.side, unit.hex, target, section, reason)
                zones.blocked.append(blocked)
                zones.blocked_into.setdefault(target, []).append(blocked)
                continue
            if side_id in all_beachhead_sides and _is_sea(board.hexsides.get(side_id, ())):
                zones.via_beachhead.add((unit.id, target))
            zones.into.setdefault(target, []).append(unit)
    return zones


class Zones:
    """Section 8 hex by hex: the projections into a hex are found from the units in its six
    neighbours when first asked for, then kept. Gives the same units, in the same order (the
    order of the state's unit list), as :func:`compute_zones` does for the whole map."""

    def __init__(
        self,
        board: Board,
        topo: Topology,
        positions: Iterable[tuple[Unit, str | None]],
        markers: Iterable[Marker],
        at: dict[str, list[tuple[int, Unit]]] | None = None,
    ) -> None:
        """``at``: the on-map hexes -> (position in the unit list, unit), if already made."""
        self.board = board
        self.topo = topo
        self.beachheads = beachhead_hexsides(board, markers)
        self.all_beachhead_sides = {s for sides in self.beachheads.values() for s in sides}
        if at is None:
            at = {}
            for i, (unit, hex_id) in enumerate(positions):
                if hex_id is not None and hex_id in board.hexes:
                    at.setdefault(hex_id, []).append((i, unit))
        self._at = at
        self._silence: dict[str, Silent | None] = {}
        self._into: dict[str, tuple[list[Unit], list[Blocked]]] = {}
        self._ezoc: dict[tuple[str, str], list[Unit]] = {}
        self._no_zoc: dict[tuple[str, str], tuple[tuple[str, str, str], ...]] = {}
        self._via: set[tuple[str, str]] = set()

    def silence(self, unit: Unit) -> Silent | None:
        if unit.id not in self._silence:
            self._silence[unit.id] = _silence(self.board, unit)
        return self._silence[unit.id]

    def _projections(self, target: str) -> tuple[list[Unit], list[Blocked]]:
        found = self._into.get(target)
        if found is not None:
            return found
        at = self._at
        sources = [(s, side_id) for s, side_id in self.topo.neighbors.get(target, ()) if s in at]
        if not sources:  # no unit next to it (most hexes): nothing projects into it
            found = self._into[target] = ([], [])
            return found
        into: list[tuple[int, Unit]] = []
        blocked: list[tuple[int, Blocked]] = []
        for source, side_id in sources:
            for i, unit in at[source]:
                if self.silence(unit) is not None:
                    continue
                section, reason = _projection_block(
                    self.board,
                    source,
                    target,
                    side_id,
                    self.beachheads,
                    self.all_beachhead_sides,
                )
                if section is not None:
                    stop = Blocked(unit.id, unit.side, source, target, section, reason)
                    blocked.append((i, stop))
                    continue
                if side_id in self.all_beachhead_sides and _is_sea(
                    self.board.hexsides.get(side_id, ())
                ):
                    self._via.add((unit.id, target))
                into.append((i, unit))
        into.sort(key=lambda p: p[0])
        blocked.sort(key=lambda p: p[0])
        found = self._into[target] = ([u for _, u in into], [b for _, b in blocked])
        return found

    def into(self, hex_id: str) -> list[Unit]:
        """Units projecting a ZOC into ``hex_id`` (any side)."""
        return self._projections(hex_id)[0]

    def blocked_into(self, hex_id: str) -> list[Blocked]:
        """Projections into ``hex_id`` that section 8 stops."""
        return self._projections(hex_id)[1]

    def via_beachhead(self, unit_id: str, hex_id: str) -> bool:
        """Does ``unit_id`` project into ``hex_id`` across a Beachhead Hexside of sea?"""
        self._projections(hex_id)
        return (unit_id, hex_id) in self._via

    def blocked_in(self, area: Iterable[str]) -> list[Blocked]:
        """The projections into the hexes of ``area`` that section 8 stops, in the order
        :func:`compute_zones` lists them (by unit, then by direction from its hex)."""
        keyed = []
        for target in area:
            for b in self.blocked_into(target):
                i = next(i for i, u in self._at[b.source] if u.id == b.unit)
                d = [n for n, _ in self.topo.neighbors[b.source]].index(target)
                keyed.append(((i, d), b))
        keyed.sort(key=lambda k: k[0])
        return [b for _, b in keyed]

    def silent_in(self, area: Iterable[str]) -> list[Silent]:
        """The units standing in ``area`` that project no ZOC, in the state's unit order."""
        keyed = [
            (i, silent)
            for hex_id in area
            for i, unit in self._at.get(hex_id, ())
            if (silent := self.silence(unit)) is not None
        ]
        keyed.sort(key=lambda k: k[0])
        return [s for _, s in keyed]

    def silent_at(self, hex_id: str) -> list[Silent]:
        """Units in ``hex_id`` that project no ZOC at all."""
        out = []
        for _, unit in self._at.get(hex_id, ()):
            silent = self.silence(unit)
            if silent is not None:
                out.append(silent)
        return out

    def no_zoc(self, hex_id: str, side: str) -> tuple[tuple[str, str, str], ...]:
        """``(unit, reason, section)`` of each enemy (of ``side``) projection into ``hex_id``
        that section 8 blocks, then of each adjacent enemy unit that projects nothing."""
        key = (hex_id, side)
        found = self._no_zoc.get(key)
        if found is None:
            notes = [
                (b.unit, b.reason, b.section) for b in self.blocked_into(hex_id) if b.side != side
            ]
            at = self._at
            for nbr, _side in self.topo.neighbors.get(hex_id, ()):
                if nbr in at:
                    notes += [
                        (s.unit, s.reason, s.section) for s in self.silent_at(nbr) if s.side != side
                    ]
            found = self._no_zoc[key] = tuple(notes)
        return found

    def ezoc(self, hex_id: str, side: str) -> list[Unit]:
        """Units exerting an EZOC in ``hex_id`` for units of ``side`` (8.1: all other sides)."""
        key = (hex_id, side)
        found = self._ezoc.get(key)
        if found is None:
            found = self._ezoc[key] = [u for u in self.into(hex_id) if u.side != side]
        return found


def _is_sea(features: Iterable[str]) -> bool:
    return any(f in ("all_sea", "strait") for f in features)


def _projection_block(
    board: Board,
    source: str,
    target: str,
    side_id: str,
    beachheads: dict[str, set[str]],
    all_beachhead_sides: set[str],
) -> tuple[str | None, str]:
    """The clause of section 8 that stops a projection across one hexside, if any."""
    features = board.hexsides.get(side_id, ())
    if "mountain" in features:
        return "8.exc.mountain", f"mountain hexside {side_id}"
    for sea_hex in (source, target):
        if sea_hex in beachheads and side_id not in beachheads[sea_hex]:
            return "8.clar.beachhead", (
                f"{sea_hex} is an All-Sea hex with a Beachhead marker and {side_id} is not "
                "its Beachhead Hexside"
            )
    if ("all_sea" in features or "strait" in features) and side_id not in all_beachhead_sides:
        kind = "all-sea" if "all_sea" in features else "strait"
        return "8.exc.sea", f"{kind} hexside {side_id}"
    info = board.hexes.get(target)
    if info is not None and info.country is not None:
        country = board.countries.get(info.country)
        if country is not None and country.policy_affected:
            return "8.exc.policy-hex", f"{target} lies in Policy Affected {info.country}"
    return None, ""


# -- the per-state index ---------------------------------------------------------------------


class _StateIndex:
    """What one state's rulings look up: units by id and by hex, its zones (filled in hex by
    hex as rulings ask), the units that moved. Kept per state object (states are never
    mutated once made), so the next ruling or query on the same game version starts warm."""

    def __init__(self, board: Board, topo: Topology, state: State) -> None:
        self.board = weakref.ref(board)
        self.units: dict[str, Unit] = {}
        self.occupants: dict[str, list[Unit]] = {}
        at: dict[str, list[tuple[int, Unit]]] = {}
        on_map = board.hexes
        for i, unit in enumerate(state.units):  # one pass: by id, by hex, on the map
            self.units[unit.id] = unit
            hex_id = unit.hex
            if hex_id is not None:
                self.occupants.setdefault(hex_id, []).append(unit)
                if hex_id in on_map:
                    at.setdefault(hex_id, []).append((i, unit))
        self.zones = Zones(board, topo, (), state.markers, at)
        self.beachhead_sides = frozenset(self.zones.all_beachhead_sides)
        self.moved = frozenset(state.moved)
        self.markers_at: dict[str, list[Marker]] = {}
        for marker in state.markers:
            self.markers_at.setdefault(marker.hex, []).append(marker)
        self.zone_map: ZoneMap | None = None
        """Every projection at once (the ``ezoc-map`` query), made when first asked for."""
        self.search: dict[str, Any] = {}
        """What the ``reachable`` search keeps per side (``app.rules.zoc.search``)."""

    def handed_on(
        self, board: Board, topo: Topology, state: State, move: _Moved
    ) -> _StateIndex | None:
        """The index of ``state``, which is this index's state with one unit moved (what
        :func:`moved_to` made), derived from this one: what the moved unit's old and new hexes
        can change is dropped (to be found again when asked for), the rest is shared or
        copied. None when the move cannot be handed on (a hex off the map): build afresh.

        What a unit in hex ``h`` changes: who stands in ``h`` (units by hex, enemy
        occupation, negators); the projections into, the EZOC of and the no-ZOC notes of
        each neighbour of ``h`` (zones are found from the units in the six neighbours); and,
        in the search's facts, each step judged into or out of those hexes and the steps
        out of their neighbours (:meth:`app.rules.zoc.search.SideFacts.handed_on`). The
        markers, weather, phase and start positions are the old state's own (:func:`moved_to`
        changes nothing else), so what depends on them alone is shared; the moved list is
        read afresh, the whole-map zone map dropped."""
        i, unit_id, old_hex, new_hex = move.position, move.unit_id, move.old_hex, move.new_hex
        on_map = board.hexes
        if (old_hex is not None and old_hex not in on_map) or (
            new_hex is not None and new_hex not in on_map
        ):
            return None  # units by hex off the map are not in the zones' table: build afresh
        unit = state.units[i]
        if (
            unit.id != unit_id
            or unit.hex != new_hex
            or unit.side != move.unit.side
            or self.units.get(unit_id) is not move.unit
        ):
            return None
        old_zones = self.zones
        at = old_zones._at.copy()
        occupants = self.occupants.copy()
        if old_hex is not None:
            here = at.get(old_hex, [])
            left = [(j, u) for j, u in here if j != i]
            if len(left) != len(here) - 1:
                return None
            if left:
                at[old_hex] = left
                occupants[old_hex] = [u for _, u in left]
            else:
                del at[old_hex]
                del occupants[old_hex]
        if new_hex is not None:
            here = sorted([*at.get(new_hex, ()), (i, unit)], key=lambda p: p[0])
            at[new_hex] = here
            occupants[new_hex] = [u for _, u in here]
        cells = [h for h in (old_hex, new_hex) if h is not None]
        near = {n for h in cells for n, _ in topo.neighbors.get(h, ())}
        """The hexes whose projections (zones, EZOC, no-ZOC notes) the move can change."""
        zones = Zones.__new__(Zones)
        zones.board = old_zones.board
        zones.topo = old_zones.topo
        zones.beachheads = old_zones.beachheads
        zones.all_beachhead_sides = old_zones.all_beachhead_sides
        zones._at = at
        zones._silence = old_zones._silence.copy()
        zones._silence.pop(unit_id, None)
        zones._into = old_zones._into.copy()
        for h in near:
            zones._into.pop(h, None)
        # the EZOC and no-ZOC notes met by the moved unit's own side hold none of its units
        side = unit.side
        zones._ezoc = {
            k: v for k, v in old_zones._ezoc.copy().items() if k[0] not in near or k[1] == side
        }
        zones._no_zoc = {
            k: v for k, v in old_zones._no_zoc.copy().items() if k[0] not in near or k[1] == side
        }
        zones._via = {p for p in old_zones._via.copy() if p[0] != unit_id and p[1] not in near}
        new = _StateIndex.__new__(_StateIndex)
        new.board = self.board
        new.units = self.units.copy()
        new.units[unit_id] = unit
        new.occupants = occupants
        new.zones = zones
        new.beachhead_sides = self.beachhead_sides
        new.moved = frozenset(state.moved)
        new.markers_at = self.markers_at
        new.zone_map = None
        new.search = {}
        for facts_side, facts in self.search.copy().items():
            handed = getattr(facts, "handed_on", None)
            if handed is not None:
                new.search[facts_side] = handed(cells, near, unit_id, side)
        return new


@dataclass(frozen=True)
class _Moved:
    """What :func:`moved_to` changed in a state whose index existed: the index of the state
    before, and the one unit (its place in the unit list, its old object, both hexes)."""

    old: _StateIndex
    position: int
    unit_id: str
    unit: Unit
    old_hex: str | None
    new_hex: str | None


_INDEX_OF: ByIdentity[_StateIndex] = ByIdentity(maxsize=128)
_HANDED_ON: ByIdentity[_Moved] = ByIdentity(maxsize=128)
"""New state (made by :func:`moved_to`) -> the move, until the new state's index is made."""


def _index(board: Board, topo: Topology, state: State) -> _StateIndex:
    found = _INDEX_OF.get(state, lambda s: _new_index(board, topo, s))
    if found.board() is not board:  # the same state judged on another board
        found = _StateIndex(board, topo, state)
    return found


def _new_index(board: Board, topo: Topology, state: State) -> _StateIndex:
    """The index of a state not indexed yet: handed on from the state it was moved from
    (:func:`moved_to`) when that one's index is there for this board, else built."""
    move = _HANDED_ON.pop(state)
    if move is not None and move.old.board() is board:
        found = move.old.handed_on(board, topo, state, move)
        if found is not None:
            return found
    return _StateIndex(board, topo, state)


# -- the per-ruling context -----------------------------------------------------------------


@dataclass(frozen=True)
class Negator:
    """Something that negates EZOC in a hex (8.1): a friendly unit or an Airdrop marker."""

    kind: str  # "unit" | "airdrop"
    id: str
    moved_this_phase: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id}


class Context:
    """Board, state and options of one adjudication, plus what the ruling cites and relies on."""

    def __init__(self, board: Board, state: State, options: ZocOptions) -> None:
        self.board = board
        self.state = state
        self.options = options
        self.topo = topology(board)
        self._costs = _COSTS_OF(board)
        index = _index(board, self.topo, state)
        self.units = index.units
        self.occupants = index.occupants
        self.zones = index.zones
        self.beachheads = self.zones.beachheads
        self._beachhead_sides = index.beachhead_sides
        self._moved = index.moved
        self._index = index
        self._markers_at = index.markers_at
        self.search_memo = index.search
        """Per side, what the ``reachable`` search of this state keeps between queries."""
        self._no_zoc: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.judgement: Judgement = _Judgement(CATALOG, INTERPRETATION_BY_ID, options)
        """The ruling's bookkeeping (app.rules.judgement): what it cites and relies on."""

    def zone_map(self) -> ZoneMap:
        """Every projection of the state at once (the ``ezoc-map`` query), kept per state."""
        found = self._index.zone_map
        if found is None:
            found = self._index.zone_map = compute_zones(
                self.board, self.topo, self.state.units, self.state.markers
            )
        return found

    # -- bookkeeping (the judgement kit) -------------------------------------------------

    def cite(self, *section_ids: str) -> tuple[Citation, ...]:
        """Record sections (plus their listed parents) as cited; return their citations."""
        return self.judgement.cite(*section_ids)

    def citations(self) -> tuple[Citation, ...]:
        return self.judgement.citations()

    def checkpoint(self) -> Mark:
        """What is cited and relied on so far (to judge a layer tentatively)."""
        return self.judgement.checkpoint()

    def restore(self, mark: Mark) -> None:
        """Forget what was cited or relied on since :meth:`checkpoint`."""
        self.judgement.restore(mark)

    def cited_ids(self) -> list[str]:
        return self.judgement.cited_ids()

    def rely(self, interpretation_id: str) -> None:
        """Record that the ruling depends on an interpretation."""
        self.judgement.rely(interpretation_id)

    def interpretations(self) -> tuple[InterpretationRef, ...]:
        return self.judgement.interpretations()

    # -- map facts ----------------------------------------------------------------------

    def on_map(self, hex_id: str) -> bool:
        return hex_id in self.board.hexes

    def weather(self, hex_id: str) -> str:
        zone = self.board.hexes[hex_id].weather_zone
        if zone is None:
            return "clear"
        return self.state.weather.get(zone, "clear")

    def ezoc(self, hex_id: str, side: str) -> list[Unit]:
        return self.zones.ezoc(hex_id, side)

    def no_zoc_notes(self, hex_id: str, side: str) -> list[dict[str, Any]]:
        """Enemy projections into ``hex_id`` that section 8 blocks, and adjacent enemy units
        that project nothing; each with its clause (cited)."""
        key = (hex_id, side)
        found = self._no_zoc.get(key)
        if found is not None:  # its sections were cited when it was first asked for
            return list(found)
        notes: list[dict[str, Any]] = []
        for unit, reason, section in self.zones.no_zoc(hex_id, side):
            self.cite(section)
            notes.append({"unit": unit, "reason": reason, "section": section})
        self._no_zoc[key] = notes
        return list(notes)

    def forget_no_zoc(self, hex_id: str, side: str) -> None:
        """Forget that the no-ZOC notes of ``hex_id`` were asked for (the next call cites
        their sections again; the citations already recorded stay)."""
        self._no_zoc.pop((hex_id, side), None)

    def enemy_ground_units(self, hex_id: str, side: str) -> list[Unit]:
        here = self.occupants.get(hex_id)
        if here is None:
            return []
        return [u for u in here if u.side != side and u.ground]

    def entry_cost(self, src: str, dst: str) -> tuple[int | None, str]:
        """Movement points to enter ``dst`` from ``src``; None (and why) if impassable."""
        found = self._costs.entry(src, dst)
        if found.across_all_sea and self._beachhead_sides:
            found = self._costs._entry(src, dst, self._beachhead_sides)
        return found.cost, found.why

    def passable(self, src: str, dst: str) -> tuple[bool, str]:
        cost, why = self.entry_cost(src, dst)
        return cost is not None, why

    def negators(
        self, hex_id: str, side: str, exclude: str | None, *, for_supply_or_retreat: bool = False
    ) -> list[Negator]:
        """What negates EZOC in ``hex_id`` for ``side`` (8.1), apart from unit ``exclude``."""
        out: list[Negator] = []
        moved = self._moved
        for unit in self.occupants.get(hex_id, ()):
            if unit.side != side or unit.id == exclude:
                continue
            if not unit.ground:
                self.rely("zoc.ground-units-negate")
                if not self.options.non_ground_negates:
                    continue
            out.append(Negator("unit", unit.id, unit.id in moved))
        for marker in self._markers_at.get(hex_id, ()):
            if marker.kind != "airdrop" or marker.side != side:
                continue
            if for_supply_or_retreat and not any(n.kind == "unit" for n in out):
                self.rely("zoc.airdrop-supply-retreat")
                if not self.options.airdrop_negates_supply_retreat:
                    continue
            out.append(Negator("airdrop", marker.id))
        return out

    def ignored_markers(self, hex_id: str) -> list[str]:
        """Markers in the hex that never negate EZOC (8.1 clarification)."""
        return [m.id for m in self._markers_at.get(hex_id, ()) if m.kind in NON_NEGATING_MARKERS]

    def negation_cites(self, negators: list[Negator]) -> list[str]:
        sections = ["8.1.negation"]
        if any(n.moved_this_phase for n in negators):
            sections += ["8.1.duration", "8.1.example"]
        return sections


# -- rulings from the context (the judgement kit finishes them) ----------------------------


def effect(ctx: Context, kind: str, message: str, sections: Sequence[str], **where: Any) -> Effect:
    """A cited effect (``where``: unit, hex, step, by, details), not yet part of the ruling
    (:func:`legal` and :func:`illegal` take the effects that are)."""
    return ctx.judgement.effect(kind, message, sections, record=False, **where)


def illegal(
    ctx: Context,
    p: Problem | Sequence[Problem],
    effects: Sequence[Effect] = (),
    details: dict[str, Any] | None = None,
) -> Ruling:
    """A refusal listing every problem (policy: every rule that forbids the action)."""
    problems = [p] if isinstance(p, Problem) else list(p)
    j = ctx.judgement
    for q in problems:
        j.reject_problem(q)
    j.effects.extend(effects)
    return j.finish("", details, refused_summary=" ".join(q.message for q in problems))


def legal(ctx: Context, summary: str, effects: Sequence[Effect], details: dict[str, Any]) -> Ruling:
    """The legal ruling with these effects and details."""
    ctx.judgement.effects.extend(effects)
    return ctx.judgement.finish(summary, details)


class _Judgement(Judgement):
    """The judgement kit citing each section with its listed parents (a clause of 8.2 cites
    8.2 and 8 too), as section 8's rulings always have."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._groups: set[tuple[str, ...]] = set()
        """Groups of sections recorded since the last :meth:`restore` (a search cites the same
        few groups at thousands of steps: recording one again changes nothing)."""

    def cite(self, *section_ids: str) -> tuple[Citation, ...]:
        recorded, citations = _cites(section_ids)
        if section_ids not in self._groups:
            self.cite_all(recorded)
            self._groups.add(section_ids)
        return citations

    def restore(self, mark: Mark) -> None:
        super().restore(mark)
        self._groups.clear()


def _parents(section_id: str) -> list[str]:
    parts = section_id.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


_CITES: dict[tuple[str, ...], tuple[tuple[Citation, ...], tuple[Citation, ...]]] = {}


def _cites(section_ids: tuple[str, ...]) -> tuple[tuple[Citation, ...], tuple[Citation, ...]]:
    """For a group of sections, once: the citations to record (each listed parent before its
    section) and those of the sections themselves (the catalog is constant, so this is
    computed once per group of sections, not once per searched step)."""
    found = _CITES.get(section_ids)
    if found is None:
        recorded: list[str] = []
        for sid in section_ids:
            recorded += [p for p in _parents(sid) if p in CATALOG]
            recorded.append(sid)
        found = (
            tuple(CATALOG.cite(sid) for sid in recorded),
            tuple(CATALOG.cite(sid) for sid in section_ids),
        )
        if len(_CITES) < 4096:
            _CITES[section_ids] = found
    return found


def moved_to(state: State, unit_id: str, hex_id: str | None, *, moved: bool = False) -> State:
    """A new state with unit ``unit_id`` in ``hex_id`` (and, with ``moved``, on the moved
    list); KeyError if there is no such unit. Everything else -- the other units, markers,
    weather -- is shared with ``state``, not copied: a state is never changed once made (an
    apply that edits in place works on a deep copy of its own), so sharing is safe and a
    move costs one unit, not the whole game."""
    units = list(state.units)
    for i, unit in enumerate(units):
        if unit.id == unit_id:
            units[i] = unit.model_copy(update={"hex": hex_id})
            break
    else:
        raise KeyError(unit_id)
    update: dict[str, object] = {"units": units}
    if moved and unit_id not in state.moved:
        update["moved"] = [*state.moved, unit_id]
    new = state.model_copy(update=update)
    old = _INDEX_OF.peek(state)
    if old is not None:  # the new state's index will be derived from this one when asked for
        _HANDED_ON.put(new, _Moved(old, i, unit_id, unit, unit.hex, hex_id))
    return new


def unit_ids(units: Iterable[Unit]) -> list[str]:
    return [u.id for u in units]
