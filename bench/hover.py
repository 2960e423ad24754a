"""Rules-core rows as a front end meets them (issue 28 item 4): on the 100x100 map with 500
enemy units, 20 units of the mover's side asked in turn, ``reachable`` of each

* **hovering**: on one state already queried (the game version a front end shows), each unit
  asked in turn -- 20 units, more than the searches a state keeps, so every ask runs the
  search (the state's steps, zones and 8.2 verdicts kept);
* **first ask after a move**: on the state ``apply`` made from that state for a one-hex move
  of another unit of the side (the index handed on; ``apply`` included);
* **parsed state**: on a state parsed from its stored JSON text (a cache miss where the game
  row holds the state whole: ``load_state`` of the text, the index and the search; nothing
  kept).

Hovering and the first ask after a move are against the plain-Python floor
(:func:`bench.floor.floor_reachable`) of the same 20 units, whose enemy hexes (and ``zoi``'s
zone) are worked out once, before it is timed. The parsed state starts from the stored text,
so its floor starts from the same text (since session 15; :func:`bench.floor.from_text`):
``json.loads`` of it, the mover and the enemy hexes (``zoi``: and their zone) found in it,
then the same search -- what plain code answering from the stored game must do at least. The
parsed state is also given against the plain floor (no target), as it was measured before.
Every figure is measured in the same run; the rows' times are per ask (the 20 asks' sum /
20).
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
import itertools
import json
import statistics
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from app.db import deltas
from app.rules import registry
from app.runtime import THRESHOLDS
from app.service.pipeline import load_stored_state
from bench.core import _move_doc, _row, _zoi_move_doc, measure
from bench.floor import Grid, build_grid, floor_reachable, from_text, zoi_zone
from bench.report import Row
from bench.scenarios import zoc_scenario, zoi_scenario

ASKED = 20
CYCLE = 16
"""The "rebuilt from deltas" row's chain is made of cycles of 8 moves, then each undone."""


def chain_cycles(state_size: int, delta_size: int) -> int:
    """How many cycles make the chain of a miss about half-way between two snapshots under the
    default cadence (``deltas.steady_gap``: 32 events on a small state, 512 on the 100x100
    board with 501 units): an odd number, so that half the chain ends mid-cycle, on a state
    that differs from the snapshot's."""
    half = deltas.steady_gap(state_size, delta_size) // 2
    cycles = max(1, round(half / CYCLE))
    return cycles if cycles % 2 else cycles + 1


def _cases(
    rs: Any,
    sc: dict[str, Any],
    side: str,
    move_doc: Callable[[str, str, str], dict[str, Any]],
) -> Timed:
    """The cases' timed calls (each asks the 20 units once) and what the floors from the
    stored game start from."""
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
    stored = state.model_dump_json()  # the compact text a write stores
    assert rs.load_state(stored) == state
    # a miss between snapshots: the row's state (this one) and the deltas of the events
    # after it, as stored -- about half a snapshot gap of them (chain_cycles): cycles of half
    # the moves above made one after the other, then each undone, so that the state they
    # make is this one again (the same searches as the parsed state's: the rows differ only
    # in how the state is made)
    made = [state]
    for _u, action, _ruling in moves:
        ruling = rs.adjudicate(board, made[-1], action, opts)
        if len(made) <= CYCLE // 2 and ruling.legal:
            made.append(rs.apply(board, made[-1], action, ruling))
    assert len(made) == CYCLE // 2 + 1, len(made)
    cycle = []
    for before, after in itertools.pairwise([*made, *reversed(made[:-1])]):
        delta = deltas.make_delta(before, after)
        assert delta, "a move made no delta"
        cycle.append(json.loads(json.dumps(delta)))  # as the database hands it back
    assert len(cycle) == CYCLE
    compact = (len(json.dumps(d, separators=(",", ":"))) for d in cycle)  # as stored
    cycles = chain_cycles(len(stored), max(compact))
    chain = cycle * cycles
    kept = deltas.StoredChain(stored, tuple(chain))
    rebuilt = load_stored_state(rs, kept)
    assert rebuilt == state and rebuilt.model_dump_json() == stored
    assert kept.document() == json.loads(stored)
    half = deltas.StoredChain(stored, tuple(chain[: len(chain) // 2])).document()
    assert half == json.loads(made[-1].model_dump_json()) != json.loads(stored)

    def hover() -> None:
        for u in units:
            q.run(board, state, opts, params[u])

    def after_move() -> None:
        for u, action, ruling in moves:
            q.run(board, rs.apply(board, state, action, ruling), opts, params[u])

    def parsed() -> None:
        for u in units:
            q.run(board, rs.load_state(stored), opts, params[u])

    def parsed_chain() -> None:
        for u in units:
            q.run(board, load_stored_state(rs, kept), opts, params[u])

    return Timed((hover, after_move, parsed, parsed_chain), stored, tuple(chain))


@dataclass(frozen=True)
class Timed:
    calls: tuple[Callable[[], Any], ...]
    """hovering, the first ask after a move, the parsed state, the one rebuilt from deltas"""
    text: str
    """the state's stored text (the row's, a snapshot's)"""
    chain: tuple[dict[str, Any], ...]
    """the deltas after it, as stored"""


Made = tuple[tuple[Callable[[], Any], ...], tuple[Callable[[], Any], ...], int]
"""(the floors: plain, from the stored text, from the text and the deltas; the cases; the
number of deltas in the chain)"""


def _zoc() -> Made:
    from app.rules.zoc.models import DEFAULT_TERRAIN_COSTS

    sc = zoc_scenario(100, 500, ma=20, river_every=7)
    grid = build_grid(sc, DEFAULT_TERRAIN_COSTS)
    enemy = {grid.index[u["hex"]] for u in sc["units"] if u["side"] == "soviet"}
    units = [u for u in sc["units"] if u["side"] == "axis"][:ASKED]
    starts = [(grid.index[u["hex"]], u["movement_allowance"]) for u in units]

    def floor() -> None:
        for start, ma in starts:
            floor_reachable(grid, start, ma, enemy)

    rs = registry.get("zoc")
    timed = _cases(rs, sc, "axis", _move_doc)
    text, chain = timed.text, timed.chain
    ids = [u["id"] for u in units]

    def foe(u: dict[str, Any]) -> bool:
        return bool(u["side"] == "soviet")

    def floor_text() -> None:
        for uid in ids:
            from_text(grid, text, uid, "movement_allowance", foe)

    def floor_chain() -> None:
        for uid in ids:
            from_text(grid, text, uid, "movement_allowance", foe, chain=chain)

    _same_reach(grid, text, chain, ids, "movement_allowance", foe, enemy, None)
    return (floor, floor_text, floor_chain), timed.calls, len(chain)


def _zoi() -> Made:
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

    rs = registry.get("zoi")
    timed = _cases(rs, sc, "french", _zoi_move_doc)
    text, chain = timed.text, timed.chain
    ids = [u["id"] for u in units]
    by_axial = {a: i for i, a in enumerate(grid.axial)}  # the board's, made once

    def foe(u: dict[str, Any]) -> bool:
        return bool(u["side"] == "austrian")

    def floor_text() -> None:
        for uid in ids:
            from_text(grid, text, uid, "ma", foe, by_axial)

    def floor_chain() -> None:
        for uid in ids:
            from_text(grid, text, uid, "ma", foe, by_axial, chain=chain)

    _same_reach(grid, text, chain, ids, "ma", foe, enemy, zone, by_axial)
    return (floor, floor_text, floor_chain), timed.calls, len(chain)


def _same_reach(
    grid: Grid,
    text: str,
    chain: tuple[dict[str, Any], ...],
    ids: list[str],
    ma_key: str,
    is_enemy: Callable[[dict[str, Any]], bool],
    enemy: set[int],
    zone: set[int] | None,
    by_axial: dict[tuple[int, int], int] | None = None,
) -> None:
    """The floor from the text answers what the plain floor, given the enemies (and zone)
    beforehand, answers: for every unit asked; and the floor from the text and the deltas
    answers what the floor from the text of the state they make answers."""
    units = {u["id"]: u for u in json.loads(text)["units"]}
    half = json.dumps(deltas.StoredChain(text, chain[: len(chain) // 2]).document())
    assert json.loads(half) != json.loads(text)
    for uid in ids:
        u = units[uid]
        plain = floor_reachable(grid, grid.index[u["hex"]], u[ma_key], enemy, zone)
        assert from_text(grid, text, uid, ma_key, is_enemy, by_axial) == plain, uid
        assert from_text(grid, text, uid, ma_key, is_enemy, by_axial, chain=chain) == plain
        assert from_text(
            grid, text, uid, ma_key, is_enemy, by_axial, chain=chain[: len(chain) // 2]
        ) == from_text(grid, half, uid, ma_key, is_enemy, by_axial), uid


CASES = (
    "hovering",
    "first ask after a move",
    "parsed state",
    "parsed state, rebuilt from deltas",
    "parsed state, default GC",
)
TARGETS: tuple[float | None, ...] = (2, 3, 3, 3, None)
FLOOR = (0, 0, 1, 2, 1)
"""Each case's floor: plain (0), from the stored text (1), from the text and the deltas (2)."""
FLOORS = ("floor", "floor from the stored text", "floor from the text and the deltas")


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
        floors, cases, links = make()
        parsed_at = CASES.index("parsed state")
        timed = (*cases, cases[parsed_at])  # the parsed state again, with the default settings
        n = len(floors)
        # samples: each floor, then each timed case
        samples: list[list[tuple[float, float, float]]] = [[] for _ in range(len(timed) + n)]
        for _ in range(rounds):  # alternate: the floors, then each case, then again
            with server_gc():
                for k, fn in enumerate(floors):
                    samples[k].append(measure(fn))
                for k, fn in enumerate(cases):
                    samples[k + n].append(measure(fn))
            samples[len(timed) + n - 1].append(measure(timed[-1]))
        med = [_median(s) for s in samples]
        title = f"{name} reachable 100x100, 500 enemies, {ASKED} units in turn"
        for k, case in enumerate(CASES):
            base = FLOOR[k]
            out.append(
                _row(
                    f"{title} ({case})",
                    _per_ask(med[k + n]),
                    _per_ask(med[base]),
                    FLOORS[base],
                    TARGETS[k],
                    (f"{links} deltas after the snapshot; " if "deltas" in case else "")
                    + _note(samples[k + n], samples[base], rounds),
                )
            )
        parsed = parsed_at + n
        out.append(  # as measured before session 15: against the floor given its enemies
            _row(
                f"{title} (parsed state, against the floor without a parse)",
                _per_ask(med[parsed]),
                _per_ask(med[0]),
                "floor",
                None,
                _note(samples[parsed], samples[0], rounds),
            )
        )
    return out


def _note(
    case: list[tuple[float, float, float]], base: list[tuple[float, float, float]], rounds: int
) -> str:
    if rounds <= 1:
        return "per ask"
    ratios = [s[0] / b[0] for s, b in zip(case, base, strict=True)]
    return f"per ask; ratio of each round {', '.join(f'{r:.2f}' for r in ratios)}"


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
