"""``Prefer: return=minimal`` on a submission: the change alone (no state), with
``Preference-Applied``; the same event stored either way; a replay answers the stored answer."""

from __future__ import annotations

import httpx
import pytest

from app.api.routes._outcome import prefers_minimal
from tests.api.conftest import Game

pytestmark = pytest.mark.anyio

STEP = {"kind": "step", "pawn": "r1", "n": 2}


@pytest.mark.parametrize(
    ("header", "minimal"),
    [
        ("return=minimal", True),
        ("Return=Minimal", True),
        ('return="minimal"', True),
        ("respond-async, return=minimal; foo=bar", True),
        ("return = minimal", True),
        ("return=representation", False),
        ("handling=lenient", False),
        ("", False),
        (None, False),
        ("return=minimal-ish", False),
    ],
)
def test_prefer_header_parsing(header: str | None, minimal: bool) -> None:
    assert prefers_minimal(header) is minimal


async def test_minimal_answer_is_the_full_answer_without_state(
    client: httpx.AsyncClient, game: Game
) -> None:
    side = next(s for s in game.seats if s != "umpire")
    assert side == "red"
    full = await client.post(f"/games/{game.id}/actions", json=STEP, headers=game.act(side, 1))
    assert full.status_code == 201, full.text
    assert "preference-applied" not in full.headers
    back = {"kind": "step", "pawn": "r1", "n": -2}
    # the next move, asked minimal (red again: the tiny ruleset has no sequence of play)
    r = await client.post(
        f"/games/{game.id}/actions",
        json=back,
        headers={**game.act(side, 2), "Prefer": "return=minimal"},
    )
    assert r.status_code == 201, r.text
    assert r.headers["preference-applied"] == "return=minimal"
    assert r.headers["etag"] == 'W/"3"'
    assert r.headers["location"] == f"/games/{game.id}/events/2"
    body = r.json()
    assert set(body) == {"event", "version", "ruling", "position", "clock"}
    assert body["event"] == 2 and body["version"] == 3
    assert body["ruling"]["legal"] is True
    assert body["ruling"]["effects"][0]["details"] == {"from": 2, "to": 0}
    # the stored event is the same as for a full answer: its ruling is the one answered
    event = (await client.get(f"/games/{game.id}/events/2")).json()
    assert event["ruling"] == body["ruling"]
    state = (await client.get(f"/games/{game.id}")).json()["state"]
    assert full.json()["state"] != state  # the move back was applied


async def test_minimal_on_a_replay_answers_the_stored_answer(
    client: httpx.AsyncClient, game: Game
) -> None:
    headers = {**game.act("red", 1), "Idempotency-Key": "k-1", "Prefer": "return=minimal"}
    first = await client.post(f"/games/{game.id}/actions", json=STEP, headers=headers)
    assert first.status_code == 201 and first.headers["preference-applied"] == "return=minimal"
    again = await client.post(f"/games/{game.id}/actions", json=STEP, headers=headers)
    assert again.status_code == 201
    assert again.headers["idempotent-replayed"] == "true"
    assert "preference-applied" not in again.headers
    replayed = again.json()
    assert "state" in replayed
    assert {k: v for k, v in replayed.items() if k != "state"} == first.json()


async def test_minimal_refusals_are_the_same_problems(
    client: httpx.AsyncClient, game: Game
) -> None:
    off = {"kind": "step", "pawn": "r1", "n": -1}
    plain = await client.post(f"/games/{game.id}/actions", json=off, headers=game.act("red", 1))
    minimal = await client.post(
        f"/games/{game.id}/actions",
        json=off,
        headers={**game.act("red", 1), "Prefer": "return=minimal"},
    )
    assert plain.status_code == minimal.status_code == 422
    assert plain.json() == minimal.json()
    assert "preference-applied" not in minimal.headers
