"""Section 8 and 8.1: who projects a ZOC where, and which zones are enemy.

:class:`Zones` answers "which units project a ZOC into this hex" lazily, hex by hex, from the
units in the six neighbouring hexes, so a ruling or a search pays for the hexes it looks at,
not for every unit of the game; :func:`compute_zones` gives the whole map at once (the
``ezoc-map`` query). A :class:`Zones` belongs to one state (kept in its index,
:mod:`app.rules.zoc.index`); :meth:`Zones.handed_on` says what a unit's move invalidates.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from app.rules.geometry import Hexside
from app.rules.layers import layered
from app.rules.memo import ByIdentity
from app.rules.zoc.models import ALL_SEA_TERRAIN, Board, Marker, Unit
from app.rules.zoc.topology import Topology


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
        """``at``: the hexes -> (position in the unit list, unit), if already made (the
        state's index's table, :attr:`app.rules.zoc.index.StateIndex.occupants`, holds the
        hexes off the map too: nothing here looks one up -- a hex's neighbours are hexes of
        the map, and a hex off the map has none)."""
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
        self.occupied = at.keys() if type(at) is dict else None
        """The hexes holding units, when ``at`` is a plain table (one handed on is
        layered: its keys are not all of them): whether a hex has a unit next to it is then
        one test in C (most hexes have none, and nothing projects into them; the search asks
        it itself, ``app.rules.zoc.search.SideFacts``)."""
        self._blocks = _BLOCKS_OF(board) if not self.beachheads else None
        """Per board (no Beachhead marker in this state): each hex's projection clauses."""
        self._silence: dict[str, Silent | None] = {}
        self._into: dict[str, tuple[list[Unit], list[Blocked]]] = {}
        self._ezoc: dict[str, dict[str, list[Unit]]] = {}
        """Side -> hex -> the units exerting an EZOC there for that side (one table per side,
        so that a move hands each side's on whole or less the hexes it changed)."""
        self._no_zoc: dict[str, dict[str, tuple[tuple[str, str, str], ...]]] = {}
        """Side -> hex -> its no-ZOC notes for that side (:meth:`no_zoc`)."""
        self._via: set[tuple[str, str]] = set()

    def silence(self, unit: Unit) -> Silent | None:
        if unit.id not in self._silence:
            self._silence[unit.id] = _silence(self.board, unit)
        return self._silence[unit.id]

    def _projections(self, target: str) -> tuple[list[Unit], list[Blocked]]:
        found = self._into.get(target)
        if found is not None:
            return found
        occupied = self.occupied
        if occupied is not None and occupied.isdisjoint(self.topo.near(target)):
            found = self._into[target] = ([], [])  # no unit next to it: nothing projects
            return found
        at = self._at
        blocks = self._blocks
        if blocks is not None:
            return self._projections_by_board(target, at, blocks)
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

    def _projections_by_board(
        self,
        target: str,
        at: dict[str, list[tuple[int, Unit]]],
        blocks: dict[str, tuple[tuple[str, str, str | None, str], ...]],
    ) -> tuple[list[Unit], list[Blocked]]:
        """:meth:`_projections` in a state without Beachhead markers, where the clause that
        stops a projection across a hexside depends on the board alone (found once per
        board and hex, :data:`_BLOCKS_OF`); no projection crosses a Beachhead Hexside."""
        row = blocks.get(target)
        if row is None:
            board = self.board
            row = blocks[target] = tuple(
                (source, side_id, *_projection_block(board, source, target, side_id, {}, set()))
                for source, side_id in self.topo.neighbors.get(target, ())
            )
        into: list[tuple[int, Unit]] = []
        blocked: list[tuple[int, Blocked]] = []
        for source, _side_id, section, reason in row:
            here = at.get(source)
            if here is None:
                continue
            for i, unit in here:
                if self.silence(unit) is not None:
                    continue
                if section is not None:
                    stop = Blocked(unit.id, unit.side, source, target, section, reason)
                    blocked.append((i, stop))
                    continue
                into.append((i, unit))
        if len(into) > 1:
            into.sort(key=lambda p: p[0])
        if len(blocked) > 1:
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
        table = self._no_zoc.get(side)
        if table is None:
            table = self._no_zoc.setdefault(side, {})
        found = table.get(hex_id)
        if found is None:
            occupied = self.occupied
            if occupied is not None and occupied.isdisjoint(self.topo.near(hex_id)):
                found = table[hex_id] = ()  # no unit next to it: no projection, no silent unit
                return found
            notes = [
                (b.unit, b.reason, b.section) for b in self.blocked_into(hex_id) if b.side != side
            ]
            at = self._at
            for nbr, _side in self.topo.neighbors.get(hex_id, ()):
                if nbr in at:
                    notes += [
                        (s.unit, s.reason, s.section) for s in self.silent_at(nbr) if s.side != side
                    ]
            found = table[hex_id] = tuple(notes)
        return found

    def ezoc(self, hex_id: str, side: str) -> list[Unit]:
        """Units exerting an EZOC in ``hex_id`` for units of ``side`` (8.1: all other sides)."""
        table = self._ezoc.get(side)
        if table is None:
            table = self._ezoc.setdefault(side, {})
        found = table.get(hex_id)
        if found is None:
            found = table[hex_id] = [u for u in self.into(hex_id) if u.side != side]
        return found

    def handed_on(
        self,
        at: dict[str, list[tuple[int, Unit]]],
        unit_id: str,
        side: str,
        near: frozenset[str],
    ) -> Zones:
        """These zones for the state after unit ``unit_id`` of ``side`` moved (``at``: that
        state's on-map hexes -> (position in the unit list, unit)); ``near``: the hexes next to
        its old or new hex. What each table keeps, and what the move invalidates:

        * the board, topology and beachheads: shared (a move changes no marker);
        * ``_silence`` (per unit): the moved unit's dropped (its object changed);
        * ``_into`` (projections into a hex): every hex of ``near`` dropped -- a hex's
          projections come from the units in its six neighbours;
        * ``_ezoc`` and ``_no_zoc`` (per side and hex): the hexes of ``near`` dropped for
          every side but the moved unit's; the moved unit's side's tables are shared by both
          states (what either finds holds in both) -- a side's EZOC and notes name only other
          sides' units (8.1), which are the same objects in the same places;
        * ``_via`` (projections across a Beachhead Hexside): the moved unit's, and any into
          ``near``, dropped."""
        new = Zones.__new__(Zones)
        new.__dict__.update(self.__dict__)  # what is shared; the tables below replaced
        new._at = at
        new.occupied = at.keys() if type(at) is dict else None
        new._silence = layered(self._silence, frozenset((unit_id,)))
        new._into = layered(self._into, near)
        new._ezoc = {
            s: table if s == side else layered(table, near)
            for s, table in self._ezoc.copy().items()
        }
        new._no_zoc = {
            s: table if s == side else layered(table, near)
            for s, table in self._no_zoc.copy().items()
        }
        via = self._via
        if via:
            new._via = {p for p in via.copy() if p[0] != unit_id and p[1] not in near}
        else:
            new._via = set()
        return new

    def positions_table(self) -> dict[str, list[tuple[int, Unit]]]:
        """The hexes -> (position in the unit list, unit) these zones were found from
        (the table itself: to be read, not changed)."""
        return self._at

    def positions(self) -> dict[str, list[tuple[int, Unit]]]:
        """The hexes -> (position in the unit list, unit) these zones were found from
        (a copy: :meth:`handed_on` takes the next state's)."""
        return self._at.copy()


_BLOCKS_OF: ByIdentity[dict[str, tuple[tuple[str, str, str | None, str], ...]]] = ByIdentity(
    lambda _board: {}
)
"""Board -> hex -> ``(neighbour, hexside, clause or None, reason)`` of the projection from
each neighbour into the hex, in direction order, for states without Beachhead markers
(filled in as hexes are asked for)."""


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
