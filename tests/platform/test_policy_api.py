"""API policy over a real server on both databases: the /v1 prefix (unversioned paths kept),
412 before judging, capped page sizes signalled, and per-token / per-IP rate limits."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from app.api.policy import TokenBuckets
from app.config import Settings
from app.main import create_app, shared_rate_limits
from tests.platform.conftest import Game, new_game, platform_settings
from tests.support.server import running_server


@contextmanager
def server(db_url: str, **settings: Any) -> Iterator[httpx.Client]:
    app = create_app(platform_settings(db_url, **settings))
    with running_server(app) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


def test_v1_prefix_serves_the_same_api(http: httpx.Client) -> None:
    r = http.post("/v1/games", json={"ruleset": "tiny", "scenario": {"length": 5}})
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    assert r.headers["location"] == f"/v1/games/{game_id}"
    assert r.headers["referee-api-version"] == "1"
    versioned, plain = http.get(f"/v1/games/{game_id}"), http.get(f"/games/{game_id}")
    assert versioned.json() == plain.json() and versioned.headers["etag"] == plain.headers["etag"]
    assert plain.headers["referee-api-version"] == "1"
    missing = http.get("/v1/games/00000000-0000-0000-0000-000000000000")
    assert missing.status_code == 404 and missing.json()["code"] == "game.not_found"
    assert missing.headers["referee-api-version"] == "1"
    assert http.get("/v2/games/" + game_id).status_code == 404
    assert (
        http.get("/v1/openapi.json").json()["paths"].keys()
        == http.get("/openapi.json").json()["paths"].keys()
    )


def test_stale_if_match_is_412_before_the_action_is_judged(http: httpx.Client) -> None:
    game: Game = new_game(http)
    game.step("red", "r1", 1)  # the game is now at version 2
    illegal = {"kind": "step", "pawn": "r1", "n": 10}  # off the track of length 5
    stale = {**game.auth("red"), "If-Match": 'W/"1"'}
    r = http.post(f"/games/{game.id}/actions", json=illegal, headers=stale)
    assert r.status_code == 412 and r.json()["code"] == "precondition.stale"
    assert r.headers["etag"] == 'W/"2"' and "ruling" not in r.json()
    # a malformed action with a stale If-Match: 412 too (nothing is judged)
    r = http.post(f"/games/{game.id}/actions", json={"kind": "nope"}, headers=stale)
    assert r.status_code == 412
    current = {**game.auth("red"), "If-Match": 'W/"2"'}
    r = http.post(f"/games/{game.id}/actions", json=illegal, headers=current)
    assert r.status_code == 422 and r.json()["code"] == "action.illegal"
    assert r.json()["ruling"]["violations"][0]["code"] == "tiny.off_track"
    r = http.post(
        f"/games/{game.id}/finish", json={}, headers={**game.auth("red"), "If-Match": 'W/"1"'}
    )
    assert r.status_code == 412  # before the umpire-only check


def test_capped_limits_are_signalled(db_url: str) -> None:
    with server(db_url, events_page_max=2) as http:
        game = new_game(http)
        for _ in range(3):
            game.step("red", "r1", 1)
        r = http.get(f"/games/{game.id}/events", params={"limit": 100000})
        assert r.status_code == 200 and r.headers["referee-limit-capped"] == "2"
        assert [e["seq"] for e in r.json()["items"]] == [1, 2] and r.json()["next"] == 2
        r = http.get(f"/games/{game.id}/events", params={"limit": 2, "after": 2})
        assert "referee-limit-capped" not in r.headers
        assert [e["seq"] for e in r.json()["items"]] == [3] and r.json()["next"] is None


SHARED = pytest.mark.parametrize("shared", ["off", "on"])
"""The in-process buckets and, on PostgreSQL, the shared ones (issue 24 item 5) answer alike
(on SQLite, `on` keeps the in-process buckets: one process)."""


@SHARED
def test_rate_limit_per_token(db_url: str, shared: str) -> None:
    with server(
        db_url, rate_limit_per_token=0.001, rate_limit_token_burst=3, rate_limit_shared=shared
    ) as http:
        game = new_game(http)
        for _ in range(3):
            assert http.get(f"/games/{game.id}", headers=game.auth("red")).status_code == 200
        r = http.get(f"/games/{game.id}", headers=game.auth("red"))
        assert r.status_code == 429 and r.headers["content-type"] == "application/problem+json"
        body = r.json()
        assert (body["code"], body["status"], body["limit"]) == ("rate_limited", 429, "token")
        assert int(r.headers["retry-after"]) == body["retry_after"] >= 900
        # another token, and anonymous reads, are not affected
        assert http.get(f"/games/{game.id}", headers=game.auth("blue")).status_code == 200
        assert http.get(f"/games/{game.id}").status_code == 200
        # the same token in Referee-Tokens or ?access_token= counts as the same token
        r = http.get("/games", headers={"Referee-Tokens": game.seats["red"]})
        assert r.status_code == 429
        assert http.get("/healthz").status_code == 200


@SHARED
def test_rate_limit_per_ip(db_url: str, shared: str) -> None:
    with server(
        db_url, rate_limit_per_ip=0.001, rate_limit_ip_burst=4, rate_limit_shared=shared
    ) as http:
        answers = [http.get("/rulesets").status_code for _ in range(5)]
        assert answers == [200, 200, 200, 200, 429]
        r = http.get("/rulesets")
        assert r.json()["limit"] == "IP address" and int(r.headers["retry-after"]) >= 900
        assert http.get("/healthz").status_code == 200


@SHARED
def test_ip_first_then_tokens_then_the_token_cap(db_url: str, shared: str) -> None:
    """The order of charges: the IP, then each token until one is refused; a request over the
    token cap is refused (422) after the IP is charged and before any token is."""
    with server(
        db_url,
        rate_limit_per_ip=0.001,
        rate_limit_ip_burst=6,
        rate_limit_per_token=0.001,
        rate_limit_token_burst=1,
        games_page_max=2,
        rate_limit_shared=shared,
    ) as http:
        many = {"Referee-Tokens": "a,b,c"}
        assert http.get("/rulesets", headers=many).status_code == 422  # IP: 5 left
        assert http.get("/rulesets", headers={"Referee-Tokens": "a,b"}).status_code == 200
        r = http.get("/rulesets", headers={"Referee-Tokens": "a,c"})  # a refused: c not charged
        assert r.status_code == 429 and r.json()["limit"] == "token"
        assert http.get("/rulesets", headers={"Referee-Tokens": "c"}).status_code == 200
        assert http.get("/rulesets").status_code == 200  # IP: 1 left
        assert http.get("/rulesets", headers={"Referee-Tokens": "d"}).status_code == 200
        r = http.get("/rulesets", headers={"Referee-Tokens": "e"})  # the IP is spent first
        assert r.status_code == 429 and r.json()["limit"] == "IP address"


def test_where_the_buckets_live() -> None:
    """REFEREE_RATE_LIMIT_SHARED: `auto` shares them on PostgreSQL with more than one worker;
    SQLite always keeps them in the process."""
    pg, lite = "postgresql", "sqlite"
    assert not shared_rate_limits(Settings(), pg)
    assert shared_rate_limits(Settings(workers=2), pg)
    assert shared_rate_limits(Settings(rate_limit_shared="on"), pg)
    assert not shared_rate_limits(Settings(rate_limit_shared="off", workers=4), pg)
    assert not shared_rate_limits(Settings(rate_limit_shared="on", workers=2), lite)


def test_a_full_bucket_table_drops_the_bucket_closest_to_full() -> None:
    """Issue 22: junk keys displace each other (and buckets back at their burst), never a
    drained bucket; the table stays bounded."""
    now = [0.0]
    buckets = TokenBuckets(rate=0.01, burst=3, clock=lambda: now[0], max_keys=4)
    for _ in range(3):
        assert buckets.take("limited") == 0.0
    assert buckets.take("limited") > 0  # drained
    for n in range(1000):  # junk, each charged once, far more keys than the table holds
        assert buckets.take(f"junk-{n}") == 0.0
        now[0] += 0.001
    assert len(buckets.buckets) == 4 and "limited" in buckets.buckets
    assert buckets.take("limited") > 0  # still limited: no fresh burst
    # a bucket refilled to its burst is dropped before a drained one, whatever its age
    now[0] += 1000.0  # every bucket is back at its burst
    buckets.take("limited")
    buckets.take("limited")
    buckets.take("limited")  # drained again, just now
    for n in range(8):
        buckets.take(f"fresh-{n}")
    assert "limited" in buckets.buckets and len(buckets.buckets) == 4
    assert len(buckets._by_full_at) <= 2 * len(buckets.buckets) + 64
