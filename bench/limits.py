"""The rate limits across processes (issue 24 item 5): what they let through and what they cost.

``python bench/limits.py [--seconds S] [--repeat R]`` on a throwaway PostgreSQL 15 cluster:

* **accepted requests** -- one client alternating between server processes with one token
  (``REFEREE_RATE_LIMIT_PER_TOKEN=4``, burst 10) for S seconds: one process, two processes
  with per-process buckets (``REFEREE_RATE_LIMIT_SHARED=off``), two with shared buckets
  (``on``), against the one limit burst + rate x elapsed;
* **cost per request** -- wrk (2 threads, 8 connections, one token: every request charges the
  same token and IP rows, the worst case for the shared table) against ``GET /config`` (the
  cheapest route: the limiter's cost shows most) and ``GET /games/{id}`` (a real read), one
  process, with the limiter off, in-process and shared (limits so high nothing is refused),
  interleaved R times; requests/s and server CPU per request, as ratios to "off" in the run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.web import _script, postgres_database, prepare, run_wrk, server, wrk_path

HIGH = "1000000"
MODES: dict[str, dict[str, str]] = {
    "off": {},
    "in-process": {
        "REFEREE_RATE_LIMIT_PER_TOKEN": HIGH,
        "REFEREE_RATE_LIMIT_TOKEN_BURST": HIGH,
        "REFEREE_RATE_LIMIT_PER_IP": HIGH,
        "REFEREE_RATE_LIMIT_IP_BURST": HIGH,
        "REFEREE_RATE_LIMIT_SHARED": "off",
    },
}
MODES["shared"] = {**MODES["in-process"], "REFEREE_RATE_LIMIT_SHARED": "on"}


def accepted(url: str, seconds: float, tmp: Path) -> None:
    from tests.support.process import server_process

    rate, burst = 4.0, 10
    env = {
        "REFEREE_RATE_LIMIT_PER_TOKEN": str(rate),
        "REFEREE_RATE_LIMIT_TOKEN_BURST": str(burst),
        "REFEREE_WEBHOOK_WORKER": "false",
    }
    print("\n| processes | buckets | accepted | in s | one limit (burst + rate x s) |")
    print("|---|---|---|---|---|")
    for n, shared in ((1, "off"), (2, "off"), (2, "on")):
        with ExitStack() as stack:
            servers = [
                stack.enter_context(
                    server_process(url, tmp, {**env, "REFEREE_RATE_LIMIT_SHARED": shared})
                )
                for _ in range(n)
            ]
            for s in servers:
                s.wait_healthy()
            clients = [stack.enter_context(httpx.Client(base_url=s.url)) for s in servers]
            headers = {"Authorization": f"Bearer accepted-{n}-{shared}"}
            ok = i = 0
            start = time.monotonic()
            while time.monotonic() - start < seconds:
                ok += clients[i % n].get("/config", headers=headers).status_code == 200
                i += 1
            elapsed = time.monotonic() - start
        label = "per process" if shared == "off" else "shared"
        print(f"| {n} | {label} | {ok} | {elapsed:.1f} | {burst + rate * elapsed:.1f} |")


def cost(url: str, seconds: float, repeat: int, tmp: Path) -> None:
    script = _script("fixed", tmp)
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(repeat):
        for mode, extra in MODES.items():
            with server(url, 1, {**extra, "REFEREE_WEBHOOK_WORKER": "false"}) as base:
                r = httpx.post(
                    f"{base}/games",
                    json={"ruleset": "zoc", "scenario": _zoc_example()},
                    timeout=60,
                )
                r.raise_for_status()
                game, token = r.json()["id"], r.json()["seats"]["umpire"]
                for name, path in (
                    ("GET /config", "/config"),
                    ("GET /games/{id}", f"/games/{game}"),
                ):
                    httpx.get(base + path, headers={"Authorization": f"Bearer {token}"})
                    load = run_wrk(
                        base + path,
                        script,
                        env={"BENCH_METHOD": "GET", "BENCH_TOKEN": token},
                        threads=2,
                        connections=8,
                        seconds=int(seconds),
                    )
                    bad = {k: v for k, v in load.statuses.items() if k != "200"}
                    if bad or load.errors:
                        raise RuntimeError(f"{mode} {name}: {bad} errors {load.errors}")
                    results.setdefault((name, mode), []).append((load.rps, load.cpu_ms))
    print(
        "\n| request | limiter | requests/s (median) | ratio to off "
        "| server CPU ms/request | ratio |"
    )
    print("|---|---|---|---|---|---|")
    for name in ("GET /config", "GET /games/{id}"):
        off_rps = statistics.median(r for r, _ in results[(name, "off")])
        off_cpu = statistics.median(c for _, c in results[(name, "off")])
        for mode in MODES:
            rps = statistics.median(r for r, _ in results[(name, mode)])
            cpu = statistics.median(c for _, c in results[(name, mode)])
            print(
                f"| {name} | {mode} | {rps:.0f} | {rps / off_rps:.2f} | {cpu:.2f} | "
                f"{cpu / off_cpu:.2f} |"
            )


def _zoc_example() -> dict[str, object]:
    from app.rules import registry

    registry.load_builtins()
    scenario = registry.get("zoc").example_scenario()
    assert scenario is not None
    return scenario


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-cost", action="store_true", help="only the accepted counts")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, postgres_database() as url:
        if url is None:
            return 1
        prepare(url)
        accepted(url, args.seconds, Path(tmp))
        if not args.no_cost:
            if wrk_path() is None:
                print("wrk is not installed: no cost figures")
                return 1
            cost(url, args.seconds, args.repeat, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
