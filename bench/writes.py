"""Submissions alone, for the write path (issue 28 item 3, session 9): what an event's state
costs stored whole at every event (``REFEREE_SNAPSHOT_EVERY=1``, as before migration 0012)
against a delta with a snapshot every 32 events (the default before session 21) and by
weight (``auto``, the default since: ``deltas.snapshot_by_weight``), on SQLite and PostgreSQL,
seed example and 100x100 (501 units). ``--every`` picks the values.

* ``inproc``: the service's submission (``actions.submit_action``, as ``app/api/fast.py``
  calls it) in this process and thread, no HTTP, one submission after another (umpire
  ``place_unit`` with ``If-Match``, each version followed): CPU time per submission
  (``time.process_time``), the median of batches, so the other sessions' load on the machine
  does not enter; with ``--profile``, cProfile's top lines of the last batch. With
  ``--dry-run``: the dry run instead (``actions.dry_run``, anonymous, as ``bench/web.py``'s
  dry-run row asks it: a move of the scenario's unit), the game left as it is.
* ``http``: the submission rows of ``bench/web.py`` (wrk, 2 writers, uvicorn) for each N, and
  the bare app's write (``bench/bare.py``) right after, on the same data: the same-run ratio.

    .venv/bin/python bench/writes.py inproc [--profile] [--dry-run] [--db sqlite|postgresql]
    .venv/bin/python bench/writes.py http [--quick]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EVERY = ("1", "32", "auto")


def _dry_action(unit: str, hexes: tuple[str, str]) -> dict[str, Any]:
    """The dry run asked: the unit moved from where it starts (``hexes[1]``) to ``hexes[0]``
    (the seed example's is ``bench/web.py``'s)."""
    return {"kind": "move", "unit": unit, "path": [hexes[1], hexes[0]]}


def _scenarios() -> dict[str, tuple[dict[str, Any], str, tuple[str, str]]]:
    from bench.scenarios import hex_id, zoc_scenario

    seed = json.loads((ROOT / "scenarios/zoc/seed-example.json").read_text())
    return {
        "seed example": (seed, "de-inf-2", ("e3307", "e3207")),
        "100x100, 501 units": (
            zoc_scenario(100, 500),
            "mover",
            (hex_id(1, 1, 100), hex_id(1, 2, 100)),
        ),
    }


@contextmanager
def _database(kind: str, tmp: Path) -> Iterator[str | None]:
    if kind == "sqlite":
        yield f"sqlite:///{tmp}/writes.db"
        return
    from bench.web import postgres_database

    with postgres_database() as url:
        yield url


def _service_cost(
    url: str,
    scenario: dict[str, Any],
    unit: str,
    hexes: tuple[str, str],
    batches: int,
    size: int,
    profile: bool,
    dry: bool = False,
    minimal: bool = False,
) -> tuple[float, float, float, str]:
    """CPU per submission at the service (``actions.submit_action``, as the fast path calls
    it, in this thread: what cProfile sees), without HTTP."""
    from fastapi.testclient import TestClient

    from app.api.etags import parse_etags
    from app.config import Settings
    from app.db.uow import SqlAlchemyUnitOfWork
    from app.main import create_app
    from app.service import actions as actions_uc
    from app.service.pipeline import WriteRequest

    app = create_app(Settings(database_url=url))
    report = ""
    try:
        with TestClient(app) as client:
            r = client.post("/games", json={"ruleset": "zoc", "scenario": scenario})
            r.raise_for_status()
            body = r.json()
        state = app.state
        token, version, n = body["seats"]["umpire"], body["version"], 0

        def one() -> None:
            nonlocal version, n
            if dry:
                actions_uc.dry_run(
                    SqlAlchemyUnitOfWork(state.session_factory),
                    body["id"],
                    _dry_action(unit, hexes),
                    token=None,
                    boards=state.boards,
                    now=float(state.clock()),
                )
                return
            action = {"kind": "place_unit", "unit": unit, "hex": hexes[n % 2]}
            n += 1
            req = WriteRequest(
                SqlAlchemyUnitOfWork(state.session_factory),
                body["id"],
                token,
                parse_etags(f'W/"{version}"'),
                None,
                state.boards,
                float(state.clock()),
                **({"minimal": True} if minimal else {}),
            )
            outcome = actions_uc.submit_action(req, actions_uc.SubmitAction(action, None, None))
            version = outcome.version

        for _ in range(size):
            one()
        costs: list[float] = []
        walls: list[float] = []
        for b in range(batches):
            prof = cProfile.Profile(time.process_time) if profile and b == batches - 1 else None
            start, wall = time.process_time(), time.perf_counter()
            if prof is not None:
                prof.enable()
            for _ in range(size):
                one()
            walls.append((time.perf_counter() - wall) / size * 1000)
            if prof is not None:
                prof.disable()
                out = io.StringIO()
                stats = pstats.Stats(prof, stream=out)
                stats.sort_stats("cumulative").print_stats(60)
                stats.sort_stats("tottime").print_stats(30)
                report = out.getvalue()
            costs.append((time.process_time() - start) / size * 1000)
    finally:
        app.state.engine.dispose()
    report = (
        f"  wall {statistics.median(walls):.3f} ms a submission (the database's work too)\n"
        + report
    )
    return statistics.median(costs), min(costs), max(costs), report


def inproc(
    dbs: list[str],
    batches: int,
    size: int,
    profile: bool,
    only: str | None = None,
    every_values: tuple[str, ...] = (*EVERY, *EVERY),
    dry: bool = False,
    minimal: bool = False,
) -> None:
    from bench.web import prepare

    scenarios = _scenarios()
    for db in dbs:
        with tempfile.TemporaryDirectory() as tmp_name, _database(db, Path(tmp_name)) as url:
            if url is None:
                continue
            prepare(url)
            for label, (scenario, unit, hexes) in scenarios.items():
                if only and only not in label:
                    continue
                for every in every_values:  # by default each twice, interleaved
                    os.environ["REFEREE_SNAPSHOT_EVERY"] = every
                    med, lo, hi, report = _service_cost(
                        url, scenario, unit, hexes, batches, size, profile, dry, minimal
                    )
                    print(
                        f"{db:10} {label:20} N={every:>4}: {med:.3f} ms CPU a "
                        f"{'dry run' if dry else 'submission'}"
                        f"{', Prefer: return=minimal' if minimal else ''} "
                        f"({lo:.3f}-{hi:.3f})",
                        flush=True,
                    )
                    print(report, flush=True)


def http(
    quick: bool,
    only: str | None = None,
    every_values: tuple[str, ...] = EVERY,
    dbs: tuple[str, ...] = ("sqlite", "postgresql"),
) -> None:
    from bench.bare import seed
    from bench.web import (
        Bench,
        Settings,
        _state_text,
        big_game,
        postgres_database,
        prepare,
        seed_game,
        server,
    )

    s = (
        Settings(seconds=2, repeat=2, write_connections=2)
        if quick
        else Settings(seconds=3, repeat=3, write_connections=2)
    )

    def show(name: str, m: Any, bare: Any) -> None:
        print(
            f"  {name:44} {m.rps:8.0f}/s p50 {m.p50_ms:6.1f} p99 {m.p99_ms:7.1f} ms "
            f"(p99/p50 {m.p99_ms / m.p50_ms:4.1f}) cpu {m.cpu_ms:.2f} ms | bare {bare.rps:6.0f}/s "
            f"cpu {bare.cpu_ms:.2f} ms p99/p50 {bare.p99_ms / bare.p50_ms:4.1f} | ratio "
            f"{m.rps / bare.rps:.2f}x, cpu {bare.cpu_ms / m.cpu_ms:.2f}x",
            flush=True,
        )

    def suite(db: str, url: str, tmp: Path) -> None:
        prepare(url)
        for label, make in (("seed example", seed_game), ("100x100, 501 units", big_game)):
            if only and only not in label:
                continue
            for every in every_values:
                extra = {"REFEREE_SNAPSHOT_EVERY": every}
                with server(url, extra=extra) as base:
                    bench = Bench(base, tmp, s)
                    games = [make(base, url) for _ in range(s.write_connections)]
                    seed(url, {x.id: _state_text(url, x.id) for x in games})
                    sub = bench.writers(games)
                    small = bench.writers(games, prefer="return=minimal")
                    # on a game nobody wrote to: the writers leave the unit on either hex
                    fresh = make(base, url)
                    dry = bench.post(f"/games/{fresh.id}/rulings", fresh.dry_run)
                with server(url, app="bench.bare") as bare_base:
                    bare = Bench(bare_base, tmp, s)
                    floor = bare.post(f"/bare/write/{games[0].id}", {"n": 1}, writers=True)
                    read_floor = bare.get(f"/bare/read/{games[0].id}")
                print(f"{db} {label}, REFEREE_SNAPSHOT_EVERY={every}", flush=True)
                show("submission", sub, floor)
                show("submission, Prefer: return=minimal", small, floor)
                show("dry run (vs the bare read)", dry, read_floor)

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if "sqlite" in dbs:
            suite("SQLite", f"sqlite:///{tmp}/bench.db", tmp)
        if "postgresql" not in dbs:
            return
        with postgres_database() as pg:
            if pg is not None:
                suite("PostgreSQL", pg, tmp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("what", choices=["inproc", "http"])
    parser.add_argument("--db", choices=["sqlite", "postgresql"], action="append")
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--dry-run", action="store_true", help="inproc: time the dry run")
    parser.add_argument(
        "--minimal", action="store_true", help="inproc: submissions with Prefer: return=minimal"
    )
    parser.add_argument("--only", help="the scenarios whose label contains this")
    parser.add_argument("--every", action="append", help="REFEREE_SNAPSHOT_EVERY values")
    args = parser.parse_args()
    if args.what == "inproc":
        inproc(
            args.db or ["sqlite", "postgresql"],
            args.batches,
            args.size,
            args.profile,
            args.only,
            tuple(args.every or (*EVERY, *EVERY)),
            args.dry_run,
            args.minimal,
        )
    else:
        http(
            args.quick,
            args.only,
            tuple(args.every or EVERY),
            tuple(args.db or ("sqlite", "postgresql")),
        )


if __name__ == "__main__":
    main()
