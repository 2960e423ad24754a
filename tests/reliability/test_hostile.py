"""The hostile-input corpus (``data/hostile.yaml``, issue 9): every request is answered 4xx
``application/problem+json`` -- never a 5xx, never a success -- and leaves the database exactly
as it was. Over a real socket, on both databases."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from fastapi import FastAPI
from sqlalchemy import text

from tests.support.tiny import TINY

CORPUS = Path(__file__).parent / "data" / "hostile.yaml"
NIL = "00000000-0000-0000-0000-000000000000"
ZOC_SEED = Path(__file__).parents[2] / "scenarios" / "zoc" / "seed-example.json"

EXPANSIONS = {
    "{zeros}": "0" * 4000,
    "{huge}": "x" * 900_000,
    "{long}": "x" * 1000,
    "{long10k}": "x" * 10_000,
    "{deep}": '"x": ' + "[" * 3000 + "]" * 3000,
}


@dataclass(frozen=True)
class Hostile:
    name: str
    path: str
    headers: dict[str, str]
    content: bytes


def _expand(value: Any) -> Any:
    if isinstance(value, str):
        if value == "{zones}":
            return [{"id": f"z{i}", "class": "A"} for i in range(1000)]
        for key, text_ in EXPANSIONS.items():
            value = value.replace(key, text_)
        return value
    if isinstance(value, dict):
        return {k: _expand(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v) for v in value]
    return value


def _content(spec: dict[str, Any]) -> tuple[bytes, str]:
    ctype = str(spec.get("content_type", "application/json"))
    if "raw" in spec:
        raw = _expand(str(spec["raw"])) * int(spec.get("repeat", 1))
        return raw.encode("utf-8", "surrogatepass"), ctype
    if spec.get("scenario_budget") == "zoc":
        scenario = json.loads(ZOC_SEED.read_text())
        scenario["hexes"] = {f"z{i:05d}": {} for i in range(60_000)}
        return json.dumps({"ruleset": "zoc", "scenario": scenario}).encode(), ctype
    if "body" in spec:
        return json.dumps(_expand(spec["body"])).encode(), ctype
    return b"", ctype


def corpus(games: dict[str, str], tokens: dict[str, str]) -> list[Hostile]:
    """Every request of the corpus, placeholders filled in."""
    data = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))
    out: list[Hostile] = []

    def build(name: str, path: str, spec: dict[str, Any]) -> None:
        for key, value in {**games, "nil": NIL}.items():
            path = path.replace("{" + key + "}", value)
        headers = {"If-Match": "*"}
        if_match = spec.get("if_match", "*")
        if if_match == "none":
            headers.pop("If-Match")
        else:
            headers["If-Match"] = str(if_match)
        seat = spec.get("seat")
        if "token" in spec:
            headers["Authorization"] = str(spec["token"])
        elif seat not in (None, "none"):
            headers["Authorization"] = f"Bearer {tokens[str(seat)]}"
        if "idempotency_key_length" in spec:
            headers["Idempotency-Key"] = "k" * int(spec["idempotency_key_length"])
        if spec.get("reuse_key"):
            headers["Idempotency-Key"] = "hostile-reused"
        headers.update({k: _expand(str(v)) for k, v in (spec.get("headers") or {}).items()})
        content, ctype = _content(spec)
        if content:
            headers["Content-Type"] = "text/plain" if spec.get("body_as_text") else ctype
        out.append(Hostile(name, _expand(path), headers, content))

    for route in data["game_routes"]:
        game_path = route["path"].replace("{game}", "{" + route["game"] + "}")
        for attack in data["header_attacks"]:
            if route.get("auth_only") and not attack.get("auth"):
                continue
            path = game_path
            if "path_game" in attack:
                path = route["path"].replace("{game}", attack["path_game"])
            seat = attack.get("seat", route["seat"])
            spec = {**route, **attack, "seat": seat}
            build(f"{attack['name']}: {route['path']}", path, spec)
        if "body" in route:
            for attack in data["body_attacks"]:
                spec = {**route, **attack}
                if attack.get("body_as_text"):
                    spec["body"] = route["body"]
                build(f"{attack['name']}: {route['path']}", game_path, spec)
    for spec in data["requests"]:
        build(spec["name"], spec["path"], spec)
    return out


def _snapshot(app: FastAPI) -> dict[str, Any]:
    queries = {
        "games": "SELECT id, version, status, winner, dice_counter FROM games ORDER BY id",
        "events": "SELECT game_id, seq, kind FROM events ORDER BY game_id, seq",
        "scenarios": "SELECT count(*) FROM scenarios",
        "seats": "SELECT game_id, seat, token_hash FROM seats ORDER BY game_id, seat",
        "tokens": "SELECT count(*) FROM access_tokens",
        "webhooks": "SELECT count(*) FROM webhooks",
        "sealed": "SELECT game_id, decision, seat FROM sealed_orders ORDER BY id",
        "messages": "SELECT game_id, seq FROM messages ORDER BY id",
    }
    with app.state.engine.connect() as conn:
        return {k: [tuple(r) for r in conn.execute(text(q))] for k, q in queries.items()}


@pytest.fixture
def world(server: str) -> Iterator[tuple[dict[str, str], dict[str, str]]]:
    with httpx.Client(base_url=server, timeout=30) as c:
        tiny = c.post(
            "/games",
            json={
                "ruleset": "tiny",
                "scenario": {**(TINY.example_scenario() or {}), "sequence": True},
            },
        ).json()
        blind = c.post("/games", json={"ruleset": "blind", "scenario": {"budget": 10}}).json()
        other = c.post("/games", json={"ruleset": "tiny", "scenario": {"length": 5}}).json()
        done = c.post(
            f"/games/{tiny['id']}/actions",
            json={"kind": "step", "pawn": "r1", "n": 1},
            headers={
                "Authorization": f"Bearer {tiny['seats']['red']}",
                "If-Match": "*",
                "Idempotency-Key": "hostile-reused",
            },
        )
        assert done.status_code == 201, done.text
    tokens = {**tiny["seats"], "other-red": other["seats"]["red"]}
    yield {"tiny": tiny["id"], "blind": blind["id"]}, tokens


def test_the_corpus_covers_every_write_route(app: FastAPI) -> None:
    posts = {p for p, ops in app.openapi()["paths"].items() if "post" in ops}
    requests = corpus(
        {"tiny": "T", "blind": "B"}, dict.fromkeys(["red", "blue", "umpire", "other-red"], "x")
    )
    assert len(requests) >= 150

    def matches(route: str, path: str) -> bool:
        parts, got = route.split("/"), path.split("/")
        return len(parts) == len(got) and all(
            a == b or a.startswith("{") for a, b in zip(parts, got, strict=True)
        )

    covered = {p for p in posts if any(matches(p, h.path) for h in requests)}
    assert covered == posts, sorted(posts - covered)


def test_hostile_requests_are_refused_and_change_nothing(
    app: FastAPI, server: str, world: tuple[dict[str, str], dict[str, str]]
) -> None:
    games, tokens = world
    requests = corpus(games, tokens)
    before = _snapshot(app)
    wrong: list[str] = []
    with httpx.Client(base_url=server, timeout=60) as c:
        for h in requests:
            r = c.post(h.path, content=h.content, headers=h.headers)
            ctype = r.headers.get("content-type", "")
            if not (400 <= r.status_code < 500 and ctype.startswith("application/problem+json")):
                wrong.append(f"{h.name}: {r.status_code} {ctype} {r.text[:200]}")
    assert not wrong, "\n".join(wrong)
    assert _snapshot(app) == before
