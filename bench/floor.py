"""The floors the rules core is measured against, written here without any project code.

* :func:`floor_reachable`: a minimal bounded Dijkstra in plain Python -- integer hexes,
  precomputed adjacency with entry costs, and the ZOC stop (a hex next to an enemy unit ends
  the move there; enemy-occupied hexes cannot be entered). Nothing else: no negation, weather,
  hexside rules, citations or reasons.
* :func:`zoi_zone`: the hexes in front of a set of La Bataille units (the hexes across their
  front hexsides, from their facing and formation), for :func:`floor_reachable` with rule 14's
  stop: a hex in an enemy zone ends the move there (``stop_in``), instead of a hex next to any
  enemy.
* :func:`rustworkx_reachable`: the same graph in a compiled graph library (rustworkx), the
  ZOC stop encoded as missing out-edges, restricted to the hexes within the movement
  allowance (a bounded search, like the others).

Graphs are built from the scenario *dict* (hex ids parsed here, flat-topped odd-q layout), so
no code of the project is shared with what is measured.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

FLAT_ODD_NEIGHBOURS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))  # axial


@dataclass
class Grid:
    """A map as integers: ids, axial coordinates, adjacency ``(neighbour, entry cost)``."""

    ids: list[str]
    index: dict[str, int]
    axial: list[tuple[int, int]]
    adj: list[tuple[tuple[int, int], ...]]


def build_grid(scenario: dict[str, Any], terrain_costs: dict[str, int | None]) -> Grid:
    """Adjacency and entry costs of a ``zoc`` bench scenario (one rectangular area)."""
    d = scenario["layout"]["col_digits"]
    area = scenario["areas"][0]
    (c0, c1), (r0, r1) = area["cols"], area["rows"]
    ids: list[str] = []
    axial: list[tuple[int, int]] = []
    by_axial: dict[tuple[int, int], int] = {}
    cost: list[int | None] = []
    for col in range(c0, c1 + 1):
        for row in range(r0, r1 + 1):
            hid = f"{col:0{d}d}{row:0{d}d}"
            q, r = col, row - (col - (col & 1)) // 2
            by_axial[(q, r)] = len(ids)
            ids.append(hid)
            axial.append((q, r))
            terrain = scenario["hexes"].get(hid, {}).get("terrain", area["terrain"])
            cost.append(terrain_costs[terrain])
    extra: dict[tuple[int, int], int] = {}
    index = {h: i for i, h in enumerate(ids)}
    for key in scenario.get("hexsides", {}):
        a, b = (index[x] for x in key.split("/"))
        extra[(a, b)] = extra[(b, a)] = 1  # rivers only in the bench scenarios
    adj: list[tuple[tuple[int, int], ...]] = []
    for i, (q, r) in enumerate(axial):
        out = []
        for dq, dr in FLAT_ODD_NEIGHBOURS:
            j = by_axial.get((q + dq, r + dr))
            if j is not None and cost[j] is not None:
                out.append((j, int(cost[j] or 0) + extra.get((i, j), 0)))
        adj.append(tuple(out))
    return Grid(ids, index, axial, adj)


def floor_reachable(
    grid: Grid, start: int, ma: int, enemy: set[int], stop_in: set[int] | None = None
) -> dict[int, int]:
    """Cheapest cost of every hex the mover can end in (bounded Dijkstra, ZOC stop: a hex
    next to an enemy ends the move, or with ``stop_in`` a hex of that set)."""
    adj = grid.adj
    zoc: dict[int, bool] = {}
    best = {start: 0}
    heap = [(0, start)]
    while heap:
        c, h = heapq.heappop(heap)
        if c > best[h]:
            continue
        if h != start:
            z = zoc.get(h)
            if z is None:
                if stop_in is None:
                    z = zoc[h] = any(n in enemy for n, _ in adj[h])
                else:
                    z = zoc[h] = h in stop_in
            if z:
                continue  # the ZOC stop: the move ends here
        for n, step in adj[h]:
            nc = c + step
            if nc <= ma and n not in enemy and nc < best.get(n, ma + 1):
                best[n] = nc
                heapq.heappush(heap, (nc, n))
    return best


FRONTS = {"line": ("vertex", 2), "column": ("hexside", 3), "skirmish": ("vertex", 4)}
"""La Bataille's usual facing table for infantry (what a facing number denotes, front size)."""


def zoi_zone(
    grid: Grid, units: list[dict[str, Any]], by_axial: dict[tuple[int, int], int] | None = None
) -> set[int]:
    """Hexes across the front hexsides of ``units`` (scenario dicts with ``hex``, ``facing``,
    ``formation``). Directions 0-5 clockwise from north; a vertex facing ``f`` lies between
    hexsides ``f`` and ``f + 1``. ``by_axial``: the grid's hexes by axial coordinates, when
    made once for the board."""
    if by_axial is None:
        by_axial = {a: i for i, a in enumerate(grid.axial)}
    out: set[int] = set()
    for u in units:
        faces, front = FRONTS[u["formation"]]
        f = u["facing"]
        if faces == "hexside":
            dirs = [(f + k) % 6 for k in range(-(front // 2), front // 2 + 1)]
        else:
            dirs = [(f + k) % 6 for k in range(-(front // 2 - 1), front // 2 + 1)]
        q, r = grid.axial[grid.index[u["hex"]]]
        for d in dirs:
            dq, dr = FLAT_ODD_NEIGHBOURS[d]
            j = by_axial.get((q + dq, r + dr))
            if j is not None:
                out.add(j)
    return out


def from_text(
    grid: Grid,
    text: str,
    unit: str,
    ma_key: str,
    is_enemy: Callable[[dict[str, Any]], bool],
    by_axial: dict[tuple[int, int], int] | None = None,
    *,
    chain: Iterable[dict[str, Any]] = (),
) -> dict[int, int]:
    """:func:`floor_reachable` for ``unit`` of a state known only as its stored JSON text (a
    cache miss): the text decoded, the changes of ``chain`` applied to it (stored deltas:
    ``set`` entries, ``items`` of lists by index, ``keys`` of objects), the unit and the
    enemy hexes found in it and, given ``by_axial`` (``zoi``), the enemies' zone -- then the
    same search."""
    doc = json.loads(text)
    for delta in chain:
        for name, value in delta.get("set", {}).items():
            doc[name] = value
        for name, changes in delta.get("items", {}).items():
            for index, value in changes:
                doc[name][index] = value
        for name, change in delta.get("keys", {}).items():
            for key in change.get("del", ()):
                doc[name].pop(key, None)
            doc[name].update(change.get("put", {}))
    enemies = [u for u in doc["units"] if is_enemy(u)]
    me = next(u for u in doc["units"] if u["id"] == unit)
    start, ma = grid.index[me["hex"]], me[ma_key]
    enemy = {grid.index[u["hex"]] for u in enemies}
    zone = None
    if by_axial is not None:  # only the enemies whose front can touch a hex within reach
        q0, r0 = grid.axial[start]
        axial, index = grid.axial, grid.index
        near = []
        for u in enemies:
            q, r = axial[index[u["hex"]]]
            if abs(q - q0) + abs(r - r0) + abs(q - q0 + r - r0) <= 2 * (ma + 1):
                near.append(u)
        zone = zoi_zone(grid, near, by_axial)
    return floor_reachable(grid, start, ma, enemy, zone)


def within(grid: Grid, start: int, radius: int) -> list[int]:
    q0, r0 = grid.axial[start]
    return [
        i
        for i, (q, r) in enumerate(grid.axial)
        if (abs(q - q0) + abs(r - r0) + abs(q - q0 + r - r0)) // 2 <= radius
    ]


def rustworkx_graph(grid: Grid, start: int, ma: int, enemy: set[int]) -> tuple[Any, int]:
    """The bounded ZOC graph as a rustworkx digraph (built outside the timing)."""
    import rustworkx as rx

    nodes = within(grid, start, ma)
    local = {h: i for i, h in enumerate(nodes)}
    g = rx.PyDiGraph()
    g.add_nodes_from(nodes)
    edges = []
    for h in nodes:
        stops = h != start and any(n in enemy for n, _ in grid.adj[h])
        if stops:
            continue
        for n, step in grid.adj[h]:
            if n in local and n not in enemy:
                edges.append((local[h], local[n], float(step)))
    g.add_edges_from(edges)
    return g, local[start]


def rustworkx_reachable(graph: Any, source: int, ma: int) -> int:
    import rustworkx as rx

    lengths = rx.digraph_dijkstra_shortest_path_lengths(graph, source, float)
    return sum(1 for v in lengths.values() if v <= ma)
