"""A clock that runs out while nobody writes reaches SSE listeners: the stream settles the
game's clock when it opens and on every keep-alive tick (real server, injected time source,
both databases)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests.match.flowkit import FakeClock, tiny_scenario
from tests.support.server import running_server
from tests.support.sse import SseStream

KEEPALIVE = 0.2
CONTROL = {"budget_seconds": 100, "on_expiry": "forfeit"}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def http(db_url: str, clock: FakeClock) -> Iterator[httpx.Client]:
    settings = Settings(database_url=db_url, sse_keepalive_seconds=KEEPALIVE, sse_poll_seconds=0.2)
    app = create_app(settings, clock=clock)
    with running_server(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        yield client


def _game(http: httpx.Client) -> str:
    r = http.post(
        "/games", json={"ruleset": "tiny", "scenario": tiny_scenario(), "match": {"clock": CONTROL}}
    )
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def test_keep_alive_tick_settles_an_expired_clock(http: httpx.Client, clock: FakeClock) -> None:
    game = _game(http)
    base = str(http.base_url).rstrip("/")
    with SseStream(base, f"/games/{game}/events/stream") as stream:
        stream.wait_comment("stream open", 5)
        assert stream.quiet(2 * KEEPALIVE)  # time left: nothing happens
        clock.advance(101)  # red's 100 s run out; nobody sends a request
        event = stream.next_event(10)
    assert event.event == "clock_expired", event
    body = event.json()
    assert body["payload"] == {"sides": ["red"], "on_expiry": "forfeit", "winner": "blue"}
    view = http.get(f"/games/{game}").json()
    assert view["status"] == "finished" and view["winner"] == "blue"
    assert view["version"] == 2  # settled exactly once


def test_opening_a_stream_settles_the_clock_first(http: httpx.Client, clock: FakeClock) -> None:
    game = _game(http)
    clock.advance(150)
    base = str(http.base_url).rstrip("/")
    with SseStream(base, f"/games/{game}/events/stream") as stream:
        event = stream.next_event(5)
    assert event.event == "clock_expired" and event.id == "1"
