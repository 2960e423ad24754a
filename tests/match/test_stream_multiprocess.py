"""Two real server processes on one PostgreSQL database: an action posted to one is streamed
by the other, woken by LISTEN/NOTIFY.

Polling and keep-alives are set to a minute in both processes, so only a notification can
deliver the event within the test's deadline. Every wait is bounded; a failure names what did
not happen and shows the servers' stderr. Runs wherever the throwaway PostgreSQL cluster
starts -- in CI (CI=true) it must start, or the run fails (tests/conftest.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.process import ServerProcess, server_process
from tests.support.sse import SseStream
from tests.support.tiny import TINY

pytestmark = pytest.mark.pg

START_TIMEOUT = 30.0
DELIVERY_TIMEOUT = 10.0


@pytest.fixture
def two_servers(pg_url: str, tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    env = {"REFEREE_SSE_KEEPALIVE_SECONDS": "60", "REFEREE_SSE_POLL_SECONDS": "60"}
    with (
        server_process(pg_url, tmp_path, env) as first,
        server_process(pg_url, tmp_path, env) as second,
    ):
        first.wait_healthy(START_TIMEOUT)
        second.wait_healthy(START_TIMEOUT)
        yield first, second


def test_an_action_posted_to_one_process_is_streamed_by_the_other(
    two_servers: tuple[ServerProcess, ServerProcess],
) -> None:
    a, b = two_servers
    with httpx.Client(timeout=15) as http:
        created = http.post(
            f"{a.url}/games", json={"ruleset": "tiny", "scenario": TINY.example_scenario()}
        )
        assert created.status_code == 201, created.text
        gid, seats = created.json()["id"], created.json()["seats"]
        red = {"Authorization": f"Bearer {seats['red']}", "If-Match": "*"}

        with (
            SseStream(b.url, f"/games/{gid}/events/stream") as on_b,
            SseStream(a.url, f"/games/{gid}/events/stream") as on_a,
        ):
            assert on_b.status == 200, f"stream on B: {on_b.status} {on_b.body}"
            on_b.wait_comment("stream open", timeout=10)
            on_a.wait_comment("stream open", timeout=10)
            # `stream open` is sent once the process LISTENs: from then on nothing is missed
            assert on_b.quiet(0.2), "an event arrived before any was posted"

            posted = http.post(
                f"{a.url}/games/{gid}/actions",
                json={"kind": "step", "pawn": "r1", "n": 2},
                headers=red,
            )
            assert posted.status_code == 201, posted.text
            try:
                got = on_b.next_event(timeout=DELIVERY_TIMEOUT)
            except AssertionError as exc:
                pytest.fail(
                    "process B did not stream the action posted to A within "
                    f"{DELIVERY_TIMEOUT} s ({exc}).\nB stderr:\n{b.output()}"
                )
            assert (got.id, got.event) == ("1", "step")
            assert got.json()["action"] == {"kind": "step", "pawn": "r1", "n": 2}
            assert on_a.next_event(timeout=DELIVERY_TIMEOUT).id == "1"

            # and the other way round, through the second process
            posted = http.post(
                f"{b.url}/games/{gid}/actions",
                json={"kind": "step", "pawn": "r1", "n": 1},
                headers=red,
            )
            assert posted.status_code == 201, posted.text
            assert on_a.next_event(timeout=DELIVERY_TIMEOUT).id == "2"
            assert on_b.next_event(timeout=DELIVERY_TIMEOUT).id == "2"
