"""Audit replay through HTTP on both databases and through ``referee audit``: a game replays
identically with the rules it was played under; a modified copy of the tiny ruleset that
rules differently makes the audit name the first event that differs. Also the whole match
flow once over a real socket (uvicorn)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import BaseModel
from sqlalchemy import text

from app.cli import main
from app.config import Settings
from app.main import create_app
from app.rules import Ruling, registry
from tests.match.flowkit import FakeClock, Game, new_game, problem, tiny_scenario
from tests.support.blind import BLIND, BlindBoard, BlindOptions, BlindRuleset, BlindState
from tests.support.server import running_server
from tests.support.tiny import TINY, Step, TinyBoard, TinyOptions, TinyRuleset, TinyState

pytestmark = pytest.mark.anyio


class ShortSteps(TinyRuleset):
    """A 'rules change': steps of more than two squares are now illegal (section 2)."""

    version = "1.1"

    def adjudicate(
        self,
        board: TinyBoard,
        state: TinyState,
        action: Any,
        options: TinyOptions,
        dice: Sequence[int] = (),
    ) -> Ruling:
        ruling = super().adjudicate(board, state, action, options, dice)
        if isinstance(action, Step) and abs(action.n) > 2:
            return Ruling(legal=False, summary="Steps are at most two squares now.")
        return ruling


@pytest.fixture
def short_steps() -> Iterator[None]:
    """Play with TINY, then audit with the changed rules registered under the same id."""
    yield None
    registry.register(TINY)


def swap_rules() -> None:
    registry.register(ShortSteps())


async def played(g: Game) -> None:
    """A game using every kind of event the tiny ruleset can produce."""
    plays: list[tuple[str, str, Any]] = [
        ("act", "red", {"kind": "step", "pawn": "r1", "n": 2}),
        ("act", "red", {"kind": "roll", "pawn": "r1"}),
        ("post", "red", "/phase/end"),
        ("act", "blue", {"kind": "step", "pawn": "b1", "n": -3}),  # the one that will differ
        ("post", "blue", "/phase/end"),
        ("act", "blue", {"kind": "step", "pawn": "b1", "n": -1}),
        ("act", "blue", {"kind": "step", "pawn": "b1", "n": -4}),
        ("post", "blue", "/takeback"),
        ("post", "umpire", "/phase/advance"),
        ("act", "umpire", {"kind": "note", "text": "all fine"}),
    ]
    for how, seat, what in plays:
        if how == "act":
            r = await g.act(seat, what)
        else:
            r = await g.post(what, seat)
        assert r.status_code == 201, (what, r.text)
    r = await g.post("/rollback", "umpire", json={"to_version": 8})
    assert r.status_code == 201, r.text


async def test_audit_of_an_honest_game_is_clean(client: httpx.AsyncClient) -> None:
    g = await new_game(client, length=30, sequence=True, match={"takeback": True})
    await played(g)
    url = f"/games/{g.id}/audit"
    problem(await client.get(url), 401, "auth.required")
    problem(await client.get(url, headers=g.auth("red")), 403, "audit.umpire_only")
    report = (await client.get(url, headers=g.auth("umpire"))).json()
    assert report["ok"] is True, report
    assert report["events"] == 11 and report["first_difference"] is None
    assert report["recorded_version"] == report["replayed_version"] == "1.0"
    assert report["version_changed"] is False


async def test_audit_names_the_first_event_the_changed_rules_judge_differently(
    client: httpx.AsyncClient, short_steps: None
) -> None:
    g = await new_game(client, length=30, sequence=True, match={"takeback": True})
    await played(g)
    swap_rules()
    report = (await client.get(f"/games/{g.id}/audit", headers=g.auth("umpire"))).json()
    assert report["ok"] is False
    assert report["replayed_version"] == "1.1" and report["recorded_version"] == "1.0"
    first = report["first_difference"]
    assert (first["seq"], first["kind"], first["field"]) == (4, "step", "ruling")
    assert report["version_changed"] is True
    assert first["message"].endswith("after the ruleset version changed from 1.0 to 1.1")
    assert first["recorded"]["legal"] is True and first["replayed"]["legal"] is False
    # event 7 (a four-square step, taken back later) differs too; nothing else does
    assert [d["seq"] for d in report["differences"]] == [4, 7]


async def test_audit_catches_a_tampered_state(client: httpx.AsyncClient, app: FastAPI) -> None:
    g = await new_game(client, length=30)
    for n in (1, 2, 3):
        assert (await g.act("red", {"kind": "step", "pawn": "r1", "n": n})).status_code == 201
    with app.state.engine.begin() as conn:
        row = conn.execute(
            text("SELECT state_after FROM events WHERE game_id = :id AND seq = 2"), {"id": g.id}
        ).scalar_one()
        state = json.loads(row) if isinstance(row, str) else row
        state["positions"]["r1"] = 20
        conn.execute(
            text("UPDATE events SET state_after = :s WHERE game_id = :id AND seq = 2"),
            {"s": json.dumps(state), "id": g.id},
        )
    report = (await client.get(f"/games/{g.id}/audit", headers=g.auth("umpire"))).json()
    first = report["first_difference"]
    assert (first["seq"], first["field"]) == (2, "state")
    assert first["recorded"]["positions"]["r1"] == 20 and first["replayed"]["positions"]["r1"] == 3
    # the replay went on from the recorded (tampered) state, so event 3 differs as well
    assert [d["seq"] for d in report["differences"]] == [2, 3]


async def test_referee_audit_command(
    client: httpx.AsyncClient, db_url: str, short_steps: None, capsys: pytest.CaptureFixture[str]
) -> None:
    g = await new_game(client, length=30, sequence=True, match={"takeback": True})
    await played(g)
    assert main(["audit", g.id, "--database-url", db_url]) == 0
    assert "OK: every ruling, state and roll replays identically" in capsys.readouterr().out

    swap_rules()
    assert main(["audit", g.id, "--database-url", db_url]) == 1
    out = capsys.readouterr().out
    assert "DIFFERS at event 4 (step, version 5): ruling" in out
    assert "events 1-11: judged by 1.0, replayed with 1.1 (another version), 2 differences" in out
    assert "first differing event: 4" in out
    assert main(["audit", g.id, "--database-url", db_url, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["first_difference"]["seq"] == 4

    assert main(["audit", "not-a-game", "--database-url", db_url]) == 2
    assert "game.not_found" in capsys.readouterr().err


def test_match_flow_over_a_real_socket(db_url: str) -> None:
    """Phases, dice, clock, takeback, rollback, reveal and audit against uvicorn."""
    clock = FakeClock()
    app = create_app(Settings(database_url=db_url), clock=clock)
    try:
        with running_server(app) as base, httpx.Client(base_url=base, timeout=30) as c:
            created = c.post(
                "/games",
                json={
                    "ruleset": "tiny",
                    "scenario": tiny_scenario(length=30, sequence=True),
                    "match": {"takeback": True, "clock": {"budget_seconds": 60}},
                },
            ).json()
            gid, seats = created["id"], created["seats"]

            def headers(seat: str, **extra: str) -> dict[str, str]:
                etag = c.get(f"/games/{gid}").headers["etag"]
                return {"Authorization": f"Bearer {seats[seat]}", "If-Match": etag, **extra}

            out = c.post(
                f"/games/{gid}/actions",
                json={"kind": "step", "pawn": "b1", "n": -1},
                headers=headers("blue"),
            )
            assert out.status_code == 409 and out.json()["code"] == "phase.not_your_turn"
            clock.advance(10)
            rolled = c.post(
                f"/games/{gid}/actions",
                json={"kind": "roll", "pawn": "r1"},
                headers=headers("red", **{"Referee-Client-Seed": "socket"}),
            )
            assert rolled.status_code == 201 and rolled.json()["clock"]["remaining"]["red"] == 50
            assert c.post(f"/games/{gid}/phase/end", headers=headers("red")).status_code == 201
            assert (
                c.post(
                    f"/games/{gid}/actions",
                    json={"kind": "step", "pawn": "b1", "n": -2},
                    headers=headers("blue"),
                ).status_code
                == 201
            )
            assert c.post(f"/games/{gid}/takeback", headers=headers("blue")).status_code == 201
            assert (
                c.post(
                    f"/games/{gid}/rollback", json={"to_version": 2}, headers=headers("umpire")
                ).status_code
                == 201
            )
            assert c.post(f"/games/{gid}/dice/reveal", headers=headers("umpire")).status_code == 201
            umpire = {"Authorization": f"Bearer {seats['umpire']}"}
            verified = c.get(f"/games/{gid}/dice/verify", headers=umpire).json()
            assert verified["ok"] is True and verified["checked"] == 1
            report = c.get(f"/games/{gid}/audit", headers=umpire).json()
            assert report["ok"] is True and report["events"] == 6
            view = c.get(f"/games/{gid}").json()
            assert view["position"]["phase"] == "move" and view["version"] == 7
    finally:
        app.state.engine.dispose()


class DoubleDice(BlindRuleset):
    """A 'rules change' in the blind test ruleset: a die now counts double (so every total,
    recorded in the ruling, changes whatever was rolled)."""

    version = "2.0"

    def resolve_sealed(
        self,
        board: BlindBoard,
        state: BlindState,
        decision: str,
        orders: Mapping[str, BaseModel],
        options: BlindOptions,
        dice: Sequence[int] = (),
    ) -> Ruling:
        doubled = [2 * d for d in dice]
        return super().resolve_sealed(board, state, decision, orders, options, doubled)


async def test_audit_replays_sealed_reveals(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/games", json={"ruleset": "blind", "scenario": {"budget": 10, "rounds": 2}}
    )
    g = Game(client=client, id=r.json()["id"], seats=r.json()["seats"])
    assert (await g.post("/sealed/bid.r1", "red", json={"bid": 3})).status_code == 201
    assert (await g.post("/sealed/bid.r1", "blue", json={"bid": 2})).status_code == 201
    assert (await g.post("/sealed/bid.r2", "blue", json={"bid": 1})).status_code == 201
    opened = await g.post("/sealed/bid.r2/open", "umpire")
    assert opened.status_code == 200, opened.text
    kinds = [e["kind"] for e in await g.events()]
    assert kinds == [
        "sealed_received",
        "sealed_received",
        "sealed_revealed",
        "sealed_received",
        "sealed_revealed",
    ]
    url = f"/games/{g.id}/audit"
    report = (await client.get(url, headers=g.auth("umpire"))).json()
    assert report["ok"] is True and report["events"] == 5, report

    registry.register(DoubleDice())
    try:
        report = (await client.get(url, headers=g.auth("umpire"))).json()
    finally:
        registry.register(BLIND)
    first = report["first_difference"]
    assert (first["seq"], first["kind"], first["field"]) == (3, "sealed_revealed", "ruling")
