"""Helpers of the match-flow API tests (turns, dice, undo, clocks, audit): a fake time
source, a tiny game handle and problem assertions. Fixtures are in conftest.py."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.support.tiny import TINY

PROBLEM = "application/problem+json"
START = 1_700_000_000.0


class FakeClock:
    """An injectable time source: ``create_app(settings, clock=FakeClock())``."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Game:
    client: httpx.AsyncClient
    id: str
    seats: dict[str, str]
    body: dict[str, Any] = field(default_factory=dict)

    def auth(self, seat: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.seats[seat]}"}

    def write(self, seat: str, version: int | str = "*", **extra: str) -> dict[str, str]:
        tag = "*" if version == "*" else f'W/"{version}"'
        return {**self.auth(seat), "If-Match": tag, **extra}

    async def view(self, seat: str | None = None) -> dict[str, Any]:
        r = await self.client.get(f"/games/{self.id}", headers=self.auth(seat) if seat else {})
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    async def version(self) -> int:
        return int((await self.view())["version"])

    async def act(self, seat: str, action: dict[str, Any], **headers: str) -> httpx.Response:
        """Submit at the current version (read first, like a client would)."""
        version = await self.version()
        return await self.client.post(
            f"/games/{self.id}/actions", json=action, headers=self.write(seat, version, **headers)
        )

    async def post(self, path: str, seat: str, json: Any = None, **headers: str) -> httpx.Response:
        """POST a match-flow command (phase/end, rollback…) at the current version."""
        version = await self.version()
        return await self.client.post(
            f"/games/{self.id}{path}", json=json, headers=self.write(seat, version, **headers)
        )

    async def events(self, seat: str = "umpire") -> list[dict[str, Any]]:
        r = await self.client.get(
            f"/games/{self.id}/events", params={"limit": 500}, headers=self.auth(seat)
        )
        assert r.status_code == 200, r.text
        items: list[dict[str, Any]] = r.json()["items"]
        return items


def tiny_scenario(**extra: Any) -> dict[str, Any]:
    return {**(TINY.example_scenario() or {}), **extra}


async def new_game(
    client: httpx.AsyncClient,
    *,
    match: dict[str, Any] | None = None,
    public: bool = True,
    ruleset: str = "tiny",
    **scenario: Any,
) -> Game:
    payload: dict[str, Any] = {
        "ruleset": ruleset,
        "scenario": tiny_scenario(**scenario),
        "public": public,
    }
    if match is not None:
        payload["match"] = match
    r = await client.post("/games", json=payload)
    assert r.status_code == 201, r.text
    body = r.json()
    return Game(client=client, id=body["id"], seats=body["seats"], body=body)


def problem(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = r.json()
    assert body["code"] == code, body
    return body


def rederive(seed_hex: str, game_id: str, n: int, sides: int, client_seed: str = "") -> int:
    """The published recipe ``referee-dice-v1``, written out independently of app.match."""
    seed = bytes.fromhex(seed_hex)
    attempt = 0
    while True:
        msg = f"referee-dice-v1|{game_id}|{n}|{sides}|{client_seed}|{attempt}".encode()
        x = int.from_bytes(hmac.new(seed, msg, hashlib.sha256).digest()[:8], "big")
        if x < 2**64 - (2**64 % sides):
            return x % sides + 1
        attempt += 1


SEQUENCE_CITATION = {"ruleset": "tiny", "section": "5", "title": "Sequence of play"}
