"""Hostile and broken webhook receivers (issue 22, items 3 and 4), on loopback, over a real
server, on both databases: a receiver that answers a byte every half second, one that answers
garbage, one that resets the connection, one that never answers. While one of them is being
served, another game's delivery still arrives within the attempt deadline plus a margin; a
batch holding stored rows no worker can call (a port out of range, a CR LF in the URL) has
every other delivery attempted, and the bad ones recorded as failed attempts.

The short form serves the slow receiver for 10 s; ``REFEREE_RELIABILITY=long`` for 30 s and
three probes per receiver."""

from __future__ import annotations

import secrets
import socket
import struct
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from app.db.models import WebhookRow
from app.main import create_app
from tests.platform.conftest import Game, new_game, platform_settings
from tests.platform.test_webhooks_api import register
from tests.reliability.conftest import LONG
from tests.support.receiver import webhook_receiver
from tests.support.server import running_server

TIMEOUT = 1.0
"""REFEREE_WEBHOOK_TIMEOUT_SECONDS of these tests: the deadline of one attempt."""
MARGIN = 3.0
"""What another delivery may take beyond the deadline (a loaded CI machine)."""
SLOW_SECONDS = 30 if LONG else 10
SLOW_GAP = TIMEOUT / 2
PROBES = 3 if LONG else 1

Behaviour = Callable[[socket.socket, threading.Event], None]


def _read_request(conn: socket.socket) -> None:
    conn.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return
        data += chunk


def slow(conn: socket.socket, stop: threading.Event) -> None:
    """A valid answer, a byte every half deadline (so no single read ever times out), for
    SLOW_SECONDS."""
    _read_request(conn)
    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: " + b"y" * 200 + b"\r\n\r\n"
    for i in range(int(SLOW_SECONDS / SLOW_GAP)):
        conn.sendall(answer[i : i + 1])
        if stop.wait(SLOW_GAP):
            return


def garbage(conn: socket.socket, stop: threading.Event) -> None:
    _read_request(conn)
    conn.sendall(b"\x00\xffNOT HTTP AT ALL\r\n\r\n")


def reset(conn: socket.socket, stop: threading.Event) -> None:
    _read_request(conn)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def silent(conn: socket.socket, stop: threading.Event) -> None:
    _read_request(conn)
    stop.wait(SLOW_SECONDS)


BEHAVIOURS: dict[str, Behaviour] = {
    "slow": slow,
    "garbage": garbage,
    "reset": reset,
    "silent": silent,
}


@contextmanager
def raw_receiver(behaviour: Behaviour) -> Iterator[tuple[str, threading.Event]]:
    """A loopback receiver serving each connection with ``behaviour`` in its own thread;
    yields its URL and an event set once a connection was accepted."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop, accepted = threading.Event(), threading.Event()
    threads: list[threading.Thread] = []

    def serve(conn: socket.socket) -> None:
        try:
            behaviour(conn, stop)
        except OSError:
            pass
        finally:
            conn.close()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            accepted.set()
            thread = threading.Thread(target=serve, args=(conn,), daemon=True)
            thread.start()
            threads.append(thread)

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/hook", accepted
    finally:
        stop.set()
        acceptor.join(5)
        listener.close()
        for thread in threads:
            thread.join(5)


def _settings(db_url: str, **extra: Any) -> Any:
    values: dict[str, Any] = {
        "webhook_timeout_seconds": TIMEOUT,
        "webhook_backoff_seconds": 0.2,
        "webhook_max_attempts": 2,
        **extra,
    }
    return platform_settings(db_url, **values)


def _log(game: Game, seat: str, hook: dict[str, Any]) -> list[dict[str, Any]]:
    r = game.http.get(f"/games/{game.id}/webhooks/{hook['id']}/deliveries", headers=game.auth(seat))
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


@pytest.mark.parametrize("kind", sorted(BEHAVIOURS))
def test_a_bad_receiver_does_not_delay_another_games_delivery(db_url: str, kind: str) -> None:
    latencies: list[float] = []
    app = create_app(_settings(db_url))
    with (
        running_server(app) as url,
        httpx.Client(base_url=url, timeout=30) as http,
        raw_receiver(BEHAVIOURS[kind]) as (bad_url, accepted),
        webhook_receiver() as good,
    ):
        for probe in range(PROBES):
            stuck, other = new_game(http, sequence=True), new_game(http, sequence=True)
            bad_hook = register(stuck, "blue", bad_url, ["your_turn"])
            register(other, "blue", good.url, ["your_turn"])
            accepted.clear()
            stuck.end_phase("red")  # blue's turn: its receiver is the bad one
            assert accepted.wait(10), "the bad receiver was never called"
            started = time.monotonic()
            other.end_phase("red")
            good.wait_for(probe + 1, timeout=SLOW_SECONDS + 5)
            latencies.append(time.monotonic() - started)
            # the bad receiver's attempt is recorded as failed, once its deadline passed
            deadline = time.monotonic() + TIMEOUT + MARGIN + 5
            while time.monotonic() < deadline:
                log = _log(stuck, "blue", bad_hook)
                if log and log[0]["log"]:
                    break
                time.sleep(0.05)
            first = log[0]["log"][0]
            assert first["status"] is None and first["error"], first
    print(f"\n{kind} receiver: other game's delivery after {[round(x, 2) for x in latencies]} s")
    assert max(latencies) < TIMEOUT + MARGIN, latencies


def test_a_slow_receivers_attempt_ends_at_its_deadline(db_url: str) -> None:
    """The attempt at the one-byte-a-second receiver is cut off at the deadline (not when
    the receiver finishes): its log records a timeout within the deadline plus a margin."""
    app = create_app(_settings(db_url))
    with (
        running_server(app) as url,
        httpx.Client(base_url=url, timeout=30) as http,
        raw_receiver(slow) as (bad_url, accepted),
    ):
        game = new_game(http, sequence=True)
        hook = register(game, "blue", bad_url, ["your_turn"])
        game.end_phase("red")
        assert accepted.wait(10)
        started = time.monotonic()
        while time.monotonic() - started < SLOW_SECONDS:
            log = _log(game, "blue", hook)
            if log and log[0]["log"]:
                break
            time.sleep(0.05)
        took = time.monotonic() - started
        attempt = log[0]["log"][0]
    print(f"\nslow receiver: attempt recorded after {took:.2f} s: {attempt['error']}")
    assert attempt["status"] is None and "deadline" in attempt["error"].lower(), attempt
    assert took < TIMEOUT + MARGIN


BAD_STORED_URLS = ["http://127.1:99999/x", "http://bot.example/\r\nX-Evil: 1", "http://127.1/x"]


def test_stored_urls_no_worker_can_call_do_not_stall_the_batch(db_url: str) -> None:
    """Rows stored before the registration check existed (inserted here directly) are each
    recorded as a failed attempt; every other delivery of the batch is sent."""
    good_hooks = 5
    with webhook_receiver() as good:
        first = create_app(_settings(db_url, webhook_worker=False))
        with running_server(first) as url, httpx.Client(base_url=url, timeout=30) as http:
            game = new_game(http, sequence=True)
            for _ in range(good_hooks):
                register(game, "blue", good.url, ["your_turn"])
            with Session(first.state.engine) as session:
                for bad in BAD_STORED_URLS:
                    session.add(
                        WebhookRow(
                            id=str(uuid.uuid4()),
                            game_id=game.id,
                            seat="blue",
                            url=bad,
                            secret=secrets.token_hex(32),
                            events=["your_turn"],
                            created_at=datetime.now(UTC),
                        )
                    )
                session.commit()
            game.end_phase("red")
            with first.state.engine.begin() as conn:  # the bad rows first in the batch
                conn.execute(
                    text(
                        "UPDATE webhook_deliveries SET next_attempt_at = :t WHERE webhook_id IN"
                        " (SELECT id FROM webhooks WHERE url NOT LIKE 'http://127.0.0.1:%')"
                    ),
                    {"t": datetime.now(UTC) - timedelta(minutes=1)},
                )
        second = create_app(_settings(db_url, webhook_max_attempts=1))
        with running_server(second):
            good.wait_for(good_hooks, timeout=15)
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                with second.state.engine.connect() as conn:
                    rows = conn.execute(
                        text(
                            "SELECT w.url, d.status, d.attempts FROM webhook_deliveries d"
                            " JOIN webhooks w ON w.id = d.webhook_id"
                        )
                    ).all()
                if all(r[1] != "pending" for r in rows):
                    break
                time.sleep(0.05)
    by_url = sorted((r[0], r[1], r[2]) for r in rows)
    assert len(by_url) == good_hooks + len(BAD_STORED_URLS)
    assert [r for r in by_url if r[0] in BAD_STORED_URLS] == sorted(
        (u, "failed", 1) for u in BAD_STORED_URLS
    )
    assert [r[1:] for r in by_url if r[0] not in BAD_STORED_URLS] == [("delivered", 1)] * good_hooks
