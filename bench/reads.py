"""The read rows of ``make bench`` alone, before and after alternated in one sitting.

``GET /healthz``, GET game and a dry run on the seed example and on the 100x100 map with 501
units, under wrk (``bench/web.py``: 2 threads, 16 connections), each against the bare app
(``bench/bare.py``) started right after on the same data, on SQLite and PostgreSQL. With
``--before DIR`` each round serves the same database first with the application of another
checkout (``DIR``: e.g. ``main``) and then with this one, so a change is measured against
what it changes at the same load; the rounds repeat that (``--rounds``) and every figure is
given per round (the machine is shared: the spread is part of the result).

Run: ``python -m bench.reads [--before ../main] [--rounds 3] [--seconds 2] [--sqlite-only]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.web import (
    ROOT,
    Bench,
    Measured,
    Settings,
    _state_text,
    big_game,
    postgres_database,
    prepare,
    seed_game,
    server,
    wrk_path,
)

ROWS = (
    "GET /healthz",
    "GET game (seed example)",
    "dry run (seed example)",
    "GET game (100x100)",
    "dry run (100x100)",
)


def _measure(
    url: str, tmp: Path, s: Settings, root: Path, games: dict[str, tuple[str, dict[str, object]]]
) -> dict[str, Measured]:
    out: dict[str, Measured] = {}
    with server(url, root=root) as base:
        b = Bench(base, tmp, s)
        out["GET /healthz"] = b.get("/healthz")
        for label, (gid, dry) in games.items():
            out[f"GET game ({label})"] = b.get(f"/games/{gid}")
            out[f"dry run ({label})"] = b.post(f"/games/{gid}/rulings", dry)
    return out


def _bare(
    url: str, tmp: Path, s: Settings, games: Mapping[str, tuple[str, object]]
) -> dict[str, Measured]:
    out: dict[str, Measured] = {}
    with server(url, app="bench.bare") as base:
        b = Bench(base, tmp, s)
        out["health"] = b.get("/healthz")
        for label, (gid, _) in games.items():
            out[label] = b.get(f"/bare/read/{gid}")
    return out


def _line(name: str, m: Measured, floor: Measured) -> str:
    return (
        f"| {name} | {m.rps:,.0f}/s, p50 {m.p50_ms:.1f} p99 {m.p99_ms:.1f} ms, "
        f"{m.cpu_ms:.2f} ms CPU | {floor.rps:,.0f}/s, {floor.cpu_ms:.2f} ms | "
        f"**{m.rps / floor.rps:.2f}x** | {floor.cpu_ms / m.cpu_ms:.2f}x |"
    )


def sitting(db: str, url: str, tmp: Path, s: Settings, rounds: int, before: Path | None) -> None:
    from bench.bare import seed

    with server(url) as base:
        made = {"seed example": seed_game(base, url), "100x100": big_game(base, url)}
    games = {label: (g.id, g.dry_run) for label, g in made.items()}
    seed(url, {g.id: _state_text(url, g.id) for g in made.values()})
    ratios: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    for r in range(1, rounds + 1):
        sides = [("before", before), ("after", ROOT)] if before else [("after", ROOT)]
        if r % 2 == 0:
            sides.reverse()  # alternate which one goes first
        for which, root in sides:
            assert root is not None
            started = time.strftime("%H:%M:%S", time.gmtime())
            got = _measure(url, tmp, s, root, games)
            floor = _bare(url, tmp, s, games)
            load = os.getloadavg()[0]
            print(f"\n{db}, round {r}, {which} ({root}), {started} UTC, load {load:.1f}:")
            print("| request | ours | bare app | throughput ratio | CPU ratio |")
            print("|---|---|---|---|---|")
            for name in ROWS:
                key = "health" if name == "GET /healthz" else name.split("(")[1].rstrip(")")
                m, f = got[name], floor[key]
                print(_line(name, m, f))
                ratios.setdefault((which, name), []).append(m.rps / f.rps)
                cpu.setdefault((which, name), []).append(f.cpu_ms / m.cpu_ms)
            sys.stdout.flush()
    print(f"\n{db}, {rounds} rounds: throughput ratio median (min-max); CPU ratio median")
    present = [w for w in ("before", "after") if (w, ROWS[0]) in ratios]
    print("| request | " + " | ".join(present) + " |")
    print("|---|" + "---|" * len(present))
    for name in ROWS:
        cells = []
        for which in ("before", "after"):
            if (which, name) not in ratios:
                continue
            rs, cs = ratios[(which, name)], cpu[(which, name)]
            cells.append(
                f"{statistics.median(rs):.2f}x ({min(rs):.2f}-{max(rs):.2f}), "
                f"CPU {statistics.median(cs):.2f}x"
            )
        print(f"| {name} | " + " | ".join(cells) + " |")
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, help="the checkout to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--sqlite-only", action="store_true")
    parser.add_argument("--postgres-only", action="store_true")
    args = parser.parse_args()
    if wrk_path() is None:
        print("wrk is not installed")
        return 1
    s = Settings(seconds=args.seconds, repeat=args.repeat)
    before = args.before.resolve() if args.before else None
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if not args.postgres_only:
            url = f"sqlite:///{tmp}/reads.db"
            prepare(url)
            sitting("SQLite", url, tmp, s, args.rounds, before)
        if not args.sqlite_only:
            with postgres_database() as pg:
                if pg is not None:
                    prepare(pg)
                    sitting("PostgreSQL", pg, tmp, s, args.rounds, before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
