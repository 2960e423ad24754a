"""Rules-core benchmarks, in process: each a ratio to a floor measured in the same run.

* ``zoc reachable`` and ``zoc ezoc-map`` on 10^2, 50^2, 100^2 and 200^2 maps (enemies 5% of
  the hexes, movement allowance 4-40) against :func:`bench.floor.floor_reachable` (plain
  Python, integer hexes, the ZOC stop, nothing else) and rustworkx's compiled Dijkstra on the
  same bounded graph;
* ``zoi reachable`` against the same plain floor on its map;
* both again as a front end asks them, 20 units in turn: hovering, the first ask after a
  move, a parsed state (``bench/hover.py``);
* an ``objective-zones`` and a ``terrain`` ruling against hand-written code building the same
  ruling as plain dicts (``bench/ruling_floors.py``: dict look-ups; shapely intersections).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.rules import registry
from bench.floor import (
    build_grid,
    floor_reachable,
    rustworkx_graph,
    rustworkx_reachable,
    zoi_zone,
)
from bench.report import Row, ms
from bench.ruling_floors import Texts, oz_declare_floor, terrain_move_floor
from bench.scenarios import zoc_scenario, zoi_scenario

ROOT = Path(__file__).resolve().parents[1]
SECTION = (
    "Rules core, in process (CPU time; median of repeated batches; spread = min-max of batches)"
)


def measure(
    fn: Callable[[], Any], budget: float = 0.6, repeat: int = 7
) -> tuple[float, float, float]:
    """Median, min and max CPU seconds per call over ``repeat`` batches sized to ``budget``.

    CPU time of this process, not wall time: on a shared machine another process's work
    would otherwise land in whichever side of a ratio it happened to overlap. Both sides of
    every ratio are measured the same way, in the same run."""
    fn()
    t0 = time.process_time()
    fn()
    one = max(time.process_time() - t0, 1e-6)
    number = max(1, int(budget / repeat / one))
    samples = []
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(number):
            fn()
        samples.append((time.process_time() - t0) / number)
    return statistics.median(samples), min(samples), max(samples)


def _fmt(m: tuple[float, float, float]) -> str:
    return f"{ms(m[0])} ({ms(m[1])}-{ms(m[2])})"


def _row(
    name: str,
    value: tuple[float, float, float],
    base: tuple[float, float, float],
    base_name: str,
    target: float | None,
    note: str = "",
) -> Row:
    ratio = value[0] / base[0]
    return Row(
        SECTION,
        name,
        _fmt(value),
        f"{base_name} {_fmt(base)}",
        f"{ratio:.1f}x",
        f"<={target:g}x" if target else "",
        (ratio <= target) if target else None,
        note,
    )


SIZES = ((10, 4), (50, 12), (100, 20), (200, 40))


def zoc_rows() -> list[Row]:
    from app import native
    from app.rules.zoc.models import DEFAULT_TERRAIN_COSTS

    zoc_search: Any = native.selected("app.rules.zoc.search")  # the build in use

    zoc = registry.get("zoc")
    opts = zoc.parse_options({})
    q, em = zoc.queries()["reachable"], zoc.queries()["ezoc-map"]
    rows = []
    for size, ma in SIZES:
        enemies = max(5, size * size // 20)
        sc = zoc_scenario(size, enemies, ma=ma, river_every=7)
        board, state = zoc.setup(zoc.parse_scenario(sc), opts)
        params = q.params(unit="mover")
        grid = build_grid(sc, DEFAULT_TERRAIN_COSTS)
        enemy_hexes = [u["hex"] for u in sc["units"] if u["side"] == "soviet"]
        start = grid.index[sc["units"][0]["hex"]]

        def floor() -> dict[int, int]:
            return floor_reachable(grid, start, ma, {grid.index[h] for h in enemy_hexes})

        result = q.run(board, state, opts, params)
        assert len(result["reachable"]) == len(floor()) - 1, "core and floor disagree"
        graph, source = rustworkx_graph(grid, start, ma, {grid.index[h] for h in enemy_hexes})
        f = measure(floor)
        rx = measure(lambda: rustworkx_reachable(graph, source, ma))
        label = f"{size}x{size}, {enemies} enemies, MA {ma}"
        # a fresh state object each call: nothing cached from the previous call
        fresh = measure(lambda: q.run(board, state.model_copy(), opts, params))
        # "same state": the state's zones, steps and 8.2 verdicts kept (as at a game version
        # already queried), the search itself run again: SEARCHES_KEPT = 0 keeps no whole
        # search; "repeated": the same unit asked again, its kept search's answer copied
        kept_searches = zoc_search.SEARCHES_KEPT
        zoc_search.SEARCHES_KEPT = 0
        try:  # a state of its own: no search was ever kept on it
            searched = state.model_copy()
            q.run(board, searched, opts, params)
            warm = measure(lambda: q.run(board, searched, opts, params))
        finally:
            zoc_search.SEARCHES_KEPT = kept_searches
        q.run(board, state, opts, params)
        repeated = measure(lambda: q.run(board, state, opts, params))
        note = (
            f"{len(result['reachable'])} hexes reached, {len(result['unreachable'])} why-nots "
            "(frontier)"
        )
        rows.append(_row(f"zoc reachable {label} (new state)", fresh, f, "floor", 3, note))
        rows.append(_row(f"zoc reachable {label} (same state)", warm, f, "floor", 3))
        rows.append(
            _row(
                f"zoc reachable {label} (same unit again)",
                repeated,
                f,
                "floor",
                None,
                "the kept search's answer copied: what a front end's repeated ask costs",
            )
        )
        rows.append(_after_move_row(zoc, board, state, opts, sc, f"zoc reachable {label}", f))
        rows.append(_row(f"zoc reachable {label} vs rustworkx", warm, rx, "rustworkx", None))
        ezoc = measure(lambda: em.run(board, state, opts, em.params(side="axis")))
        rows.append(
            _row(
                f"zoc ezoc-map {label}",
                ezoc,
                f,
                "floor",
                None,
                "the whole map: grows with the units, by nature",
            )
        )
        near = sc["units"][0]["hex"]
        area = em.params(side="axis", near=near, within=ma)
        part = measure(lambda: em.run(board, state.model_copy(), opts, area))
        rows.append(
            _row(
                f"zoc ezoc-map {label}, within {ma} of the mover (new state)",
                part,
                f,
                "floor",
                None,
                f"{len(em.run(board, state, opts, area)['hexes'])} EZOC hexes in the area",
            )
        )
    return rows


def _nearest_friend(sc: dict[str, Any], digits: int) -> dict[str, Any]:
    """The mover's side's unit (not the mover) nearest the mover, by offset coordinates."""
    units = sc["units"]
    mover = units[0]

    def coords(hex_id: str) -> tuple[int, int]:
        return int(hex_id[:digits]), int(hex_id[digits:])

    mc, mr = coords(mover["hex"])
    friends = [u for u in units[1:] if u["side"] == mover["side"]]
    return min(
        friends, key=lambda u: max(abs(coords(u["hex"])[0] - mc), abs(coords(u["hex"])[1] - mr))
    )


def _after_move_row(
    rs: Any,
    board: Any,
    state: Any,
    opts: Any,
    sc: dict[str, Any],
    name: str,
    floor: tuple[float, float, float],
    move: Callable[[str, str, str], dict[str, Any]] | None = None,
) -> Row:
    """The first query at the game version after a one-hex move of the mover's nearest
    friend: the warm state ``state`` (queried before), ``apply`` of that legal move, then
    ``reachable`` of the mover on the new state object. Each timed call applies again (a
    fresh new state each call, as the service gets one per write), so the time includes
    ``apply``; the note gives ``apply`` alone."""
    q = rs.queries()["reachable"]
    params = q.params(unit="mover")
    q.run(board, state, opts, params)  # warm: the state's index as a query left it
    digits = len(sc["units"][0]["hex"]) // 2
    friend = _nearest_friend(sc, digits)
    options = q.run(board, state, opts, q.params(unit=friend["id"]))
    if "reachable" in options:  # zoc: hex -> its path (the start hex included)
        steps = sorted(h for h, r in options["reachable"].items() if len(r["path"]) == 1)
    else:  # zoi: a list of hexes, each with its paths (the start hex not included)
        steps = sorted(
            r["hex"] for r in options["hexes"] if any(len(p["path"]) == 1 for p in r["paths"])
        )
    assert steps, f"{friend['id']} has no one-hex move"
    doc = (move or _move_doc)(friend["id"], friend["hex"], steps[0])
    action = rs.parse_action(doc)
    ruling = rs.adjudicate(board, state, action, opts)
    assert ruling.legal, ruling.summary
    expected = q.run(
        board,
        rs.load_state(rs.apply(board, state, action, ruling).model_dump(mode="json")),
        opts,
        params,
    )

    def first_query() -> Any:
        return q.run(board, rs.apply(board, state, action, ruling), opts, params)

    assert json.dumps(first_query()) == json.dumps(expected), "handed-on index answers differently"
    value = measure(first_query)
    apply_only = measure(lambda: rs.apply(board, state, action, ruling))
    away = max(
        abs(int(friend["hex"][:digits]) - int(sc["units"][0]["hex"][:digits])),
        abs(int(friend["hex"][digits:]) - int(sc["units"][0]["hex"][digits:])),
    )
    return _row(
        f"{name} (first query after a move)",
        value,
        floor,
        "floor",
        3,
        f"apply ({friend['id']} {friend['hex']} -> {steps[0]}, {away} hexes from the mover) "
        f"+ reachable on its new state; apply alone {ms(apply_only[0])}",
    )


def _move_doc(unit: str, start: str, to: str) -> dict[str, Any]:
    return {"kind": "move", "unit": unit, "path": [start, to]}


def zoi_rows() -> list[Row]:
    from app.rules.zoc.models import DEFAULT_TERRAIN_COSTS

    zoi = registry.get("zoi")
    opts = zoi.parse_options({})
    q = zoi.queries()["reachable"]
    rows = []
    for size, enemies, ma in ((40, 80, 8), (100, 500, 8)):
        sc = zoi_scenario(size, enemies, ma=ma)
        board, state = zoi.setup(zoi.parse_scenario(sc), opts)
        grid_sc = zoc_scenario(size, 0)
        grid_sc["hexes"] = {}
        grid = build_grid(grid_sc, DEFAULT_TERRAIN_COSTS)
        foes = [u for u in sc["units"] if u["side"] == "austrian"]
        enemy = {grid.index[u["hex"]] for u in foes}
        zone = zoi_zone(grid, foes)  # rule 14's stop: a hex in an enemy front zone
        start = grid.index[sc["units"][0]["hex"]]

        def floor() -> dict[int, int]:
            return floor_reachable(grid, start, ma, enemy, zone)

        result = q.run(board, state, opts, q.params(unit="mover"))
        assert len(result["hexes"]) == len(floor()) - 1, "core and floor disagree"
        params = q.params(unit="mover")
        label = f"zoi reachable {size}x{size}, {enemies} enemies, MA {ma}"
        f = measure(floor)
        rows += _state_rows(
            label,
            lambda s: q.run(board, s, opts, params),
            state,
            f,
            f"{len(result['hexes'])} hexes reached; floor stops in enemy front zones",
        )
        # the same scenario with one more French column, two hexes from the mover, to move
        sc2 = zoi_scenario(size, enemies, ma=ma, friends=1)
        board2, state2 = zoi.setup(zoi.parse_scenario(sc2), opts)
        rows.append(_after_move_row(zoi, board2, state2, opts, sc2, label, f, _zoi_move_doc))
    return rows


def _zoi_move_doc(unit: str, start: str, to: str) -> dict[str, Any]:
    return {"kind": "move", "unit": unit, "path": [to]}


def _state_rows(
    name: str,
    run: Callable[[Any], Any],
    state: Any,
    floor: tuple[float, float, float],
    note: str,
) -> list[Row]:
    """A query on a fresh state object each call (nothing cached from the previous call: the
    per-state index built anew) and on the same state (as the service at one game version)."""
    fresh = measure(lambda: run(state.model_copy()))
    warm = measure(lambda: run(state))
    return [
        _row(f"{name} (new state)", fresh, floor, "floor", 3, note),
        _row(f"{name} (same state)", warm, floor, "floor", 3),
    ]


def _texts(ruleset_id: str) -> Texts:
    """A ruleset's section titles and readings, as data for a floor (outside the timing)."""
    rs = registry.get(ruleset_id)
    return Texts(
        ruleset_id,
        {s.id: s.title for s in rs.catalog},
        {i.id: i.reading for i in rs.interpretations},
    )


def terrain_row() -> Row:
    from shapely.geometry import LineString, Polygon

    terrain = registry.get("terrain")
    sc = json.loads((ROOT / "scenarios/terrain/example.json").read_text())
    opts = terrain.parse_options({})
    board, state = terrain.setup(terrain.parse_scenario(sc), opts)
    action = terrain.parse_action({"kind": "move", "unit": "fr-skirm", "path": [[150, 200]]})
    features = []
    for f in sc["features"]:
        if "polygon" in f:
            shape = Polygon(f["polygon"])
        else:
            shape = LineString(f["line"]).buffer(f.get("width", 30.0) / 2, cap_style="flat")
        features.append((f, shape, tuple(shape.bounds)))
    unit = next(u for u in sc["units"] if u["id"] == "fr-skirm")
    texts = _texts("terrain")

    def floor() -> dict[str, Any] | None:
        return terrain_move_floor(features, unit, (150.0, 200.0), texts)

    ruling = terrain.adjudicate(board, state, action, opts)
    assert floor() == ruling.model_dump(mode="json"), "terrain ruling and floor disagree"
    value = measure(lambda: terrain.adjudicate(board, state, action, opts))
    return _row(
        "terrain ruling (skirmishers into heavy woods)",
        value,
        measure(floor),
        "shapely floor",
        3,
        "floor: the same ruling as dicts (path length in each feature, caps, halts)",
    )


def objective_zones_row() -> Row:
    oz = registry.get("objective-zones")
    sc = json.loads((ROOT / "scenarios/objective-zones/example.json").read_text())
    opts = oz.parse_options({})
    board, state = oz.setup(oz.parse_scenario(sc), opts)
    action = oz.parse_action({"kind": "declare_assault", "zone": "mill", "units": ["us-1"]})
    zones = {z["id"]: z for z in sc["zones"]}
    units = {u["id"]: u for u in sc["units"]}
    texts = _texts("objective-zones")

    def floor() -> dict[str, Any] | None:
        return oz_declare_floor(sc, zones, units, "mill", ["us-1"], texts)

    ruling = oz.adjudicate(board, state, action, opts)
    assert floor() == ruling.model_dump(mode="json"), "objective-zones ruling and floor disagree"
    value = measure(lambda: oz.adjudicate(board, state, action, opts))
    return _row(
        "objective-zones ruling (declare an assault)",
        value,
        measure(floor),
        "dict floor",
        3,
        "floor: the same ruling as dicts (the look-ups, effects, citations, reading)",
    )


def run_all() -> list[Row]:
    from bench.hover import rows as hover_rows  # 20 units asked in turn (issue 28 item 4)

    return [*zoc_rows(), *zoi_rows(), *hover_rows(), terrain_row(), objective_zones_row()]
