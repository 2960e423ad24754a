"""The concurrency run with PostgreSQL on a core of its own (issue 28, docs/OPERATIONS.md).

``python bench/pinned.py [--seconds 10] [--repeat 2]`` starts a throwaway PostgreSQL cluster
(as the test suite does), pins every one of its processes -- and the backends it forks later
-- to CPU 1 with ``taskset``, and serves the Referee app with 1 and then 2 uvicorn processes
pinned to CPU 0. wrk runs on CPU 1 beside PostgreSQL (on a 2-core machine there is no third
core; wrk's own share of CPU 1 is what it is). The load is the concurrency suite's: 200 seed
games, two clients each (400 connections), umpire submissions with If-Match. Each row gives
accepted submissions a second, the app's CPU per request and PostgreSQL's CPU per request
(every postgres process's user + system time over the run, per answered request), and the
same for GET game with one process: the figures docs/OPERATIONS.md sizes a deployment from.
Not part of ``make bench`` (about 3 minutes).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.web import Bench, BenchGame, Settings, prepare, seed_game, server


def _pin(pid: int, cpus: str) -> int:
    """Pin ``pid`` and its children (a postmaster's backends) to ``cpus``; how many."""
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    for p in pids:
        subprocess.run(["taskset", "-a", "-p", "-c", cpus, str(p)], check=True, capture_output=True)
    return len(pids)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    from tests.support.postgres import start_cluster

    cluster = start_cluster()
    try:
        url = cluster.url(cluster.create_database("pinned"))
        postmaster = int((cluster.data / "postmaster.pid").read_text().split()[0])
        print(f"postgres {postmaster}: {_pin(postmaster, '1')} processes pinned to CPU 1")
        prepare(url)
        games: list[BenchGame] = []
        one: float | None = None
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            for workers in (1, 2):
                with server(url, workers, cpus="0") as base:
                    games = games or [seed_game(base, url) for _ in range(200)]
                    _pin(postmaster, "1")  # the backends the set-up opened
                    s = Settings(seconds=args.seconds, repeat=args.repeat)
                    bench = Bench(base, tmp, s, db_url=url, wrk_cpus="1", also=postmaster)
                    m = bench.submissions(
                        games, threads=2, connections=400, seconds=args.seconds, warmup=args.warmup
                    )
                    if workers == 1:  # a read's share of PostgreSQL, for the sizing
                        read = bench.get(f"/games/{games[0].id}")
                        print(
                            f"| GET game, 1 process on CPU 0 | {read.rps:.0f}/s, p50 "
                            f"{read.p50_ms:.0f} p99 {read.p99_ms:.0f} ms | app CPU "
                            f"{read.cpu_ms:.2f} ms/req | PostgreSQL CPU "
                            f"{statistics.median(r.other_cpu_ms for r in read.runs):.2f} ms/req |",
                            flush=True,
                        )
                per_run = [r.statuses.get("201", 0) / args.seconds for r in m.runs]
                accepted = statistics.median(per_run)
                one = one or accepted
                pg = statistics.median(r.other_cpu_ms for r in m.runs)
                print(
                    f"| {workers} process(es) on CPU 0, PostgreSQL on CPU 1 | {accepted:.0f} "
                    f"accepted/s ({min(per_run):.0f}-{max(per_run):.0f}) | {m.rps:.0f} req/s, "
                    f"p50 {m.p50_ms:.0f} p99 {m.p99_ms:.0f} ms | app CPU {m.cpu_ms:.2f} ms/req | "
                    f"PostgreSQL CPU {pg:.2f} ms/req | {accepted / one:.2f}x | "
                    f"412: {m.statuses().get('412', 0)} |",
                    flush=True,
                )
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
