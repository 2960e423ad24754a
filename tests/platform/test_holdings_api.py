"""GET /games (the games a client's tokens hold) and GET /events/stream (one stream across
them) over a real server on both databases: several tokens, filters, paging with a capped
limit, stale tokens, and a bot following three games on one resumable stream."""

from __future__ import annotations

from typing import Any

import httpx

from tests.platform.conftest import Game, new_game
from tests.support.sse import SseStream


def tokens(*values: str) -> dict[str, str]:
    first, *rest = values
    headers = {"Authorization": f"Bearer {first}"}
    if rest:
        headers["Referee-Tokens"] = ", ".join(rest)
    return headers


def listing(http: httpx.Client, headers: dict[str, str], **params: Any) -> httpx.Response:
    r = http.get("/games", headers=headers, params=params)
    assert r.status_code == 200, r.text
    return r


def test_games_of_several_tokens_with_filters_and_paging(http: httpx.Client) -> None:
    g1, g2, g3 = (new_game(http, sequence=True) for _ in range(3))
    g1.end_phase("red")  # g1 now waits for blue (react phase)
    headers = tokens(g1.seats["red"], g2.seats["red"], g3.seats["blue"])
    items = listing(http, headers).json()["items"]
    assert [(i["id"], i["seat"]) for i in items] == sorted(
        [(g1.id, "red"), (g2.id, "red"), (g3.id, "blue")]
    )
    by_game = {i["id"]: i for i in items}
    assert by_game[g1.id]["waiting_for"] == ["blue"] and by_game[g1.id]["my_turn"] is False
    assert by_game[g2.id]["waiting_for"] == ["red"] and by_game[g2.id]["my_turn"] is True
    assert by_game[g3.id]["my_turn"] is False and by_game[g3.id]["scope"] == "seat"
    assert by_game[g1.id]["position"]["phase"] == "react"
    assert by_game[g1.id]["version"] == 2 and by_game[g2.id]["version"] == 1

    mine = listing(http, headers, my_turn="true").json()["items"]
    assert [i["id"] for i in mine] == [g2.id]
    assert {i["id"] for i in listing(http, headers, my_turn="false").json()["items"]} == {
        g1.id,
        g3.id,
    }

    assert g2.write("umpire", "/finish", {}).status_code == 201
    finished = listing(http, headers, status="finished").json()["items"]
    assert [(i["id"], i["status"], i["waiting_for"], i["my_turn"]) for i in finished] == [
        (g2.id, "finished", [], False)
    ]
    assert len(listing(http, headers, status="active").json()["items"]) == 2

    # paging: two by two, then a capped limit (the server's maximum here is 3)
    first = listing(http, headers, limit=2)
    assert "referee-limit-capped" not in first.headers
    page = first.json()
    assert len(page["items"]) == 2 and page["next"] is not None
    rest = listing(http, headers, limit=2, after=page["next"]).json()
    assert rest["next"] is None
    assert [i["id"] for i in page["items"] + rest["items"]] == [i["id"] for i in items]
    capped = listing(http, headers, limit=1000)
    assert capped.headers["referee-limit-capped"] == "3" and len(capped.json()["items"]) == 3


def test_spectator_and_stale_tokens(http: httpx.Client) -> None:
    game, other = new_game(http, public=False), new_game(http)
    spectator = http.post(f"/games/{game.id}/tokens", headers=game.auth("blue")).json()["token"]
    items = listing(http, tokens(spectator, other.seats["umpire"])).json()["items"]
    assert sorted((i["id"], i["seat"], i["scope"]) for i in items) == sorted(
        [(game.id, None, "spectator"), (other.id, "umpire", "seat")]
    )
    r = http.get("/games", headers=tokens(other.seats["red"], "not-a-token"))
    assert r.status_code == 401 and r.json()["code"] == "auth.invalid_token"
    assert r.json()["tokens"] == [2]
    r = http.get("/games")
    assert r.status_code == 401 and r.json()["code"] == "auth.required"
    r = http.get("/games", headers=tokens(*(f"t{i}" for i in range(4))))
    assert r.status_code == 422 and r.json()["code"] == "auth.too_many_tokens"
    r = http.get("/games", headers=tokens(other.seats["red"]), params={"status": "lost"})
    assert r.status_code == 422 and r.json()["errors"][0]["location"] == "/status"


def test_a_bot_follows_three_games_on_one_resumable_stream(
    base_url: str, http: httpx.Client
) -> None:
    games = [new_game(http, public=(i != 1)) for i in range(3)]  # one of them private
    red = [g.seats["red"] for g in games]
    games[0].step("red", "r1", 1)  # before the stream opens: replayed
    with SseStream(base_url, "/events/stream", headers=tokens(*red)) as stream:
        assert stream.status == 200, stream.body
        assert stream.response_headers["content-type"].startswith("text/event-stream")
        first = stream.next_event(10)
        games[1].step("red", "r1", 1)
        games[2].step("blue", "b1", -1)
        games[1].step("blue", "b1", -1)
        live = stream.events(3, timeout=10)
    seen = [(e.json()["game"], e.json()["event"]["seq"]) for e in [first, *live]]
    assert seen[0] == (games[0].id, 1)
    assert sorted(seen[1:]) == sorted([(games[1].id, 1), (games[2].id, 1), (games[1].id, 2)])
    assert [s for s in seen if s[0] == games[1].id] == [(games[1].id, 1), (games[1].id, 2)]
    for event in [first, *live]:
        data = event.json()
        assert data["seat"] == "red" and event.event == data["event"]["kind"] == "step"
        listed = http.get(
            f"/games/{data['game']}/events/{data['event']['seq']}",
            headers={"Authorization": f"Bearer {red[[g.id for g in games].index(data['game'])]}"},
        ).json()
        assert listed == data["event"]
    # the last id is the whole stream's cursor: resume after a drop, missing nothing
    games[0].step("blue", "b1", -1)
    games[2].step("red", "r1", 1)
    resume = {**tokens(*red), "Last-Event-ID": live[-1].id or ""}
    with SseStream(base_url, "/events/stream", headers=resume) as stream:
        again = stream.events(2, timeout=10)
        assert stream.quiet(0.5)
    assert sorted((e.json()["game"], e.json()["event"]["seq"]) for e in again) == sorted(
        [(games[0].id, 2), (games[2].id, 2)]
    )
    # the same through the query string, for EventSource (no headers)
    params = {"access_token": red, "cursor": again[-1].id or ""}
    r = http.get("/events/stream", params={"access_token": "nope"})
    assert r.status_code == 401
    with SseStream(base_url, "/events/stream", params=params) as stream:  # type: ignore[arg-type]
        assert stream.status == 200 and stream.quiet(0.5)
    bad = http.get("/events/stream", headers={**tokens(*red), "Last-Event-ID": "x"})
    assert bad.status_code == 422 and bad.json()["code"] == "stream.invalid_cursor"


def test_hidden_events_stay_redacted_on_the_multi_game_stream(
    base_url: str, http: httpx.Client
) -> None:
    game: Game = new_game(http)
    r = game.write("red", "/actions", {"kind": "note", "text": "secret plan"})
    assert r.status_code == 201, r.text
    with SseStream(base_url, "/events/stream", headers=tokens(game.seats["blue"])) as stream:
        event = stream.next_event(10)
    assert event.event == "redacted" and "secret plan" not in event.data
