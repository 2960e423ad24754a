"""GET /games/{id}/events/stream over a real socket (uvicorn in a thread), on both databases:
the SSE wire format, live delivery, resume with Last-Event-ID / ?after= without gap or
duplicate, keep-alives, authentication (header or ?access_token=) and errors before streaming."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.db.models import EventRow
from app.db.uow import SqlAlchemyUnitOfWork
from app.main import create_app
from tests.support.server import running_server
from tests.support.sse import SseStream
from tests.support.tiny import TINY

KEEPALIVE = 0.3


@pytest.fixture
def base_url(db_url: str) -> Iterator[str]:
    settings = Settings(database_url=db_url, sse_keepalive_seconds=KEEPALIVE, sse_poll_seconds=0.2)
    app = create_app(settings)
    with running_server(app) as url:
        yield url


@dataclass
class Game:
    id: str
    seats: dict[str, str]
    http: httpx.Client

    def auth(self, seat: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.seats[seat]}"}

    def step(self, seat: str, pawn: str, n: int) -> dict[str, Any]:
        r = self.http.post(
            f"/games/{self.id}/actions",
            json={"kind": "step", "pawn": pawn, "n": n},
            headers={**self.auth(seat), "If-Match": "*"},
        )
        assert r.status_code == 201, r.text
        body: dict[str, Any] = r.json()
        return body


@pytest.fixture
def http(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=30) as c:
        yield c


def new_game(http: httpx.Client, public: bool = True) -> Game:
    r = http.post(
        "/games", json={"ruleset": "tiny", "scenario": TINY.example_scenario(), "public": public}
    )
    assert r.status_code == 201, r.text
    return Game(r.json()["id"], r.json()["seats"], http)


def test_stream_replays_then_delivers_live_in_the_events_list_format(
    base_url: str, http: httpx.Client
) -> None:
    game = new_game(http)
    game.step("red", "r1", 1)
    game.step("blue", "b1", -1)
    with SseStream(base_url, f"/games/{game.id}/events/stream") as stream:
        assert stream.status == 200, stream.body
        assert stream.response_headers["content-type"].startswith("text/event-stream")
        assert stream.response_headers["cache-control"].startswith("no-cache")
        first = stream.events(2, timeout=10)
        listed = http.get(f"/games/{game.id}/events").json()["items"]
        assert [(e.id, e.event) for e in first] == [("1", "step"), ("2", "step")]
        assert [e.json() for e in first] == listed
        assert stream.quiet(0.3)

        game.step("red", "r1", 2)  # live: committed after the stream caught up
        live = stream.next_event(timeout=5)
        assert (live.id, live.event) == ("3", "step")
        assert live.json() == http.get(f"/games/{game.id}/events/3").json()
        assert live.json()["action"] == {"kind": "step", "pawn": "r1", "n": 2}


def test_resume_with_last_event_id_or_after_has_no_gap_and_no_duplicate(
    base_url: str, http: httpx.Client
) -> None:
    game = new_game(http)
    for n in range(4):
        game.step("red", "r1", 1 if n % 2 == 0 else -1)
    path = f"/games/{game.id}/events/stream"
    with SseStream(base_url, path, headers={"Last-Event-ID": "2"}) as stream:
        assert [e.id for e in stream.events(2, timeout=10)] == ["3", "4"]
        game.step("red", "r1", 1)
        assert stream.next_event(timeout=5).id == "5"
        assert stream.quiet(0.3)
    # Last-Event-ID (sent by a reconnecting EventSource) wins over the URL's ?after=
    with SseStream(base_url, path, headers={"Last-Event-ID": "4"}, params={"after": "1"}) as s:
        assert [e.id for e in s.events(1, timeout=10)] == ["5"]
        assert s.quiet(0.3)
    with SseStream(base_url, path, params={"after": "3"}) as s:
        assert [e.id for e in s.events(2, timeout=10)] == ["4", "5"]
    with SseStream(base_url, path, headers={"Last-Event-ID": "5"}) as s:
        assert s.quiet(0.5)  # caught up: nothing is sent again


def test_keep_alive_comments_while_idle(base_url: str, http: httpx.Client) -> None:
    game = new_game(http)
    with SseStream(base_url, f"/games/{game.id}/events/stream") as stream:
        stream.wait_comment("stream open", timeout=5)
        stream.wait_comment("keep-alive", timeout=KEEPALIVE * 10)
        assert any(line.startswith("retry: ") for line in stream.raw)
        assert stream.quiet(0.1)  # comments are not events


def test_private_game_needs_a_seat_token_in_header_or_query(
    base_url: str, http: httpx.Client
) -> None:
    game = new_game(http, public=False)
    game.step("red", "r1", 1)
    path = f"/games/{game.id}/events/stream"
    with SseStream(base_url, path) as anonymous:
        assert anonymous.status == 401
        assert anonymous.response_headers["content-type"] == "application/problem+json"
        assert '"auth.required"' in anonymous.body
    with SseStream(base_url, path, params={"access_token": "wrong"}) as wrong:
        assert wrong.status == 401 and '"auth.invalid_token"' in wrong.body
    with SseStream(base_url, path, params={"access_token": game.seats["blue"]}) as by_query:
        assert by_query.next_event(timeout=10).id == "1"
    with SseStream(base_url, path, headers=game.auth("umpire")) as by_header:
        assert by_header.next_event(timeout=10).id == "1"


def test_errors_before_streaming_are_problems(base_url: str, http: httpx.Client) -> None:
    game = new_game(http)
    with SseStream(base_url, "/games/00000000-0000-4000-8000-000000000000/events/stream") as s:
        assert s.status == 404 and '"game.not_found"' in s.body
    with SseStream(
        base_url, f"/games/{game.id}/events/stream", headers={"Last-Event-ID": "abc"}
    ) as s:
        assert s.status == 422 and '"stream.invalid_cursor"' in s.body
    with SseStream(base_url, f"/games/{game.id}/events/stream", params={"after": "-1"}) as s:
        assert s.status == 422
    # /events/{seq} still answers for numbers
    assert http.get(f"/games/{game.id}/events/1").status_code == 404


def test_sealed_orders_stream_receipts_then_the_reveal(base_url: str, http: httpx.Client) -> None:
    created = http.post("/games", json={"ruleset": "blind", "scenario": {"budget": 5}})
    gid, seats = created.json()["id"], created.json()["seats"]
    with SseStream(base_url, f"/games/{gid}/events/stream") as stream:
        stream.wait_comment("stream open", timeout=5)
        for side, bid in (("red", 2), ("blue", 3)):
            r = http.post(
                f"/games/{gid}/sealed/bid.r1",
                json={"bid": bid, "motto": f"secret-{side}"},
                headers={"Authorization": f"Bearer {seats[side]}", "If-Match": "*"},
            )
            assert r.status_code == 201, r.text
            if side == "red":
                receipt = stream.next_event(timeout=5)
                assert receipt.event == "sealed_received"
                assert "secret-red" not in receipt.data
        rest = stream.events(2, timeout=5)
        assert [(e.id, e.event) for e in rest] == [
            ("2", "sealed_received"),
            ("3", "sealed_revealed"),
        ]
        assert "secret-red" in rest[1].data and "secret-blue" in rest[1].data


@pytest.fixture
def served(db_url: str) -> Iterator[tuple[str, FastAPI]]:
    settings = Settings(database_url=db_url, sse_keepalive_seconds=KEEPALIVE, sse_poll_seconds=0.2)
    app = create_app(settings)
    with running_server(app) as url:
        yield url, app


def _append_private_event(app: FastAPI, game_id: str, visible_to: list[str]) -> int:
    """Append an event only ``visible_to`` may read, as a match-flow feature would (no event
    kind restricts its readers yet, so the row is written through the repository here)."""
    uow = SqlAlchemyUnitOfWork(app.state.session_factory)
    with uow.begin(write=True):
        row, _ = uow.games.get(game_id) or (None, None)
        assert row is not None
        version = row.version
        assert uow.games.advance(
            game_id, expected_version=version, state=row.state, status=row.status
        )
        uow.games.append_event(
            EventRow(
                game_id=game_id,
                seq=version,
                seat="umpire",
                kind="umpire_note",
                action={},
                ruling={"legal": True, "summary": "private-note-for-red"},
                dice=[],
                version=version + 1,
                payload={"text": "private-note-for-red"},
                visible_to=visible_to,
            )
        )
        uow.commit()
    return version


def test_hidden_events_are_redacted_not_dropped_on_every_read_path(
    served: tuple[str, FastAPI],
) -> None:
    base_url, app = served
    with httpx.Client(base_url=base_url, timeout=30) as http:
        game = new_game(http)
        game.step("red", "r1", 1)
        readers = {"spectator": {}, "blue": game.auth("blue"), "red": game.auth("red")}
        streams = {
            name: SseStream(base_url, f"/games/{game.id}/events/stream", headers=headers)
            for name, headers in {**readers, "umpire": game.auth("umpire")}.items()
        }
        for s in streams.values():
            s.__enter__()
        try:
            for s in streams.values():
                assert s.next_event(timeout=10).id == "1"
            seq = _append_private_event(app, game.id, ["red"])
            game.step("blue", "b1", -1)
            for name, s in streams.items():
                got = s.events(2, timeout=10)
                assert [e.id for e in got] == [str(seq), str(seq + 1)], name  # no gap
                hidden = name in ("spectator", "blue")
                assert got[0].event == ("redacted" if hidden else "umpire_note"), name
                assert ("private-note-for-red" in got[0].data) is not hidden, name
        finally:
            for s in streams.values():
                s.close()
        for name, headers in readers.items():
            items = http.get(f"/games/{game.id}/events", headers=headers).json()["items"]
            assert [e["seq"] for e in items] == [1, 2, 3]
            one = http.get(f"/games/{game.id}/events/2", headers=headers).json()
            assert one == items[1]
            if name == "red":
                assert one["kind"] == "umpire_note" and one["visible_to"] == ["red"]
                assert one["payload"] == {"text": "private-note-for-red"}
            else:
                assert one == {
                    "seq": 2,
                    "seat": None,
                    "kind": "redacted",
                    "action": {},
                    "ruling": None,
                    "dice": [],
                    "version": 3,
                    "created_at": one["created_at"],
                    "payload": None,
                    "visible_to": None,
                    "redacted": True,
                    "ruleset_version": None,
                }


def test_a_stream_ends_after_its_lifetime_and_resumes_without_loss(db_url: str) -> None:
    settings = Settings(
        database_url=db_url, sse_keepalive_seconds=5, sse_poll_seconds=0.2, sse_max_seconds=0.5
    )
    with running_server(create_app(settings)) as url, httpx.Client(base_url=url) as http:
        game = new_game(http)
        game.step("red", "r1", 1)
        path = f"/games/{game.id}/events/stream"
        with SseStream(url, path) as first:
            assert first.next_event(timeout=5).id == "1"
            first.wait_closed(timeout=5)
            assert "stream end: reconnect with Last-Event-ID" in first.comments
        game.step("red", "r1", 1)
        with SseStream(url, path, headers={"Last-Event-ID": "1"}) as second:
            assert [e.id for e in second.events(1, timeout=5)] == ["2"]
            second.wait_closed(timeout=5)
        assert second.error is None and first.error is None


def test_private_action_events_are_redacted_for_other_readers_everywhere(
    base_url: str, http: httpx.Client
) -> None:
    """A ruleset marks an action private (tiny: notes are for the umpire): its event and ruling
    reach the umpire and the writer only — redacted in the list, the single event and the
    stream for the other side and for spectators."""
    game = new_game(http)
    marker = "SECRET-NOTE-4711"
    r = http.post(
        f"/games/{game.id}/actions",
        json={"kind": "note", "text": marker},
        headers={**game.auth("red"), "If-Match": "*"},
    )
    assert r.status_code == 201, r.text
    for seat in (None, "blue"):
        headers = game.auth(seat) if seat else {}
        listed = http.get(f"/games/{game.id}/events", headers=headers)
        single = http.get(f"/games/{game.id}/events/1", headers=headers)
        assert listed.status_code == single.status_code == 200
        assert marker not in listed.text and marker not in single.text
        assert single.json()["kind"] == "redacted"
        with SseStream(base_url, f"/games/{game.id}/events/stream", headers=headers) as stream:
            event = stream.next_event(timeout=10)
            assert event.event == "redacted" and marker not in event.data
    for seat in ("red", "umpire"):
        single = http.get(f"/games/{game.id}/events/1", headers=game.auth(seat))
        assert single.json()["action"]["text"] == marker
