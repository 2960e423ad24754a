"""Caddy in front of the real Referee server, on loopback, over TLS.

``deploy/Caddyfile`` is checked by Caddy's own binary (``caddy validate``, ``caddy adapt``);
then the real server (``tests.support.process.server_process``, SQLite) runs behind the real
Caddy serving the same Caddyfile with a throwaway certificate (``tests/deploy/stack.py``), and
the tests play through it over HTTPS: a game, an action, the live event stream (which must
arrive at once: no buffering, and must outlive Caddy's slow-client timeouts), and the client
address the app sees (through the per-IP rate limiter: the client connects from 127.0.0.2 and
the app must key it as 127.0.0.2, not as the proxy's 127.0.0.1, and must ignore an
``X-Forwarded-For`` the client forges), and request bodies read whole by Caddy before they are
sent on (so no answer is cut short: docs/OPERATIONS.md, "Behind Caddy: answers cut short under
load"). Skipped without ``caddy`` locally; fails in CI.
"""

from __future__ import annotations

import json
import os
import queue
import socket
import ssl
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.db.migrate import upgrade
from tests.deploy.stack import (
    CADDYFILE,
    CaddyProcess,
    Certs,
    caddy_env,
    caddy_process,
    make_certs,
    require_caddy,
)
from tests.support.process import ServerProcess, server_process
from tests.support.tiny import TINY

READ_HEADER = 1.0  # Caddy's read_header / idle timeouts in the test, seconds
IDLE = 2.0
READ_BODY = 3.0  # Caddy's read_body in the test: above READ_HEADER, from whose start it counts
IP_BURST = 40
EVENT_DEADLINE = 1.0  # an event must cross the proxy within this (it takes milliseconds)


@dataclass
class Stack:
    app: ServerProcess
    caddy: CaddyProcess
    certs: Certs

    def client(self, local: str, *, direct: bool = False, http2: bool = False) -> httpx.Client:
        """A client whose connections leave from ``local`` (a loopback address): through
        Caddy over HTTPS (HTTP/2 with ``http2``), or straight to the app over HTTP with
        ``direct``."""
        # TCP_NODELAY: httpx writes a request's head and body separately, and Nagle's
        # algorithm would hold the body for the server's delayed ACK (40 ms on Linux)
        options = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
        if direct:
            transport = httpx.HTTPTransport(local_address=local, socket_options=options)
            return httpx.Client(base_url=self.app.url, transport=transport, timeout=15)
        transport = httpx.HTTPTransport(
            local_address=local,
            verify=self.certs.context(),
            socket_options=options,
            http2=http2,
            http1=not http2,
        )
        return httpx.Client(base_url=self.caddy.url, transport=transport, timeout=15)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    binary = require_caddy()
    work = tmp_path_factory.mktemp("caddy")
    certs = make_certs(work, names=("localhost",), ips=("127.0.0.1",))
    url = f"sqlite:///{work / 'referee.db'}"
    upgrade(url)
    env = {
        # what the compose file sets: proxy headers trusted from the proxy's address only
        # (uvicorn's own default today is 127.0.0.1 as well)
        "REFEREE_FORWARDED_ALLOW_IPS": "127.0.0.1",
        "REFEREE_RATE_LIMIT_PER_IP": "0.001",
        "REFEREE_RATE_LIMIT_IP_BURST": str(IP_BURST),
        "REFEREE_SSE_KEEPALIVE_SECONDS": "60",
    }
    with server_process(url, work, env) as app:
        app.wait_healthy()
        caddy_vars = {
            "REFEREE_DOMAIN": "127.0.0.1",
            "REFEREE_UPSTREAM": f"127.0.0.1:{app.port}",
            "REFEREE_READ_HEADER_TIMEOUT": f"{READ_HEADER:g}s",
            "REFEREE_IDLE_TIMEOUT": f"{IDLE:g}s",
            "REFEREE_READ_BODY_TIMEOUT": f"{READ_BODY:g}s",
        }
        with caddy_process(binary, work, certs, caddy_vars) as caddy:
            caddy.wait_ready(certs.context())
            yield Stack(app, caddy, certs)


class Stream:
    """An event stream read in a thread; each event is queued with its arrival time."""

    def __init__(self, client: httpx.Client, path: str, headers: dict[str, str]) -> None:
        self.events: queue.Queue[tuple[float, str, Any]] = queue.Queue()
        self.comments: list[str] = []
        self.opened = threading.Event()
        self.status: int | None = None
        self.version: str | None = None
        self.error: BaseException | None = None
        self._ctx = client.stream(
            "GET", path, headers=headers, timeout=httpx.Timeout(30, connect=10)
        )
        self._response: httpx.Response | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self.opened.wait(15), f"no answer to GET {path}"
        assert self.status == 200, f"GET {path}: {self.status} {self.error!r}"

    def _run(self) -> None:
        try:
            with self._ctx as r:
                self._response = r
                self.status = r.status_code
                self.version = r.http_version
                self.opened.set()
                kind, data = "message", list[str]()
                for line in r.iter_lines():
                    if line == "":
                        if data:
                            self.events.put((time.perf_counter(), kind, json.loads("".join(data))))
                        kind, data = "message", []
                    elif line.startswith(":"):
                        self.comments.append(line[1:].strip())
                    elif line.startswith("event:"):
                        kind = line[6:].strip()
                    elif line.startswith("data:"):
                        data.append(line[5:].strip())
        except BaseException as exc:
            self.error = exc
        finally:
            self.opened.set()

    def next(self, timeout: float) -> tuple[float, str, Any]:
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no event within {timeout} s (comments {self.comments}, error {self.error!r})"
            ) from None

    def wait_open(self, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while "stream open" not in self.comments:
            assert time.monotonic() < deadline, f"stream not open: {self.comments}"
            time.sleep(0.01)

    def close(self) -> None:
        # the reader thread owns the stream's context: closing the response ends its read,
        # and the thread leaves the context itself (exiting it from here raced the thread)
        if self._response is not None:
            self._response.close()
        self._thread.join(10)


def _new_game(http: httpx.Client) -> tuple[str, dict[str, str]]:
    r = http.post(
        "/games",
        json={"ruleset": "tiny", "scenario": TINY.example_scenario(), "options": {"wrap": True}},
    )
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["seats"]


def _step(http: httpx.Client, gid: str, token: str, n: int = 1) -> httpx.Response:
    r = http.post(
        f"/games/{gid}/actions",
        json={"kind": "step", "pawn": "r1", "n": n},
        headers={"Authorization": f"Bearer {token}", "If-Match": "*"},
    )
    assert r.status_code == 201, r.text
    return r


# -- the Caddyfile, checked by Caddy itself ---------------------------------------------------


def _caddy_cli(tmp_path: Path, command: str, **env: str) -> subprocess.CompletedProcess[str]:
    binary = require_caddy()
    return subprocess.run(
        [binary, command, "--adapter", "caddyfile", "--config", str(CADDYFILE)],
        cwd=tmp_path,
        env=caddy_env(tmp_path, env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_caddy_validates_the_shipped_caddyfile(tmp_path: Path) -> None:
    done = _caddy_cli(tmp_path, "validate", REFEREE_DOMAIN="play.example.org")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Valid configuration" in done.stdout + done.stderr


def test_caddy_adapts_the_shipped_caddyfile_to_what_the_deployment_needs(tmp_path: Path) -> None:
    done = _caddy_cli(
        tmp_path, "adapt", REFEREE_DOMAIN="play.example.org", REFEREE_UPSTREAM="app-public:8000"
    )
    assert done.returncode == 0, done.stderr
    config = json.loads(done.stdout)
    (server,) = config["apps"]["http"]["servers"].values()
    assert server["listen"] == [":443"]  # automatic HTTPS (and the :80 redirect) for the name
    (route,) = server["routes"]
    assert route["match"] == [{"host": ["play.example.org"]}]
    handlers = [h for r in route["handle"][0]["routes"] for h in r["handle"]]
    proxy = handlers[-1]
    assert proxy["handler"] == "reverse_proxy"
    assert proxy["upstreams"] == [{"dial": "app-public:8000"}]
    assert proxy["flush_interval"] == -1, "event streams must not be buffered"
    # request bodies read whole before they go upstream (the cut-short answers), bounded
    assert proxy.get("buffer_requests") is True, "a streamed request body can cut answers short"
    assert "max_buffer_size" not in proxy, "2.6.2 counts every body as partly buffered with it"
    assert handlers[:-1] == [{"handler": "request_body", "max_size": 2 * 1024 * 1024}]
    assert handlers[0]["max_size"] > Settings().max_body_bytes, "the app's 413 must stay its own"
    # slow-client timeouts, and never a write (or whole-request read) timeout: streams last
    assert server["read_header_timeout"] == 10 * 10**9
    assert server["idle_timeout"] == 120 * 10**9
    assert server["read_timeout"] == 60 * 10**9  # read_body: Go clears it once a body is read
    assert "write_timeout" not in server
    # no ACME policy overrides: Caddy's automatic HTTPS obtains the certificate
    assert "tls" not in config.get("apps", {})


def test_the_body_buffering_can_be_spelled_for_another_caddy(tmp_path: Path) -> None:
    """REFEREE_PROXY_REQUEST_BUFFERING replaces the default spelling as a whole (Caddy 2.8+,
    compose's caddy:2, takes ``request_buffers 4MiB``, which this Caddy 2.6 cannot parse: an
    old two-word directive stands in to show the words are read as a directive)."""
    done = _caddy_cli(
        tmp_path,
        "adapt",
        REFEREE_DOMAIN="play.example.org",
        REFEREE_PROXY_REQUEST_BUFFERING="max_buffer_size 3MiB",
    )
    assert done.returncode == 0, done.stderr
    (server,) = json.loads(done.stdout)["apps"]["http"]["servers"].values()
    proxy = [h for r in server["routes"][0]["handle"][0]["routes"] for h in r["handle"]][-1]
    assert proxy["max_buffer_size"] == 3 * 1024 * 1024 and "buffer_requests" not in proxy


def test_the_caddyfile_without_a_domain_is_refused(tmp_path: Path) -> None:
    done = _caddy_cli(tmp_path, "validate")
    assert done.returncode != 0


# -- through the real proxy -------------------------------------------------------------------


def test_a_game_is_played_through_caddy_over_https(stack: Stack) -> None:
    with stack.client("127.0.0.3") as http:
        health = http.get("/healthz")
        assert health.status_code == 200 and health.http_version == "HTTP/1.1"
        gid, seats = _new_game(http)
        assert http.get(f"/games/{gid}").status_code == 200
        stream = Stream(http, f"/games/{gid}/events/stream", {})
        try:
            stream.wait_open()
            posted = _step(http, gid, seats["red"], 2)
            sent = time.perf_counter()
            arrived, _, event = stream.next(EVENT_DEADLINE)
            assert event["seq"] == posted.json()["event"], (event, posted.json())
            assert arrived - sent < EVENT_DEADLINE
        finally:
            stream.close()
        events = http.get(f"/games/{gid}/events")
        assert events.status_code == 200
        assert [e["seq"] for e in events.json()["items"]][-1] == event["seq"]


@pytest.mark.parametrize("http2", [False, True], ids=["HTTP/1.1", "HTTP/2"])
def test_an_event_stream_outlives_the_proxys_slow_client_timeouts(
    stack: Stack, http2: bool
) -> None:
    """No write timeout, and read_body is no deadline for a stream: a quiet stream (keep-alive
    comments every 60 s here) stays open past read_header, read_body and idle, and the next
    event still arrives at once; over HTTP/1.1 and HTTP/2."""
    with stack.client("127.0.0.4", http2=http2) as http:
        gid, seats = _new_game(http)
        stream = Stream(http, f"/games/{gid}/events/stream", {})
        try:
            stream.wait_open()
            assert stream.version == ("HTTP/2" if http2 else "HTTP/1.1")
            time.sleep(max(2 * READ_HEADER, 2 * IDLE, READ_BODY) + 0.5)
            assert stream.error is None, stream.error
            _step(http, gid, seats["red"])
            sent = time.perf_counter()
            arrived, _, _ = stream.next(EVENT_DEADLINE)
            assert arrived - sent < EVENT_DEADLINE
        finally:
            stream.close()


def _answer_or_close(tls: ssl.SSLSocket, started: float | None = None) -> tuple[bytes, float]:
    """What the proxy sends first (b"" if it closes or resets) and the seconds since
    ``started`` (by default, now) it took."""
    started = time.monotonic() if started is None else started
    try:
        got = tls.recv(4096)
    except (ConnectionError, ssl.SSLError):
        got = b""
    return got, time.monotonic() - started


def test_a_client_that_sends_its_head_slowly_is_cut_by_the_proxy(stack: Stack) -> None:
    raw = socket.create_connection(("127.0.0.1", stack.caddy.port), timeout=10)
    tls = stack.certs.context().wrap_socket(raw, server_hostname="127.0.0.1")
    try:
        tls.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
        got, waited = _answer_or_close(tls)
        assert not got.startswith(b"HTTP/1.1 200"), got
        assert waited < READ_HEADER + 3, f"closed after {waited:.1f} s"
    finally:
        tls.close()


def test_a_client_that_sends_its_body_slowly_is_cut_by_the_proxy(stack: Stack) -> None:
    """Caddy reads a body whole before it goes on (the app's body timeout does not see it):
    read_body bounds it. A submission whose body never ends is answered or closed by the
    proxy within read_body of its head, and nothing reaches the app."""
    with stack.client("127.0.0.5") as http:
        gid, seats = _new_game(http)
        before = http.get(f"/games/{gid}").json()["version"]
    raw = socket.create_connection(("127.0.0.1", stack.caddy.port), timeout=READ_BODY + 10)
    tls = stack.certs.context().wrap_socket(raw, server_hostname="127.0.0.1")
    body = json.dumps({"kind": "step", "pawn": "r1", "n": 1}).encode()
    try:
        started = time.monotonic()
        tls.sendall(
            f"POST /games/{gid}/actions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {seats['red']}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body[:5]  # the rest never sent
        )
        got, waited = _answer_or_close(tls, started)
        assert not got.startswith(b"HTTP/1.1 2"), got
        assert READ_BODY - 0.5 < waited < READ_BODY + 3, f"closed after {waited:.1f} s"
    finally:
        tls.close()
    with stack.client("127.0.0.5") as http:
        assert http.get(f"/games/{gid}").json()["version"] == before


def _exhaust(http: httpx.Client) -> int:
    """Requests until the IP's bucket answers 429; how many passed."""
    for passed in range(IP_BURST + 5):
        r = http.get("/rulesets")
        if r.status_code == 429:
            assert r.json()["limit"] == "IP address"
            return passed
        assert r.status_code == 200, r.text
    raise AssertionError(f"no 429 after {IP_BURST + 5} requests: the IP limit is not applied")


def test_the_app_sees_the_players_address_not_the_proxys(stack: Stack) -> None:
    """The per-IP limiter keys on the address the app sees. Spend 127.0.0.2's bucket through
    Caddy; then 127.0.0.2 is limited also straight at the app (so the key was exactly
    127.0.0.2), the proxy's own 127.0.0.1 and another player are not, and a forged
    X-Forwarded-For through Caddy does not escape the limit."""
    with stack.client("127.0.0.2") as player:
        assert _exhaust(player) >= IP_BURST - 1
        forged = player.get("/rulesets", headers={"X-Forwarded-For": "203.0.113.9"})
        assert forged.status_code == 429, "a client-sent X-Forwarded-For must not be believed"
    with stack.client("127.0.0.2", direct=True) as same_player_direct:
        assert same_player_direct.get("/rulesets").status_code == 429
    with stack.client("127.0.0.1", direct=True) as proxy_address:
        assert proxy_address.get("/rulesets").status_code == 200
    with stack.client("127.0.0.5") as other_player:
        assert other_player.get("/rulesets").status_code == 200


def _one_run(http: httpx.Client, gid: str, token: str, stream: Stream) -> tuple[float, ...]:
    """A read's round trip (GET the game), an action's, and the time from sending the action
    to its event arriving on the stream (milliseconds)."""
    start = time.perf_counter()
    assert http.get(f"/games/{gid}").status_code == 200
    read = time.perf_counter() - start
    start = time.perf_counter()
    _step(http, gid, token)
    acted = time.perf_counter() - start
    arrived, _, _ = stream.next(EVENT_DEADLINE * 5)
    return read * 1000, acted * 1000, (arrived - start) * 1000


CADDY_ABORT = "aborting with incomplete response"
"""What Caddy logs when it stops reading an answer of the app half-way (the fault of
docs/OPERATIONS.md, "Behind Caddy: answers cut short under load", gone since Caddy reads
request bodies whole)."""


def _caddy_aborts(stack: Stack) -> int:
    """How many times Caddy's log says so (read without moving the offset Caddy writes at)."""
    fd = stack.caddy.log.fileno()
    text = os.pread(fd, os.fstat(fd).st_size, 0).decode(errors="replace")
    return text.count(CADDY_ABORT)


def test_proxy_figures(stack: Stack, capsys: pytest.CaptureFixture[str]) -> None:
    """The cost of the proxy on loopback: a read's and an action's round trip, and how long
    the action's event takes to reach a stream, through Caddy (HTTPS) and straight at the app
    (HTTP); runs alternate between the two, medians."""
    runs = 15
    results: dict[str, list[tuple[float, ...]]] = {"direct": [], "caddy": []}
    with (
        stack.client("127.0.0.6", direct=True) as direct,
        stack.client("127.0.0.7") as proxied,
    ):
        setups = {}
        for label, http in (("direct", direct), ("caddy", proxied)):
            gid, seats = _new_game(http)
            _step(http, gid, seats["red"])  # warm: connection and TLS session set up
            stream = Stream(http, f"/games/{gid}/events/stream", {})
            stream.wait_open()
            stream.next(EVENT_DEADLINE * 5)  # the warm-up step, replayed from the log
            setups[label] = (http, gid, seats["red"], stream)
        try:
            for _ in range(runs):
                for label, (http, gid, token, stream) in setups.items():
                    results[label].append(_one_run(http, gid, token, stream))
        finally:
            for _, _, _, stream in setups.values():
                stream.close()
    out = {k: [statistics.median(col) for col in zip(*v, strict=True)] for k, v in results.items()}
    with capsys.disabled():
        print(
            f"\nproxy figures ({runs} runs each, alternating, median ms, direct / through "
            f"caddy): GET game {out['direct'][0]:.1f} / {out['caddy'][0]:.1f}; action round "
            f"trip {out['direct'][1]:.1f} / {out['caddy'][1]:.1f}; its event on the stream "
            f"{out['direct'][2]:.1f} / {out['caddy'][2]:.1f}"
        )
    assert out["caddy"][2] < EVENT_DEADLINE * 1000
    assert _caddy_aborts(stack) == 0, stack.caddy.output()


def test_request_bodies_up_to_the_apps_limit_reach_the_app_whole(stack: Stack) -> None:
    """Caddy buffers bodies and refuses those over its own limit; the app's limit is below
    it, so a body at the app's limit reaches the app (which reads it: 422, not JSON it takes)
    and one a byte over gets the app's own 413 problem+json, whole."""
    limit = Settings().max_body_bytes
    with stack.client("127.0.0.8") as http:
        for size, status, code in (
            (limit, 422, "request.invalid"),
            *[(limit + 1, 413, "request.too_large")] * 20,  # the 413 never lost to a reset
        ):
            body = b'{"a":"' + b"x" * (size - 8) + b'"}'
            r = http.post("/games", content=body, headers={"Content-Type": "application/json"})
            assert r.status_code == status, (size, r.status_code, r.text[:300])
            assert r.headers["content-type"] == "application/problem+json"
            assert r.json()["code"] == code
    assert _caddy_aborts(stack) == 0
