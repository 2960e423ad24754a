"""Leakage: before the reveal, no read path shows a sealed order to anyone but its author,
before the game ends no read path shows the dice seed to a player or spectator, and no read
path shows a private message to anyone but its sender, its recipient and the umpire.

A three-sided blind game: red and blue have submitted orders carrying distinctive markers,
green has not, and every seat has sent private messages carrying markers (to the umpire, to
another side; issue 26). Every reader -- a spectator (anonymous, public game), green, the
umpire, and red and blue for each other's order -- tries every read path over a real socket:
every GET route of the OpenAPI document that takes a game (with each event number, past
version, query name and decision), the live event and message streams, dry runs, and error
answers of every POST route (a second order, a bad order, a reused Idempotency-Key, an
unknown decision, opening without the right, stale preconditions, bad messages…). No response
body or header may hold an order's marker or nonce, the seed, or a message meant for others.
Then, as a control that the crawl can see them, green completes the set and the markers do
appear -- while the seed still does not (the game goes on).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
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
ROOT = Path(__file__).resolve().parents[2]


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


@dataclass(frozen=True)
class Probe:
    """What the crawl fills into path templates and POSTs, for one ruleset."""

    queries: tuple[str, ...] = ("standing", "nope")
    decisions: tuple[str, ...] = ("bid.r1", "bid.r9")
    actions: tuple[dict[str, Any], ...] = (
        {"kind": "concede", "side": "red"},
        {"kind": "concede", "side": "nobody"},
        {"kind": "bid", "bid": 3},
    )
    orders: tuple[Any, ...] = ({"bid": 99}, {"bid": "x", "motto": 1}, {"bid": 1})


BLIND_PROBE = Probe()


def _fill(path: str, game_id: str, seqs: list[int], probe: Probe) -> list[str]:
    paths = [path.replace("{game_id}", game_id)]
    out: list[str] = []
    for p in paths:
        if "{seq}" in p:
            out += [p.replace("{seq}", str(n)) for n in [*seqs, 0, 99]]
        elif "{version}" in p:  # every past position: version 1, then the one each event made
            out += [p.replace("{version}", str(n)) for n in [1, *(n + 1 for n in seqs), 0, 99]]
        elif "{name}" in p:
            out += [p.replace("{name}", n) for n in probe.queries]
        elif "{decision}" in p:
            out += [p.replace("{decision}", d) for d in probe.decisions]
        else:
            out.append(p)
    return out


def crawl(
    base: str, game_id: str, headers: dict[str, str], seqs: list[int], probe: Probe = BLIND_PROBE
) -> Seen:
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
        crawled = {"/games/{game_id}", "/games/{game_id}/events", "/games/{game_id}/sealed"}
        crawled.add("/games/{game_id}/export")  # a seat's export file (issue 26)
        assert crawled <= set(gets), gets
        for template in gets:
            for path in _fill(template, game_id, seqs, probe):
                seen.add(f"GET {path}", c.get(path))
        for params in ({"after": "0", "limit": "1"}, {"after": "1"}):
            seen.add(f"GET events {params}", c.get(f"/games/{game_id}/events", params=params))
        seen.add("GET events/abc", c.get(f"/games/{game_id}/events/abc"))

        base_path = f"/games/{game_id}"
        any_version = {"If-Match": "*"}
        stale = {"If-Match": 'W/"1"'}
        decision, unknown = probe.decisions
        too_big, malformed, valid = probe.orders
        first, second, third = probe.actions
        posts: list[tuple[str, Any, dict[str, str]]] = [
            ("/rulings", first, {}),
            ("/rulings", second, {}),
            ("/rulings", third, {}),
            ("/actions", second, any_version),
            ("/actions", first, {}),
            ("/actions", third, {**stale, "Idempotency-Key": "red-key"}),
            (f"/sealed/{decision}", too_big, any_version),  # refused by the rules
            (f"/sealed/{decision}", malformed, any_version),
            (f"/sealed/{decision}", valid, stale),  # valid order, stale version
            (f"/sealed/{decision}", valid, {}),  # no If-Match
            # red's key from red: 422 key_reused; from another seat (keys are per seat) its own
            # request, stale here: never red's stored answer
            (f"/sealed/{decision}", valid, {**stale, "Idempotency-Key": "red-key"}),
            (f"/sealed/{unknown}", valid, any_version),
            (f"/sealed/{decision}/open", None, {}),
            (f"/sealed/{decision}/open", None, stale),
            ("/dice/reveal", None, {}),
            ("/phase/end", None, {}),
            ("/phase/advance", None, {}),
            ("/finish", None, {}),
            ("/rollback", {"to_version": 1}, {}),
            ("/takeback", None, {}),
            ("/messages", {"to": "nobody", "text": "x"}, {}),
            ("/messages", {"to": "all", "text": "bell\u0007"}, {}),
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
    with SseStream(base, f"/games/{game_id}/messages/stream", headers=headers) as talk:
        assert talk.status == 200, talk.body
        talk.wait_comment("keep-alive", timeout=5)
    seen.responses.append(("message stream", 200, "\n".join(talk.raw)))
    return seen


def private_talk(
    c: httpx.Client, gid: str, seats: dict[str, str], sides: tuple[str, ...]
) -> dict[str, tuple[str, set[str]]]:
    """Each side writes privately to the umpire and to the next side, the umpire privately to
    each side, and one side to all: marker -> (its text, the seats that may read it)."""
    sent: dict[str, tuple[str, set[str]]] = {}

    def say(sender: str, to: str) -> None:
        marker = f"TALK-{sender}-TO-{to}-{uuid.uuid4().hex}"
        r = c.post(
            f"/games/{gid}/messages",
            json={"to": to, "text": f"psst\n{marker}"},
            headers={"Authorization": f"Bearer {seats[sender]}"},
        )
        assert r.status_code == 201, r.text
        readers = set(seats) if to == "all" else {sender, to, "umpire"}
        sent[f"message {sender}->{to}"] = (marker, readers)

    for i, side in enumerate(sides):
        say(side, "umpire")
        say(side, sides[(i + 1) % len(sides)])
        say("umpire", side)
    say(sides[0], "all")
    return sent


def talk_secrets(sent: dict[str, tuple[str, set[str]]], reader: str | None) -> dict[str, str]:
    """The markers of the messages ``reader`` (None: a spectator) may not read."""
    return {
        name: marker
        for name, (marker, readers) in sent.items()
        if reader not in readers and not (reader is None and "->all" in name)
    }


def _secrets(db_url: str, game_id: str) -> tuple[dict[str, str], str]:
    """Each side's nonce straight from the database, and the dice seed."""
    engine = create_engine(normalize_url(db_url))
    try:
        with engine.connect() as conn:
            nonces: dict[str, str] = dict(
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
        sent = private_talk(c, gid, seats, SIDES)
        readers: dict[str, tuple[dict[str, str], dict[str, str]]] = {
            "spectator": ({}, {**secret["red"], **secret["blue"], **seed_secret}),
            "green": (auth("green"), {**secret["red"], **secret["blue"], **seed_secret}),
            "umpire": (auth("umpire"), {**secret["red"], **secret["blue"], **seed_secret}),
            "red": (auth("red"), {**secret["blue"], **seed_secret}),
            "blue": (auth("blue"), {**secret["red"], **seed_secret}),
        }
        for name, (headers, forbidden) in readers.items():
            talk = talk_secrets(sent, None if name == "spectator" else name)
            seen = crawl(server, gid, headers, seqs=[1, 2])
            assert len(seen.responses) > 35
            leaks = seen.leaks({**forbidden, **talk})
            assert not leaks, f"{name} could read: {leaks}"
            # control: the crawl reads the talk it may read, in the list, stream and export
            allowed = {k: m for k, (m, _) in sent.items() if k not in talk}
            found = " ".join(seen.leaks(allowed))
            for kind in allowed:
                for path in ("/messages (200)", "message stream", "/export (200)"):
                    assert f"{kind} in GET /games/{gid}{path}" in found or (
                        path == "message stream" and f"{kind} in message stream" in found
                    ), (name, kind, path)

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


# -- the same crawl on the real rulesets ------------------------------------------------------

REAL_PROBES = {
    "zoc": (
        "scenarios/zoc/seed-example.json",
        Probe(
            queries=("ezoc-map", "nope"),
            actions=(
                {"kind": "move", "unit": "de-inf-1", "path": ["e3207"]},
                {"kind": "move", "unit": "nobody", "path": ["e3207"]},
                {"kind": "retreat", "unit": "de-inf-1", "path": [], "length": 1},
            ),
        ),
    ),
    "zoi": (
        "scenarios/zoi/example.json",
        Probe(
            queries=("zone-map", "nope"),
            actions=(
                {"kind": "move", "unit": "fr-ldr", "path": ["0610"]},
                {"kind": "move", "unit": "nobody", "path": ["0610"]},
                {"kind": "move", "unit": "aus-ir49", "path": ["0605"]},  # not the phasing side
            ),
        ),
    ),
    "terrain": (
        "scenarios/terrain/example.json",
        Probe(
            queries=("line-of-sight", "nope"),
            actions=(
                {"kind": "move", "unit": "fr-wagon", "path": [[200, 590]]},
                {"kind": "move", "unit": "nobody", "path": [[1, 1]]},
                {"kind": "fire", "unit": "fr-inf", "target": "nobody"},
            ),
        ),
    ),
}


@pytest.mark.parametrize("ruleset", sorted(REAL_PROBES))
def test_no_read_path_leaks_the_seed_of_a_real_game(server: str, db_url: str, ruleset: str) -> None:
    """zoc, zoi and terrain games (no sealed orders): the seed stays hidden from every reader."""
    path, probe = REAL_PROBES[ruleset]
    scenario = json.loads((ROOT / path).read_text())
    with httpx.Client(base_url=server, timeout=30) as c:
        created = c.post("/games", json={"ruleset": ruleset, "scenario": scenario})
        assert created.status_code == 201, created.text
        gid, seats = created.json()["id"], created.json()["seats"]
        _, seed = _secrets(db_url, gid)
        for reader in (None, *sorted(seats)):
            headers = {"Authorization": f"Bearer {seats[reader]}"} if reader else {}
            seen = crawl(server, gid, headers, seqs=[], probe=probe)
            assert len(seen.responses) > 30
            assert not seen.leaks({"the dice seed": seed}), reader


def test_no_read_path_leaks_an_objective_zones_allocation(server: str, db_url: str) -> None:
    """An objective-zones game at Objective Combat: the union's sealed allocation (its nonce
    and canonical form) and the seed stay hidden from the confederates, the umpire and
    spectators until the confederates' order reveals both."""
    scenario = json.loads((ROOT / "scenarios/objective-zones/example.json").read_text())
    decision = "allocation:mill:t1"
    probe = Probe(
        queries=("zone", "allocation-options"),
        decisions=(decision, "allocation:nowhere:t9"),
        actions=(
            {"kind": "musketry", "unit": "us-1", "zone": "mill"},
            {"kind": "enter", "unit": "nobody", "zone": "mill"},
            {"kind": "withdraw", "unit": "us-1", "zone": "mill"},
        ),
        orders=({"sectors": {"1": ["us-1", "us-2"]}}, {"sectors": 3}, {"sectors": {}}),
    )
    with httpx.Client(base_url=server, timeout=30) as c:
        created = c.post("/games", json={"ruleset": "objective-zones", "scenario": scenario})
        assert created.status_code == 201, created.text
        gid, seats = created.json()["id"], created.json()["seats"]

        def auth(seat: str, version: int | str = "*") -> dict[str, str]:
            tag = "*" if version == "*" else f'W/"{version}"'
            return {"Authorization": f"Bearer {seats[seat]}", "If-Match": tag}

        declare = {"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-2", "us-3"]}
        r = c.post(f"/games/{gid}/actions", json=declare, headers=auth("union", 1))
        assert r.status_code == 201, r.text
        for version in range(2, 6):
            r = c.post(f"/games/{gid}/phase/advance", headers=auth("umpire", version))
            assert r.status_code == 201, r.text
        # Not the allocation of the OpenAPI example (a public document): its canonical form
        # must be found nowhere but in the union's own answers.
        order = {"sectors": {"1": ["us-1", "us-bty"], "2": ["us-2"]}}
        r = c.post(f"/games/{gid}/sealed/{decision}", json=order, headers=auth("union"))
        assert r.status_code == 201 and r.json()["reveal"] is None, r.text
        nonces, seed = _secrets(db_url, gid)
        secret = {
            "the union's nonce": nonces["union"],
            "the union's order": r.json()["canonical"],
            "the dice seed": seed,
        }
        seqs = list(range(1, 7))
        for reader in (None, "confederate", "umpire"):
            headers = {"Authorization": f"Bearer {seats[reader]}"} if reader else {}
            seen = crawl(server, gid, headers, seqs=seqs, probe=probe)
            assert not seen.leaks(secret), (reader, seen.leaks(secret))
        own = c.get(f"/games/{gid}/sealed", headers={"Authorization": f"Bearer {seats['union']}"})
        assert own.json()["open"][0]["own"]["order"] == order  # the crawl can see orders


def test_no_read_path_shows_spectators_the_talk_when_the_game_says_so(server: str) -> None:
    """``match.spectators_read_chat: false``: not even a public message reaches a spectator
    (a spectator token, or an anonymous reader of the public game) on any read path."""
    with httpx.Client(base_url=server, timeout=30) as c:
        created = c.post(
            "/games",
            json={
                "ruleset": "blind",
                "scenario": {"sides": list(SIDES), "budget": 10, "rounds": 2},
                "match": {"spectators_read_chat": False},
            },
        )
        assert created.status_code == 201, created.text
        gid, seats = created.json()["id"], created.json()["seats"]
        sent = private_talk(c, gid, seats, SIDES)
        every = {name: marker for name, (marker, _) in sent.items()}
        minted = c.post(
            f"/games/{gid}/tokens", json={}, headers={"Authorization": f"Bearer {seats['red']}"}
        )
        assert minted.status_code == 201, minted.text
        for headers in ({}, {"Authorization": f"Bearer {minted.json()['token']}"}):
            seen = crawl(server, gid, headers, seqs=[])
            assert not seen.leaks(every), seen.leaks(every)
