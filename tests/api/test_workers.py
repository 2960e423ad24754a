"""``referee serve --workers N``: several server processes on PostgreSQL, refused on SQLite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support.postgres import PgCluster, free_port

ROOT = Path(__file__).resolve().parents[2]
SERVE = [sys.executable, "-c", "from app.cli import main; raise SystemExit(main())", "serve"]


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_workers_on_sqlite_are_refused_with_a_clear_message(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "REFEREE_DATABASE_URL": f"sqlite:///{tmp_path / 'w.db'}"}
    for args, extra_env in ((["--workers", "2"], {}), ([], {"REFEREE_WORKERS": "3"})):
        done = subprocess.run(
            [*SERVE, "--port", str(port), *args],
            env={**env, **extra_env},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2
        assert "needs PostgreSQL" in done.stderr
        assert "SQLite" in done.stderr
        with pytest.raises(httpx.TransportError):
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)


@pytest.mark.pg
def test_two_workers_serve_one_postgresql_database(pg_cluster: PgCluster, pg_template: str) -> None:
    name = pg_cluster.create_database(template=pg_template)
    port = free_port()
    env = {**os.environ, "REFEREE_DATABASE_URL": pg_cluster.url(name), "REFEREE_WORKERS": "2"}
    proc = subprocess.Popen(
        [*SERVE, "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                r = httpx.get(f"{base}/healthz", timeout=2)
                if r.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(proc.stderr.read() if proc.stderr else "no stderr")
            time.sleep(0.2)
        assert r.json() == {"status": "ok", "database": "ok"}
        workers = [c for c in _children(proc.pid) if Path(f"/proc/{c}/cmdline").exists()]
        spawned = [
            c for c in workers if b"multiprocessing" in Path(f"/proc/{c}/cmdline").read_bytes()
        ]
        assert len(spawned) >= 2, workers
        # Fresh connections land on either process; every one sees the same game.
        scenario = json.loads((ROOT / "scenarios/zoc/seed-example.json").read_text())
        created = httpx.post(
            f"{base}/games", json={"ruleset": "zoc", "scenario": scenario}, timeout=10
        )
        assert created.status_code == 201, created.text
        gid = created.json()["id"]
        for _ in range(6):
            got = httpx.get(f"{base}/games/{gid}", timeout=10)
            assert got.status_code == 200
            assert got.json()["id"] == gid
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        pg_cluster.drop_database(name)
