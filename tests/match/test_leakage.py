"""Leakage: before the reveal, no read path shows a sealed order to anyone but its author,
and before the game ends no read path shows the dice seed to a player or spectator.

A three-sided blind game: red and blue have submitted orders carrying distinctive markers,
green has not. Every reader -- a spectator (anonymous, public game), green, the umpire, and
red and blue for each other's order -- tries every read path over a real socket: every GET
route of the OpenAPI document that takes a game (with each event number, query name and
decision), the live event stream, dry runs, and error answers of every POST route (a second
order, a bad order, a reused Idempotency-Key, an unknown decision, opening without the right,
stale preconditions…). No response body or header may hold an order's marker or nonce, or
the seed. Then, as a control that the crawl can see them, green completes the set and the
markers do appear -- while the seed still does not (the game goes on).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from app.config import Settings
from app.db.engine import normalize_url
from app.main import create_app
from tests.support.server import running_server
from tests.support.sse import SseStream

SIDES = ("red", "blue", "green")


@pytest.fixture
def server(db_url: str) -> Iterator[str]:
    settings = Settings(database_url=db_url, sse_keepalive_seconds=0.2, sse_poll_seconds=0.2)
    with running_server(create_app(settings)) as url:
        yield url


@dataclass
class Seen:
    """Every response a reader got: (what was asked, status, headers + body)."""

    responses: list[tuple[str, int, str]] = field(default_factory=list)

    def add(self, label: str, r: httpx.Response) -> None:
        headers = "\n".join(f"{k}: {v}" for k, v in r.headers.items())
        self.responses.append((label, r.status_code, headers + "\n\n" + r.text))

    def leaks(self, secrets: dict[str, str]) -> list[str]:
        return [
            f"{name} in {label} ({status})"
            for label, status, text_ in self.responses
            for name, secret in secrets.items()
            if secret in text_
        ]


def _fill(path: str, game_id: str, seqs: list[int]) -> list[str]:
    paths = [path.replace("{game_id}", game_id)]
    out: list[str] = []
    for p in paths:
        if "{seq}" in p:
            out += [p.replace("{seq}", str(n)) for n in [*seqs, 0, 99]]
        elif "{name}" in p:
            out += [p.replace("{name}", n) for n in ("standing", "nope")]
        elif "{decision}" in p:
            out += [p.replace("{decision}", d) for d in ("bid.r1", "bid.r9")]
        else:
            out.append(p)
    return out


def crawl(base: str, game_id: str, headers: dict[str, str], seqs: list[int]) -> Seen:
    """Every read path, and the error answers of every write path, as one reader."""
    seen = Seen()
    with httpx.Client(base_url=base, timeout=30, headers=headers) as c:
        spec = c.get("/openapi.json")
        seen.add("GET /openapi.json", spec)
        gets = [
            p
            for p, ops in spec.json()["paths"].items()
            if "get" in ops and "{game_id}" in p and not p.endswith("/stream")
        ]
        assert {"/games/{game_id}", "/games/{game_id}/events", "/games/{game_id}/sealed"} <= set(
            gets
        ), gets
        for template in gets:
            for path in _fill(template, game_id, seqs):
                seen.add(f"GET {path}", c.get(path))
        for params in ({"after": "0", "limit": "1"}, {"after": "1"}):
            seen.add(f"GET events {params}", c.get(f"/games/{game_id}/events", params=params))
        seen.add("GET events/abc", c.get(f"/games/{game_id}/events/abc"))

        base_path = f"/games/{game_id}"
        any_version = {"If-Match": "*"}
        stale = {"If-Match": 'W/"1"'}
        posts: list[tuple[str, Any, dict[str, str]]] = [
            ("/rulings", {"kind": "concede", "side": "red"}, {}),
            ("/rulings", {"kind": "concede", "side": "nobody"}, {}),
            ("/rulings", {"kind": "bid", "bid": 3}, {}),
            ("/actions", {"kind": "concede", "side": "nobody"}, any_version),
            ("/actions", {"kind": "concede", "side": "red"}, {}),
            (
                "/actions",
                {"kind": "spend", "side": "red", "points": 1},
                {**stale, "Idempotency-Key": "red-key"},
            ),
            ("/sealed/bid.r1", {"bid": 99}, any_version),  # over budget
            ("/sealed/bid.r1", {"bid": "x", "motto": 1}, any_version),  # malformed
            ("/sealed/bid.r1", {"bid": 1}, stale),  # valid order, stale version
            ("/sealed/bid.r1", {"bid": 1}, {}),  # no If-Match
            # red's key from red: 422 key_reused; from another seat (keys are per seat) its own
            # request, stale here: never red's stored answer
            ("/sealed/bid.r1", {"bid": 3}, {**stale, "Idempotency-Key": "red-key"}),
            ("/sealed/bid.r9", {"bid": 1}, any_version),
            ("/sealed/bid.r1/open", None, {}),
            ("/sealed/bid.r1/open", None, stale),
            ("/dice/reveal", None, {}),
            ("/phase/end", None, {}),
            ("/phase/advance", None, {}),
            ("/finish", None, {}),
            ("/rollback", {"to_version": 1}, {}),
            ("/takeback", None, {}),
        ]
        for suffix, body, extra in posts:
            r = c.post(base_path + suffix, json=body, headers=extra)
            assert r.status_code != 201 or suffix == "/never", (suffix, r.status_code, r.text)
            seen.add(f"POST {suffix} {json.dumps(body)} {extra}", r)

    with SseStream(base, f"/games/{game_id}/events/stream", headers=headers) as stream:
        assert stream.status == 200, stream.body
        got = stream.events(len(seqs), timeout=10)
        stream.wait_comment("keep-alive", timeout=5)
    seen.responses.append(("stream", 200, "\n".join(stream.raw)))
    assert [int(e.id or 0) for e in got] == seqs
    return seen


def _secrets(db_url: str, game_id: str) -> tuple[dict[str, str], str]:
    """Each side's nonce straight from the database, and the dice seed."""
    engine = create_engine(normalize_url(db_url))
    try:
        with engine.connect() as conn:
            nonces = dict(
                conn.execute(
                    text("SELECT seat, nonce FROM sealed_orders WHERE game_id = :g"),
                    {"g": game_id},
                ).all()
            )
            seed = conn.execute(
                text("SELECT dice_seed FROM games WHERE id = :g"), {"g": game_id}
            ).scalar_one()
    finally:
        engine.dispose()
    assert seed, "the game has no dice seed"
    return {str(k): str(v) for k, v in nonces.items()}, str(seed)


def test_no_read_path_leaks_a_sealed_order_or_the_seed(server: str, db_url: str) -> None:
    markers = {side: f"{side.upper()}-MARK-{uuid.uuid4().hex}" for side in ("red", "blue")}
    with httpx.Client(base_url=server, timeout=30) as c:
        created = c.post(
            "/games",
            json={
                "ruleset": "blind",
                "scenario": {"sides": list(SIDES), "budget": 10, "rounds": 2},
            },
        )
        assert created.status_code == 201, created.text
        gid, seats = created.json()["id"], created.json()["seats"]

        def auth(seat: str) -> dict[str, str]:
            return {"Authorization": f"Bearer {seats[seat]}"}

        for side, bid, key in (("red", 3, "red-key"), ("blue", 4, "blue-key")):
            r = c.post(
                f"/games/{gid}/sealed/bid.r1",
                json={"bid": bid, "motto": markers[side]},
                headers={**auth(side), "If-Match": "*", "Idempotency-Key": key},
            )
            assert r.status_code == 201 and r.json()["reveal"] is None, r.text
        nonces, seed = _secrets(db_url, gid)
        assert set(nonces) == {"red", "blue"}

        secret = {
            side: {f"{side}'s marker": markers[side], f"{side}'s nonce": nonces[side]}
            for side in ("red", "blue")
        }
        seed_secret = {"the dice seed": seed}
        readers: dict[str, tuple[dict[str, str], dict[str, str]]] = {
            "spectator": ({}, {**secret["red"], **secret["blue"], **seed_secret}),
            "green": (auth("green"), {**secret["red"], **secret["blue"], **seed_secret}),
            "umpire": (auth("umpire"), {**secret["red"], **secret["blue"], **seed_secret}),
            "red": (auth("red"), {**secret["blue"], **seed_secret}),
            "blue": (auth("blue"), {**secret["red"], **seed_secret}),
        }
        for name, (headers, forbidden) in readers.items():
            seen = crawl(server, gid, headers, seqs=[1, 2])
            assert len(seen.responses) > 35
            leaks = seen.leaks(forbidden)
            assert not leaks, f"{name} could read: {leaks}"

        # nothing was written by any of those attempts
        assert c.get(f"/games/{gid}").json()["version"] == 3
        # a seat does see its own order (so the crawl above is not blind to orders)
        own = c.get(f"/games/{gid}/sealed", headers=auth("red")).json()["open"][0]["own"]
        assert own["order"]["motto"] == markers["red"]

        # control: green completes the set; every reader now sees every order -- not the seed
        r = c.post(
            f"/games/{gid}/sealed/bid.r1",
            json={"bid": 0},
            headers={**auth("green"), "If-Match": "*"},
        )
        assert r.status_code == 201 and r.json()["reveal"] is not None, r.text
        after = crawl(server, gid, {}, seqs=[1, 2, 3, 4])
        revealed = after.leaks({**secret["red"], **secret["blue"]})
        assert any("GET /games/" + gid + "/events " in x or "events/4" in x for x in revealed)
        assert any("stream" in x for x in revealed)
        assert not after.leaks(seed_secret)
        assert c.get(f"/games/{gid}").json()["status"] == "active"
