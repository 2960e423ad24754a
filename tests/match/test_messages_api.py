"""Table talk (issue 26 item 4) on both databases: post, list and the per-reader visibility
(sides, umpire, spectators, anonymous readers, ``match.spectators_read_chat``), the text
guard, the per-seat limit, the export and the live stream."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from tests.match.flowkit import FakeClock, Game, new_game, problem
from tests.support.server import running_server
from tests.support.sse import SseStream

pytestmark = pytest.mark.anyio

LIMIT = 4


@pytest.fixture
def app(db_url: str, clock: FakeClock) -> Iterator[FastAPI]:
    application = create_app(Settings(database_url=db_url, messages_per_minute=LIMIT), clock=clock)
    yield application
    application.state.engine.dispose()


async def say(game: Game, seat: str, to: str, text: str) -> dict[str, Any]:
    r = await game.client.post(
        f"/games/{game.id}/messages", json={"to": to, "text": text}, headers=game.auth(seat)
    )
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


async def spectator(game: Game) -> dict[str, str]:
    r = await game.client.post(f"/games/{game.id}/tokens", json={}, headers=game.auth("red"))
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


async def texts(game: Game, headers: dict[str, str]) -> list[str]:
    r = await game.client.get(f"/games/{game.id}/messages", headers=headers)
    assert r.status_code == 200, r.text
    return [m["text"] for m in r.json()["items"]]


async def talk(game: Game) -> None:
    await say(game, "red", "all", "hello all")
    await say(game, "red", "umpire", "red to umpire")
    await say(game, "blue", "red", "blue to red")
    await say(game, "umpire", "blue", "umpire to blue")


async def test_each_reader_reads_only_what_is_meant_for_it(client: httpx.AsyncClient) -> None:
    game = await new_game(client)
    await talk(game)
    looker = await spectator(game)
    assert await texts(game, game.auth("umpire")) == [
        "hello all",
        "red to umpire",
        "blue to red",
        "umpire to blue",
    ]
    assert await texts(game, game.auth("red")) == ["hello all", "red to umpire", "blue to red"]
    assert await texts(game, game.auth("blue")) == ["hello all", "blue to red", "umpire to blue"]
    assert await texts(game, looker) == ["hello all"]
    assert await texts(game, {}) == ["hello all"]  # anonymous reader of a public game
    assert await game.version() == 1  # talk is no action: the game's version did not move
    r = await client.get(f"/games/{game.id}/messages", headers=game.auth("umpire"))
    first, second = r.json()["items"][:2]
    assert first["seq"] == 1 and first["sender"] == "red" and first["to"] == "all"
    assert first["private"] is False and second["private"] is True
    # paging: after= and next
    r = await client.get(
        f"/games/{game.id}/messages", params={"after": 1, "limit": 2}, headers=game.auth("umpire")
    )
    page = r.json()
    assert [m["seq"] for m in page["items"]] == [2, 3] and page["next"] == 3


async def test_spectators_read_no_talk_when_the_option_says_so(client: httpx.AsyncClient) -> None:
    game = await new_game(client, match={"spectators_read_chat": False})
    await talk(game)
    assert await texts(game, await spectator(game)) == []
    assert await texts(game, {}) == []
    assert await texts(game, game.auth("red")) == ["hello all", "red to umpire", "blue to red"]


async def test_a_private_game_needs_a_token_to_read(client: httpx.AsyncClient) -> None:
    game = await new_game(client, public=False)
    await say(game, "red", "all", "hi")
    problem(await client.get(f"/games/{game.id}/messages"), 401, "auth.required")


async def test_who_may_write_and_to_whom(client: httpx.AsyncClient) -> None:
    game = await new_game(client)
    url = f"/games/{game.id}/messages"
    looker = await spectator(game)
    body = {"to": "all", "text": "hi"}
    problem(await client.post(url, json=body, headers=looker), 403, "token.read_only")
    problem(await client.post(url, json=body), 401, "auth.required")
    bad = problem(
        await client.post(url, json={"to": "green", "text": "x"}, headers=game.auth("red")),
        422,
        "message.invalid_recipient",
    )
    assert bad["errors"][0]["location"] == "/to"
    problem(
        await client.post(url, json={"to": "red", "text": "x"}, headers=game.auth("red")),
        422,
        "message.invalid_recipient",
    )
    problem(
        await client.post("/games/nope/messages", json=body, headers=game.auth("red")),
        404,
        "game.not_found",
    )


@pytest.mark.parametrize(
    "text", ["a\x00b", "bell\x07", "esc\x1b[31m", "line\u2028sep", "x" * 2001, "", "   "]
)
async def test_bad_text_is_refused_naming_the_field(client: httpx.AsyncClient, text: str) -> None:
    game = await new_game(client)
    r = await client.post(
        f"/games/{game.id}/messages", json={"to": "all", "text": text}, headers=game.auth("red")
    )
    assert r.status_code == 422, r.text
    assert [e["location"] for e in r.json()["errors"]] == ["/text"]
    assert await texts(game, game.auth("umpire")) == []


async def test_newlines_and_the_longest_text_are_fine(client: httpx.AsyncClient) -> None:
    game = await new_game(client)
    await say(game, "red", "all", "two\nlines\tand a tab")
    await say(game, "red", "all", "é" * 2000)
    assert (await texts(game, game.auth("blue")))[0] == "two\nlines\tand a tab"


async def test_the_per_seat_limit_answers_429_with_retry_after(client: httpx.AsyncClient) -> None:
    game = await new_game(client)
    for i in range(LIMIT):
        await say(game, "red", "all", f"m{i}")
    r = await client.post(
        f"/games/{game.id}/messages",
        json={"to": "all", "text": "one more"},
        headers=game.auth("red"),
    )
    body = problem(r, 429, "message.rate_limited")
    assert 1 <= int(r.headers["Retry-After"]) <= 60 and body["limit"] == LIMIT
    await say(game, "blue", "all", "another seat is not limited by red's messages")


async def test_the_export_holds_the_readers_talk(client: httpx.AsyncClient) -> None:
    game = await new_game(client)
    await talk(game)

    async def exported(headers: dict[str, str]) -> dict[str, Any]:
        r = await client.get(f"/games/{game.id}/export", headers=headers)
        assert r.status_code == 200, r.text
        file: dict[str, Any] = r.json()
        return file

    umpire = await exported(game.auth("umpire"))
    assert len(umpire["messages"]) == 4
    blue = await exported(game.auth("blue"))
    assert [m["text"] for m in blue["messages"]] == ["hello all", "blue to red", "umpire to blue"]
    public = await exported({})
    assert [m["text"] for m in public["messages"]] == ["hello all"]
    # verify ignores the talk: the file verifies with it
    r = await client.post("/verify", json=umpire)
    assert r.status_code == 200, r.text
    assert r.json()["ok"] is True
    # an import continues the game; the talk stays behind
    r = await client.post("/games/import", json=umpire)
    assert r.status_code == 201, r.text
    copy = r.json()
    r = await client.get(
        f"/games/{copy['id']}/messages",
        headers={"Authorization": f"Bearer {copy['seats']['umpire']}"},
    )
    assert r.json()["items"] == []


# -- the live stream, over a real socket ----------------------------------------------------


@pytest.fixture
def base_url(db_url: str) -> Iterator[str]:
    settings = Settings(database_url=db_url, sse_keepalive_seconds=0.3, sse_poll_seconds=0.2)
    application = create_app(settings)
    with running_server(application) as url:
        yield url


def test_the_stream_delivers_each_reader_its_messages_live(base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=30) as http:
        r = http.post("/games", json={"ruleset": "tiny", "scenario": _scenario()})
        assert r.status_code == 201, r.text
        gid, seats = r.json()["id"], r.json()["seats"]

        def auth(seat: str) -> dict[str, str]:
            return {"Authorization": f"Bearer {seats[seat]}"}

        def post(seat: str, to: str, text: str) -> None:
            r = http.post(
                f"/games/{gid}/messages", json={"to": to, "text": text}, headers=auth(seat)
            )
            assert r.status_code == 201, r.text

        post("red", "all", "before")
        path = f"/games/{gid}/messages/stream"
        with (
            SseStream(base_url, path, headers=auth("blue")) as blue,
            SseStream(base_url, path) as anyone,
        ):
            assert blue.status == 200 and anyone.status == 200
            assert [(e.id, e.event, e.json()["text"]) for e in blue.events(1, timeout=10)] == [
                ("1", "message", "before")
            ]
            assert anyone.events(1, timeout=10)[0].json()["text"] == "before"
            post("red", "umpire", "secret to umpire")
            post("umpire", "blue", "to blue")
            post("red", "all", "public again")
            got = blue.events(2, timeout=10)
            assert [(e.id, e.json()["text"]) for e in got] == [
                ("3", "to blue"),
                ("4", "public again"),
            ]
            assert anyone.events(1, timeout=10)[0].json()["text"] == "public again"
            assert anyone.quiet(0.5) and blue.quiet(0.1)
        # resume after a cursor: nothing again, nothing missed
        with SseStream(base_url, path, headers={**auth("red"), "Last-Event-ID": "2"}) as red:
            assert [e.id for e in red.events(1, timeout=10)] == ["4"]
        # the event stream's ids are untouched: no event was appended
        assert http.get(f"/games/{gid}/events").json()["items"] == []
        # the credential is re-checked every batch: a revoked spectator token ends the stream
        minted = http.post(f"/games/{gid}/tokens", json={}, headers=auth("red")).json()
        spectating = {"Authorization": f"Bearer {minted['token']}"}
        with SseStream(base_url, path, headers=spectating) as watcher:
            assert [e.id for e in watcher.events(2, timeout=10)] == ["1", "4"]
            r = http.delete(f"/games/{gid}/tokens/{minted['id']}", headers=auth("red"))
            assert r.status_code == 204, r.text
            post("red", "all", "after the revocation")
            ended = watcher.next_event(timeout=10)
            assert ended.event == "revoked" and "after the revocation" not in "".join(watcher.raw)


def _scenario() -> dict[str, Any]:
    from tests.support.tiny import TINY

    return TINY.example_scenario() or {}
