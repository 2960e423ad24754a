"""Rules-core rows as a front end meets them (issue 28 item 4): on the 100x100 map with 500
enemy units, 20 units of the mover's side asked in turn, ``reachable`` of each

* **hovering**: on one state already queried (the game version a front end shows), each unit
  asked in turn -- 20 units, more than the searches a state keeps, so every ask runs the
  search (the state's steps, zones and 8.2 verdicts kept);
* **first ask after a move**: on the state ``apply`` made from that state for a one-hex move
  of another unit of the side (the index handed on; ``apply`` included);
* **parsed state**: on a state parsed from its stored JSON (a cache miss: the parse, the
  index and the search; nothing kept).

Each against the plain-Python floor (:func:`bench.floor.floor_reachable`) of the same 20
units, measured in the same run; the rows' times are per ask (the 20 asks' sum / 20).
``python -m bench.hover`` prints the rows (``--rounds N`` alternates N measurements and gives
the medians).

The rows are measured with the garbage collector tuned as in a server process
(:func:`app.runtime.tune_gc`, which ``referee serve`` turns on: what start-up and the scenario
built frozen, a higher first threshold), the floor too, and the settings restored afterwards.
A parsed 526-unit state is thousands of objects that the default thresholds promote towards
the old generation, where they bring on full collections over everything the process holds;
the parsed-state row is therefore given once more with CPython's default settings (no target:
not how a server runs).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from app.rules import registry
from app.runtime import THRESHOLDS
from bench.core import _move_doc, _row, _zoi_move_doc, measure
from bench.floor import build_grid, floor_reachable, zoi_zone
from bench.report import Row
from bench.scenarios import zoc_scenario, zoi_scenario

ASKED = 20


def _cases(
    rs: Any,
    sc: dict[str, Any],
    side: str,
    move_doc: Callable[[str, str, str], dict[str, Any]],
) -> tuple[Callable[[], Any], Callable[[], Any], Callable[[], Any]]:
    """The three cases' timed calls (each asks the 20 units once)."""
    opts = rs.parse_options({})
    board, state = rs.setup(rs.parse_scenario(sc), opts)
    q = rs.queries()["reachable"]
    units = [u["id"] for u in sc["units"] if u["side"] == side][:ASKED]
    params = {u: q.params(unit=u) for u in units}
    for u in units:
        q.run(board, state, opts, params[u])  # the version a front end shows: queried
    # for unit i, a one-hex move of unit i+1 (another unit of the side), legal on `state`
    moves = []
    for k, u in enumerate(units):
        other = units[(k + 1) % len(units)]
        answer = q.run(board, state, opts, params[other])
        start = next(x["hex"] for x in sc["units"] if x["id"] == other)
        if "reachable" in answer:
            steps = sorted(h for h, r in answer["reachable"].items() if len(r["path"]) == 1)
        else:
            steps = sorted(
                r["hex"] for r in answer["hexes"] if any(len(p["path"]) == 1 for p in r["paths"])
            )
        assert steps, other
        action = rs.parse_action(move_doc(other, start, steps[0]))
        ruling = rs.adjudicate(board, state, action, opts)
        assert ruling.legal, ruling.summary
        moves.append((u, action, ruling))
        moved = rs.apply(board, state, action, ruling)
        again = rs.load_state(moved.model_dump(mode="json"))
        assert json.dumps(q.run(board, moved, opts, params[u])) == json.dumps(
            q.run(board, again, opts, params[u])
        ), "handed-on index answers differently"
    stored = state.model_dump(mode="json")

    def hover() -> None:
        for u in units:
            q.run(board, state, opts, params[u])

    def after_move() -> None:
        for u, action, ruling in moves:
            q.run(board, rs.apply(board, state, action, ruling), opts, params[u])

    def parsed() -> None:
        for u in units:
            q.run(board, rs.load_state(stored), opts, params[u])

    return hover, after_move, parsed


def _zoc() -> tuple[Callable[[], Any], tuple[Callable[[], Any], ...]]:
    from app.rules.zoc.models import DEFAULT_TERRAIN_COSTS

    sc = zoc_scenario(100, 500, ma=20, river_every=7)
    grid = build_grid(sc, DEFAULT_TERRAIN_COSTS)
    enemy = {grid.index[u["hex"]] for u in sc["units"] if u["side"] == "soviet"}
    units = [u for u in sc["units"] if u["side"] == "axis"][:ASKED]
    starts = [(grid.index[u["hex"]], u["movement_allowance"]) for u in units]

    def floor() -> None:
        for start, ma in starts:
            floor_reachable(grid, start, ma, enemy)

    return floor, _cases(registry.get("zoc"), sc, "axis", _move_doc)


def _zoi() -> tuple[Callable[[], Any], tuple[Callable[[], Any], ...]]:
    from app.rules.zoc.models import DEFAULT_TERRAIN_COSTS

    sc = zoi_scenario(100, 500, ma=8, friends=ASKED - 1)
    grid_sc = zoc_scenario(100, 0)
    grid_sc["hexes"] = {}
    grid = build_grid(grid_sc, DEFAULT_TERRAIN_COSTS)
    foes = [u for u in sc["units"] if u["side"] == "austrian"]
    enemy = {grid.index[u["hex"]] for u in foes}
    zone = zoi_zone(grid, foes)
    units = [u for u in sc["units"] if u["side"] == "french"][:ASKED]
    starts = [(grid.index[u["hex"]], u["ma"]) for u in units]

    def floor() -> None:
        for start, ma in starts:
            floor_reachable(grid, start, ma, enemy, zone)

    return floor, _cases(registry.get("zoi"), sc, "french", _zoi_move_doc)


CASES = ("hovering", "first ask after a move", "parsed state", "parsed state, default GC")
TARGETS: tuple[float | None, ...] = (2, 3, 3, None)


@contextmanager
def server_gc() -> Iterator[None]:
    """The garbage collector as :func:`app.runtime.tune_gc` sets it in a server process
    (what exists now frozen, the server's thresholds); the settings before restored after."""
    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def rows(rounds: int = 1) -> list[Row]:
    out: list[Row] = []
    for name, make in (("zoc", _zoc), ("zoi", _zoi)):
        floor, cases = make()
        timed = (*cases, cases[-1])  # the parsed state again, with the default settings
        samples: list[list[tuple[float, float, float]]] = [[] for _ in range(len(timed) + 1)]
        for _ in range(rounds):  # alternate: floor, then each case, then again
            with server_gc():
                samples[0].append(measure(floor))
                for k, fn in enumerate(cases):
                    samples[k + 1].append(measure(fn))
            samples[len(timed)].append(measure(timed[-1]))
        med = [_median(s) for s in samples]
        f = _per_ask(med[0])
        for k, case in enumerate(CASES):
            ratios = [s[0] / b[0] for s, b in zip(samples[k + 1], samples[0], strict=True)]
            out.append(
                _row(
                    f"{name} reachable 100x100, 500 enemies, {ASKED} units in turn ({case})",
                    _per_ask(med[k + 1]),
                    f,
                    "floor",
                    TARGETS[k],
                    f"per ask; ratio of each round {', '.join(f'{r:.2f}' for r in ratios)}"
                    if rounds > 1
                    else "per ask",
                )
            )
    return out


def _median(s: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    return (statistics.median(x[0] for x in s), min(x[1] for x in s), max(x[2] for x in s))


def _per_ask(m: tuple[float, float, float]) -> tuple[float, float, float]:
    return (m[0] / ASKED, m[1] / ASKED, m[2] / ASKED)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for r in rows(args.rounds):
        print(f"| {r.name} | {r.measured} | {r.baseline} | {r.ratio} | {r.target} | {r.note} |")


if __name__ == "__main__":
    main()
