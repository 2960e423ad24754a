"""Issue 9's standing promises, re-checked on both databases against real server processes:

* **conflicting writers** -- rounds of eight writers submitting at the same version through
  two server processes on one database: exactly one wins each round, the others get 412, and
  the game's audit replays;
* **SIGKILL mid-burst** -- clients submit a burst of actions (notes carrying their own
  Idempotency-Key) while the server is killed with SIGKILL and restarted; every client then
  retries every request. Every acknowledged action is in the log exactly once, every retry
  of one gets the same answer, nothing is applied twice, and the audit replays.

The short form runs in ``make test``; ``make reliability`` (``REFEREE_RELIABILITY=long``) runs
the full rounds (200 rounds, 10 kills).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from tests.match.flowkit import tiny_scenario
from tests.reliability.conftest import LONG
from tests.support.process import ServerProcess, server_process

ROUNDS = 200 if LONG else 6
KILLS = 10 if LONG else 1
WRITERS = 8
CLIENTS = 4
PER_CLIENT = 12


def _create(url: str, length: int) -> tuple[str, dict[str, str]]:
    scenario = tiny_scenario(length=length)
    r = httpx.post(f"{url}/games", json={"ruleset": "tiny", "scenario": scenario}, timeout=30)
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["seats"]


def _audit(url: str, game: str, umpire: str) -> dict[str, Any]:
    r = httpx.get(
        f"{url}/games/{game}/audit", headers={"Authorization": f"Bearer {umpire}"}, timeout=60
    )
    assert r.status_code == 200, r.text
    report: dict[str, Any] = r.json()
    return report


def test_conflicting_writers_have_exactly_one_winner(db_url: str, tmp_path: Path) -> None:
    with server_process(db_url, tmp_path) as a, server_process(db_url, tmp_path) as b:
        a.wait_healthy()
        b.wait_healthy()
        for round_ in range(ROUNDS):
            game, seats = _create(a.url, 40)
            headers = [
                {
                    "Authorization": f"Bearer {seats['red']}",
                    "If-Match": 'W/"1"',
                    "Idempotency-Key": f"r{round_}-w{w}",
                }
                for w in range(WRITERS)
            ]

            def write(w: int, game: str = game, headers: list[Any] = headers) -> int:
                url = (a if w % 2 else b).url
                with httpx.Client(timeout=60) as c:
                    step = {"kind": "step", "pawn": "r1", "n": 1 + w % 3}
                    return c.post(
                        f"{url}/games/{game}/actions", json=step, headers=headers[w]
                    ).status_code

            with ThreadPoolExecutor(WRITERS) as pool:
                codes = sorted(pool.map(write, range(WRITERS)))
            assert codes == [201] + [412] * (WRITERS - 1), (round_, codes)
            if round_ % 20 == 0 or round_ == ROUNDS - 1:
                assert _audit(b.url, game, seats["umpire"])["ok"] is True


def _burst(url: str, game: str, red: str, keys: list[str], acked: dict[str, str]) -> None:
    """Submit one action per key until done; a failed connection leaves the key unacked."""
    with httpx.Client(timeout=10) as c:
        for key in keys:
            try:
                r = c.post(
                    f"{url}/games/{game}/actions",
                    json={"kind": "note", "text": key},
                    headers={
                        "Authorization": f"Bearer {red}",
                        "If-Match": "*",
                        "Idempotency-Key": key,
                    },
                )
            except httpx.HTTPError:
                continue
            if r.status_code == 201:
                acked[key] = r.text
            else:
                assert r.status_code >= 500 or r.status_code == 503, r.text


def _killed_mid_burst(server: ServerProcess, game: str, red: str, prefix: str) -> dict[str, str]:
    """Run a burst from CLIENTS threads and SIGKILL the server once a third is acknowledged."""
    acked: dict[str, str] = {}
    keys = [[f"{prefix}-c{c}-{i}" for i in range(PER_CLIENT)] for c in range(CLIENTS)]
    threads = [
        threading.Thread(target=_burst, args=(server.url, game, red, ks, acked)) for ks in keys
    ]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 120
    while len(acked) < CLIENTS * PER_CLIENT // 3 and time.monotonic() < deadline:
        time.sleep(0.005)
    server.kill()
    for t in threads:
        t.join(timeout=120)
    return acked


def test_sigkill_mid_burst_loses_and_duplicates_nothing(db_url: str, tmp_path: Path) -> None:
    with server_process(db_url, tmp_path) as first:
        first.wait_healthy()
        game, seats = _create(first.url, 10)
        port = first.port
    all_keys: list[str] = []
    acked_first: dict[str, str] = {}
    for kill in range(KILLS):
        with server_process(db_url, tmp_path, port=port) as server:
            server.wait_healthy()
            acked = _killed_mid_burst(server, game, seats["red"], f"k{kill}")
        assert 0 < len(acked) < CLIENTS * PER_CLIENT, "the kill did not interrupt the burst"
        acked_first.update(acked)
        all_keys += [f"k{kill}-c{c}-{i}" for c in range(CLIENTS) for i in range(PER_CLIENT)]
    with server_process(db_url, tmp_path, port=port) as server:
        server.wait_healthy()
        answers: dict[str, str] = {}
        _burst(server.url, game, seats["red"], all_keys, answers)  # every client retries
        assert set(answers) == set(all_keys)
        for key, body in acked_first.items():
            assert answers[key] == body, f"retry of acknowledged {key} got another answer"
        events = httpx.get(
            f"{server.url}/games/{game}/events",
            params={"limit": 500},
            headers={"Authorization": f"Bearer {seats['umpire']}"},
        ).json()["items"]
        seqs = sorted(httpx.Response(200, text=b).json()["event"] for b in answers.values())
        assert seqs == list(range(1, len(all_keys) + 1)), "an action is missing or applied twice"
        assert [e["kind"] for e in events] == ["note"] * len(all_keys)
        umpire = {"Authorization": f"Bearer {seats['umpire']}"}
        view = httpx.get(f"{server.url}/games/{game}", headers=umpire).json()
        assert sorted(view["state"]["notes"]) == sorted(all_keys)  # each applied exactly once
        assert _audit(server.url, game, seats["umpire"])["ok"] is True
