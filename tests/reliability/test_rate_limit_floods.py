"""Issue 22 (6, 7): the rate limits hold against the clients they limit, over real sockets.

* **junk-token floods** -- a client whose token is drained sends requests carrying thousands
  of junk values in ``Referee-Tokens`` (refused, 422 ``auth.too_many_tokens``, as ``GET
  /games`` refuses them), then floods within the cap until far more junk keys than the bucket
  table holds have been charged: its token is still limited (the table drops the bucket
  closest to full, never the drained one);
* **IP first** -- once an address is over its limit, its requests are refused whatever tokens
  they carry (a junk flood is stopped by the IP bucket before a token is charged);
* **spoofed proxy headers** -- by default ``X-Forwarded-For`` from a loopback client does not
  move it to another per-IP bucket (the client IP is the socket peer); with
  ``REFEREE_FORWARDED_ALLOW_IPS=127.0.0.1`` (or ``referee serve --forwarded-allow-ips``) the
  header names the client, and each named client has its own bucket.

The short form runs in ``make test``; ``REFEREE_RELIABILITY=long`` floods longer.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests.match.flowkit import tiny_scenario
from tests.reliability.conftest import LONG
from tests.support.postgres import free_port
from tests.support.process import server_process
from tests.support.server import running_server

FLOODS = 220 if LONG else 55
"""Requests per flood (the issue's reset took 55 requests of 2,000 junk values)."""
_junk = itertools.count()


def _junk_header(n: int) -> dict[str, str]:
    """``Referee-Tokens`` with ``n`` junk values never sent before."""
    return {"Referee-Tokens": ",".join(f"j{next(_junk):x}" for _ in range(n))}


@contextmanager
def _limited(db_url: str, **settings: Any) -> Iterator[httpx.Client]:
    app = create_app(Settings(database_url=db_url, webhook_worker=False, **settings))
    with running_server(app) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


def _drained(c: httpx.Client, burst: int) -> tuple[str, dict[str, str]]:
    """A game and its red seat's Authorization, the token's bucket drained."""
    r = c.post("/games", json={"ruleset": "tiny", "scenario": tiny_scenario()})
    assert r.status_code == 201, r.text
    game, red = r.json()["id"], {"Authorization": f"Bearer {r.json()['seats']['red']}"}
    for _ in range(burst):  # POST /games was anonymous: only these are charged
        assert c.get(f"/games/{game}", headers=red).status_code == 200
    _assert_limited(c.get(f"/games/{game}", headers=red), "token")
    return game, red


def _assert_limited(r: httpx.Response, which: str) -> None:
    assert r.status_code == 429, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["code"] == "rate_limited" and r.json()["limit"] == which
    assert int(r.headers["retry-after"]) >= 50


def test_junk_values_over_the_cap_are_refused_and_reset_nothing(db_url: str) -> None:
    """The issue's attack as reported: 55 requests of 2,000 junk values each (110,000 keys,
    more than the 100,000-bucket table) no longer give the drained token a fresh burst."""
    with _limited(db_url, rate_limit_per_token=0.01, rate_limit_token_burst=3) as c:
        game, red = _drained(c, 3)
        for _ in range(FLOODS):
            r = c.get("/rulesets", headers=_junk_header(2000))
            assert r.status_code == 422, r.text
            assert r.headers["content-type"] == "application/problem+json"
            body = r.json()
            assert body["code"] == "auth.too_many_tokens"
            assert body["errors"][0]["location"] == "/Referee-Tokens"
        _assert_limited(c.get(f"/games/{game}", headers=red), "token")
        # 100 tokens are within the cap
        assert c.get("/rulesets", headers=_junk_header(100)).status_code == 200
    # the refusal is the one GET /games gives without the rate limit
    with _limited(db_url) as c:
        listing = c.get("/games", headers=_junk_header(101))
        assert listing.status_code == 422 and listing.json() == {**body, "instance": "/games"}


def test_junk_floods_within_the_cap_do_not_push_out_a_drained_bucket(db_url: str) -> None:
    """55 requests of 100 junk values (5,500 keys) into a table of 1,000 buckets: the junk
    buckets displace each other, the drained one stays."""
    with _limited(
        db_url,
        rate_limit_per_token=0.01,
        rate_limit_token_burst=3,
        rate_limit_max_keys=1000,
    ) as c:
        game, red = _drained(c, 3)
        for _ in range(FLOODS):
            assert c.get("/rulesets", headers=_junk_header(100)).status_code == 200
        _assert_limited(c.get(f"/games/{game}", headers=red), "token")
        # a new token still gets its burst: junk buckets make room for it
        other = {"Authorization": "Bearer a-token-never-seen"}
        assert c.get("/rulesets", headers=other).status_code == 200


def test_a_flood_over_the_ip_limit_charges_no_token(db_url: str) -> None:
    with _limited(
        db_url,
        rate_limit_per_token=0.01,
        rate_limit_token_burst=3,
        rate_limit_per_ip=0.01,
        rate_limit_ip_burst=20,
    ) as c:
        answers = [c.get("/rulesets", headers=_junk_header(100)).status_code for _ in range(25)]
        assert answers == [200] * 20 + [429] * 5
        # refused by the IP bucket before the token's is charged: however often it is sent
        for _ in range(10):
            _assert_limited(c.get("/rulesets", headers={"Authorization": "Bearer t"}), "IP address")
        assert c.get("/healthz").status_code == 200


@pytest.fixture
def db_url(tmp_path: Path, sqlite_template: Path) -> str:
    """SQLite only: the limits are in memory, the same on both databases."""
    path = tmp_path / "referee.db"
    path.write_bytes(sqlite_template.read_bytes())
    return f"sqlite:///{path}"


def _spoofed(url: str, n: int) -> list[httpx.Response]:
    """``n`` requests from loopback, each claiming another client in X-Forwarded-For."""
    with httpx.Client(base_url=url, timeout=30) as c:
        return [
            c.get("/rulesets", headers={"X-Forwarded-For": f"203.0.113.{i + 1}"}) for i in range(n)
        ]


IP_LIMIT = {"REFEREE_RATE_LIMIT_PER_IP": "0.01", "REFEREE_RATE_LIMIT_IP_BURST": "3"}


def test_spoofed_forwarded_for_does_not_move_the_ip_bucket(db_url: str, tmp_path: Path) -> None:
    """The server ``referee serve`` runs (app.server.server_config), default settings: the
    client IP is the socket peer whatever X-Forwarded-For says."""
    env = {**IP_LIMIT, "FORWARDED_ALLOW_IPS": "*"}  # uvicorn's own variable changes nothing
    with server_process(db_url, tmp_path, env=env) as server:
        server.wait_healthy()
        answers = _spoofed(server.url, 6)
        assert [r.status_code for r in answers] == [200] * 3 + [429] * 3
        _assert_limited(answers[-1], "IP address")


def test_forwarded_for_names_the_client_only_from_allowed_proxies(
    db_url: str, tmp_path: Path
) -> None:
    env = {**IP_LIMIT, "REFEREE_FORWARDED_ALLOW_IPS": "127.0.0.1"}
    with server_process(db_url, tmp_path, env=env) as server:
        server.wait_healthy()
        # each named client has its own bucket...
        assert [r.status_code for r in _spoofed(server.url, 6)] == [200] * 6
        # ...and one client is limited whatever connection it comes through
        with httpx.Client(base_url=server.url, timeout=30) as c:
            named = {"X-Forwarded-For": "198.51.100.7"}
            answers = [c.get("/rulesets", headers=named).status_code for _ in range(4)]
        assert answers == [200] * 3 + [429]


def test_referee_serve_forwarded_allow_ips_option(db_url: str) -> None:
    """``referee serve``: no proxy believed by default, the ones --forwarded-allow-ips names
    otherwise."""
    for option, expected in (([], [200] * 3 + [429] * 3), (["127.0.0.1"], [200] * 6)):
        port = free_port()
        args = ["--forwarded-allow-ips", *option] if option else []
        with _cli_serve(db_url, port, args, IP_LIMIT):
            codes = [r.status_code for r in _spoofed(f"http://127.0.0.1:{port}", 6)]
        assert codes == expected, (option, codes)


@contextmanager
def _cli_serve(url: str, port: int, args: list[str], env: dict[str, str]) -> Iterator[None]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from app.cli import main; raise SystemExit(main())",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            *args,
        ],
        env={**os.environ, "REFEREE_DATABASE_URL": url, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)  # exempt from limits
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(proc.stderr.read() if proc.stderr else "") from None
                time.sleep(0.1)
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=30)
