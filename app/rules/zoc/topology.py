"""The board's own facts for section 8 and movement: adjacency and entry costs.

Both are kept per board object (:mod:`app.rules.memo`, by identity) and never dropped while
the board lives: a board never changes once made, so nothing a game does invalidates them.
What depends on a state lives elsewhere (:mod:`app.rules.zoc.index`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from app.rules.geometry import Hexside
from app.rules.geometry.hexgrid import AXIAL_DIRECTIONS
from app.rules.geometry.layout_spec import LayoutSpec
from app.rules.memo import ByIdentity
from app.rules.zoc.models import Board


@dataclass(frozen=True)
class Topology:
    """Adjacency of the map hexes: hex -> ((neighbour, hexside id), ...) in direction order."""

    neighbors: dict[str, tuple[tuple[str, str], ...]]
    _near: dict[str, frozenset[str]] = field(default_factory=dict, compare=False, repr=False)

    def near(self, hex_id: str) -> frozenset[str]:
        """The hexes next to ``hex_id`` (none off the map), made once per hex."""
        found = self._near.get(hex_id)
        if found is None:
            found = self._near[hex_id] = frozenset(n for n, _ in self.neighbors.get(hex_id, ()))
        return found

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


class BoardCosts:
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
            found = self.costs[key] = self.entry_across(src, dst, beachhead_sides=frozenset())
        return found

    def entry_across(self, src: str, dst: str, beachhead_sides: frozenset[str]) -> EntryCost:
        """The entry cost with the All-Sea hexsides of ``beachhead_sides`` lifted (a state's
        Beachhead Hexsides: not kept, a board's costs do not depend on a state)."""
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


_COSTS_OF = ByIdentity(BoardCosts)


def board_costs(board: Board) -> BoardCosts:
    """The board's entry costs, filled in as hexes are entered (cached per board)."""
    return _COSTS_OF(board)
