"""Issue 22 items 1 and 2: an open stream ends when the token it was opened with is revoked,
rotated or reissued -- at once, not when the stream's lifetime ends -- and a reissue takes
with it what the old seat token minted (spectator tokens) and registered (webhooks).

Every stream here runs on a real server over a real socket (SQLite and PostgreSQL); the
lifetime of a stream is an hour (the default), so only the revocation can end it within the
deadlines below. The cross-process cases revoke through a second server process, so only the
notification path (PostgreSQL NOTIFY, the SQLite poller's access epoch) can reach the stream.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.db.engine import make_engine, make_session_factory
from app.db.models import AccessTokenRow, WebhookRow
from tests.platform.conftest import Game, base_url, http, new_game
from tests.support.process import server_process
from tests.support.sse import SseStream
from tests.support.tiny import TINY

CLOSE_WITHIN = 5.0
"""Seconds within which a revoked stream must end (its lifetime is an hour)."""

__all__ = ["base_url", "http"]  # the platform suite's server fixtures, used here

VARIANTS = ["header", "query", "v1", "feed", "rotated", "reissued"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def mint(game: Game, seat: str, label: str = "stream") -> dict[str, Any]:
    r = game.http.post(f"/games/{game.id}/tokens", json={"label": label}, headers=game.auth(seat))
    assert r.status_code == 201, r.text
    minted: dict[str, Any] = r.json()
    return minted


def _stream_of(variant: str, game: Game) -> tuple[str, str, dict[str, str], dict[str, str]]:
    """(token, path, headers, params) of a stream opened with the variant's credential."""
    if variant in ("rotated", "reissued"):
        token = game.seats["red" if variant == "rotated" else "blue"]
        return token, f"/games/{game.id}/events/stream", bearer(token), {}
    token = mint(game, "red")["token"]
    if variant == "header":
        return token, f"/games/{game.id}/events/stream", bearer(token), {}
    if variant == "query":
        return token, f"/games/{game.id}/events/stream", {}, {"access_token": token}
    if variant == "v1":
        return token, f"/v1/games/{game.id}/events/stream", bearer(token), {}
    return token, "/events/stream", bearer(token), {}


def _revoke(variant: str, game: Game, token: str) -> None:
    http = game.http
    if variant == "rotated":
        r = http.post(f"/games/{game.id}/tokens/rotate", headers=game.auth("red"))
        assert r.status_code == 200, r.text
        game.seats["red"] = r.json()["token"]
    elif variant == "reissued":
        r = http.post(f"/games/{game.id}/seats/blue/token", headers=game.auth("umpire"))
        assert r.status_code == 200, r.text
        game.seats["blue"] = r.json()["token"]
    else:
        listed = http.get(f"/games/{game.id}/tokens", headers=game.auth("red")).json()["items"]
        (row,) = [t for t in listed if t["revoked_at"] is None]
        r = http.delete(f"/games/{game.id}/tokens/{row['id']}", headers=game.auth("red"))
        assert r.status_code == 204, r.text


def _assert_revoked_end(stream: SseStream, game_id: str) -> None:
    last = stream.next_event(CLOSE_WITHIN)
    assert last.event == "revoked", (last, stream.raw[-5:])
    at = stream.raw.index("event: revoked")
    assert not stream.raw[at - 1].startswith("id:")  # the client's cursor stays where it was
    data = last.json()
    assert data["code"] == "auth.revoked" and data["game"] == game_id
    stream.wait_closed(CLOSE_WITHIN)


@pytest.mark.parametrize("variant", VARIANTS)
def test_an_open_stream_ends_when_its_token_is_revoked(
    http: httpx.Client, base_url: str, variant: str
) -> None:
    game = new_game(http, public=False, sequence=True)
    token, path, headers, params = _stream_of(variant, game)
    with SseStream(base_url, path, headers=headers, params=params) as stream:
        assert stream.status == 200, stream.body
        stream.wait_comment("stream open", CLOSE_WITHIN)
        game.step("red", "r1", 1)
        assert stream.next_event(CLOSE_WITHIN).event != "revoked"
        _revoke(variant, game, token)
        _assert_revoked_end(stream, game.id)
        # the umpire advances the phase: nothing more reaches the old credential
        game.end_phase("umpire")
        assert stream.quiet(0.5)
    # a new stream with the same credential is refused
    with SseStream(base_url, path, headers=headers, params=params) as again:
        assert again.status == 401, again.body


def test_a_feed_drops_only_the_revoked_holding(http: httpx.Client, base_url: str) -> None:
    first = new_game(http, public=False, sequence=True)
    second = new_game(http, public=False, sequence=True)
    spectator = mint(first, "red")["token"]
    headers = {"Referee-Tokens": f"{spectator}, {second.seats['red']}"}
    with SseStream(base_url, "/events/stream", headers=headers) as stream:
        assert stream.status == 200, stream.body
        stream.wait_comment("stream open", CLOSE_WITHIN)
        _revoke("header", first, spectator)
        revoked = stream.next_event(CLOSE_WITHIN)
        assert revoked.event == "revoked" and revoked.json()["game"] == first.id
        first.step("red", "r1", 1)
        second.step("red", "r1", 1)
        event = stream.next_event(CLOSE_WITHIN)
        assert event.json()["game"] == second.id, event
        assert event.id is not None and first.id not in event.id  # the cursor forgets it
        assert stream.quiet(0.5)


def _rows(db_url: str, model: Any, game_id: str) -> list[Any]:
    engine = make_engine(db_url)
    try:
        with make_session_factory(engine)() as session:
            return list(session.query(model).filter_by(game_id=game_id))
    finally:
        engine.dispose()


def _webhook(game: Game, seat: str) -> str:
    r = game.http.post(
        f"/games/{game.id}/webhooks",
        json={"url": "http://127.0.0.1:9/hook"},
        headers=game.auth(seat),
    )
    assert r.status_code == 201, r.text
    webhook_id: str = r.json()["id"]
    return webhook_id


def test_a_reissue_revokes_what_the_old_token_minted_and_registered(
    http: httpx.Client, db_url: str
) -> None:
    game = new_game(http, public=False, sequence=True)
    leaked = mint(game, "blue", "leaked")["token"]
    kept = mint(game, "red", "red's own")["token"]
    umpires = mint(game, "umpire", "umpire's own")["token"]
    _webhook(game, "blue")
    red_hook = _webhook(game, "red")

    r = http.post(f"/games/{game.id}/seats/blue/token", headers=game.auth("umpire"))
    assert r.status_code == 200, r.text
    assert r.json()["revoked_tokens"] == 1 and r.json()["removed_webhooks"] == 1
    game.seats["blue"] = r.json()["token"]

    gone = http.get(f"/games/{game.id}", headers=bearer(leaked))
    assert gone.status_code == 401 and gone.json()["code"] == "auth.invalid_token"
    for other in (kept, umpires):
        assert http.get(f"/games/{game.id}", headers=bearer(other)).status_code == 200
    hooks = _rows(db_url, WebhookRow, game.id)
    assert [(h.id, h.seat) for h in hooks] == [(red_hook, "red")]
    tokens = {t.label: t.revoked_at for t in _rows(db_url, AccessTokenRow, game.id)}
    assert tokens["leaked"] is not None
    assert tokens["red's own"] is None and tokens["umpire's own"] is None
    listed = http.get(f"/games/{game.id}/webhooks", headers=game.auth("blue"))
    assert listed.status_code == 200 and listed.json()["items"] == []


def test_a_reissue_may_keep_what_the_seat_made_and_a_rotation_keeps_it(
    http: httpx.Client, db_url: str
) -> None:
    game = new_game(http, public=False)
    lost = mint(game, "blue", "lost")["token"]
    _webhook(game, "blue")
    r = http.post(
        f"/games/{game.id}/seats/blue/token",
        params={"revoke_minted": "false"},
        headers=game.auth("umpire"),
    )
    assert r.status_code == 200, r.text
    assert r.json()["revoked_tokens"] == 0 and r.json()["removed_webhooks"] == 0
    assert http.get(f"/games/{game.id}", headers=bearer(lost)).status_code == 200
    assert len(_rows(db_url, WebhookRow, game.id)) == 1

    mine = mint(game, "red", "mine")["token"]
    r = http.post(f"/games/{game.id}/tokens/rotate", headers=game.auth("red"))
    assert r.status_code == 200 and r.json()["revoked_tokens"] == 0
    game.seats["red"] = r.json()["token"]
    assert http.get(f"/games/{game.id}", headers=bearer(mine)).status_code == 200
    r = http.post(
        f"/games/{game.id}/tokens/rotate",
        params={"revoke_minted": "true"},
        headers=game.auth("red"),
    )
    assert r.status_code == 200 and r.json()["revoked_tokens"] == 1
    assert http.get(f"/games/{game.id}", headers=bearer(mine)).status_code == 401


# -- across processes ----------------------------------------------------------------------


@pytest.fixture
def two_processes(db_url: str, db_kind: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two server processes on one database. Keep-alives are a minute; the SQLite poller
    (its only cross-process path) runs every 0.2 s, and on PostgreSQL every minute, so only a
    notification can end the stream in time there."""
    poll = "0.2" if db_kind == "sqlite" else "60"
    env = {"REFEREE_SSE_KEEPALIVE_SECONDS": "60", "REFEREE_SSE_POLL_SECONDS": poll}
    with (
        server_process(db_url, tmp_path, env) as first,
        server_process(db_url, tmp_path, env) as second,
    ):
        first.wait_healthy()
        second.wait_healthy()
        yield first.url, second.url


def test_a_revocation_by_another_process_ends_the_stream(
    two_processes: tuple[str, str],
) -> None:
    a, b = two_processes
    with httpx.Client(base_url=b, timeout=15) as http_b:
        created = http_b.post(
            "/games",
            json={"ruleset": "tiny", "scenario": TINY.example_scenario(), "public": False},
        )
        assert created.status_code == 201, created.text
        game = Game(created.json()["id"], created.json()["seats"], http_b)
        token = mint(game, "red")["token"]
        path = f"/games/{game.id}/events/stream"
        with SseStream(a, path, headers=bearer(token)) as stream:
            assert stream.status == 200, stream.body
            stream.wait_comment("stream open", CLOSE_WITHIN)
            revoke: Callable[[], None] = lambda: _revoke("header", game, token)  # noqa: E731
            revoke()
            _assert_revoked_end(stream, game.id)
