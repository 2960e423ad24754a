"""Free text from a client never reaches a database it cannot be stored in (issue 22, item 5):
a NUL character (which PostgreSQL's text columns refuse), another control character or a lone
surrogate in a body field, a path segment or a query parameter is a 422 problem+json naming
the field -- the same on SQLite and PostgreSQL, over a real server -- and nothing is written."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.platform.conftest import Game, new_game

BAD_TEXT = ["a\x00b", "a\nb", "a\x1bb", "a\x7fb", "\ud800"]


def _post(game: Game, seat: str, path: str, body: dict[str, Any]) -> httpx.Response:
    # json.dumps escapes a lone surrogate as \ud800, as a hostile client would send it
    return game.http.post(
        path,
        content=json.dumps(body).encode(),
        headers={**game.auth(seat), "Content-Type": "application/json", "If-Match": "*"},
    )


def _refused(r: httpx.Response, location: str, where: str = "body") -> dict[str, Any]:
    assert r.status_code == 422, (r.status_code, r.text)
    assert r.headers["content-type"] == "application/problem+json"
    problem: dict[str, Any] = r.json()
    assert [(e["location"], e["in"]) for e in problem["errors"]] == [(location, where)], problem
    return problem


@pytest.mark.parametrize("text", BAD_TEXT)
def test_bad_text_in_a_body_field_is_a_422_naming_it(http: httpx.Client, text: str) -> None:
    game = new_game(http)
    base = f"/games/{game.id}"
    problem = _refused(_post(game, "red", f"{base}/tokens", {"label": text}), "/label")
    assert problem["code"] == "request.invalid"
    problem = _refused(
        _post(game, "red", f"{base}/webhooks", {"url": f"https://x.example/{text}"}), "/url"
    )
    # pydantic refuses a lone surrogate in any string itself (`string_unicode`)
    assert problem["code"] == ("request.invalid" if text == "\ud800" else "webhook.invalid")
    _refused(
        _post(game, "red", f"{base}/webhooks", {"url": "https://x.example/", "events": [text]}),
        "/events/0",
    )
    _refused(_post(game, "umpire", f"{base}/finish", {"winner": text}), "/winner")
    r = http.post(
        "/games",
        content=json.dumps({"ruleset": text, "scenario": {}}).encode(),
        headers={"Content-Type": "application/json"},
    )
    _refused(r, "/ruleset")
    assert http.get(f"{base}/tokens", headers=game.auth("umpire")).json()["items"] == []
    assert http.get(f"{base}/webhooks", headers=game.auth("umpire")).json()["items"] == []
    assert http.get(base).json()["status"] == "active"


@pytest.mark.parametrize("text", ["%00", "a%0Ab", "%1B", "%7F"])
def test_bad_text_in_a_path_or_query_parameter_is_a_422_naming_it(
    http: httpx.Client, text: str
) -> None:
    game = new_game(http)
    base = f"/games/{game.id}"
    auth = game.auth("umpire")
    for method, path, location in [
        ("GET", f"/games/{text}", "/game_id"),
        ("GET", f"/rulesets/{text}", "/ruleset_id"),
        ("GET", f"{base}/queries/{text}", "/name"),
        ("POST", f"{base}/sealed/{text}/check", "/decision"),
        ("POST", f"{base}/seats/{text}/token", "/seat"),
        ("DELETE", f"{base}/tokens/{text}", "/token_id"),
        ("DELETE", f"{base}/webhooks/{text}", "/webhook_id"),
        ("GET", f"{base}/webhooks/{text}/deliveries", "/webhook_id"),
    ]:
        r = http.request(method, path, headers=auth, json={} if method == "POST" else None)
        _refused(r, location, "path")
    for path, location in [
        (f"/games?after={text}", "/after"),
        (f"/events/stream?cursor={text}", "/cursor"),
        (f"/events/stream?access_token={text}", "/access_token"),
        (f"{base}/events/stream?access_token={text}", "/access_token"),
    ]:
        _refused(http.get(path), location, "query")
