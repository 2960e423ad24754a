"""Verifiable dice through HTTP on both databases: the commitment at creation, rolls derived
and recorded with their events, client seeds, dry runs that never roll, the umpire's reveal,
verification by the published recipe, physical dice entered by the umpire."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text

from app.config import Settings
from app.main import create_app
from app.rules import Ruling, registry
from tests.match.flowkit import Game, new_game, problem, rederive, tiny_scenario
from tests.support.server import running_server
from tests.support.tiny import TinyBoard, TinyOptions, TinyRuleset, TinyState

pytestmark = pytest.mark.anyio

ROLL = {"kind": "roll", "pawn": "r1"}


def stored_seed(app: FastAPI, game: Game) -> str:
    with app.state.engine.connect() as conn:
        seed = conn.execute(
            text("SELECT dice_seed FROM games WHERE id = :id"), {"id": game.id}
        ).scalar_one()
    return str(seed)


async def test_commitment_at_creation_and_rolls_recorded_with_the_event(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    g = await new_game(client, length=30)
    seed = stored_seed(app, g)
    dice = (await g.view())["dice"]
    assert dice == {
        "recipe": "referee-dice-v1",
        "commitment": hashlib.sha256(bytes.fromhex(seed)).hexdigest(),
        "rolled": 0,
        "physical": False,
        "seed_revealed": False,
    }
    positions = [0]
    for n in range(3):
        r = await g.act("red", ROLL)
        assert r.status_code == 201, r.text
        event = (await client.get(f"/games/{g.id}/events/{r.json()['event']}")).json()
        value = rederive(seed, g.id, n, 6)
        assert event["dice"] == [
            {"n": n, "sides": 6, "value": value, "client_seed": None, "entered_by": None}
        ]
        positions.append(min(positions[-1] + value, 29))
        assert r.json()["state"]["positions"]["r1"] == positions[-1]
        assert event["ruling"]["effects"][0]["details"]["roll"] == value
    info = (await client.get(f"/games/{g.id}/dice", headers=g.auth("red"))).json()
    assert info["rolled"] == 3 and info["seed"] is None
    assert [(x["event"], x["n"], x["kind"]) for x in info["rolls"]] == [
        (1, 0, "roll"),
        (2, 1, "roll"),
        (3, 2, "roll"),
    ]
    # the secret seed appears in no response of a player, a spectator or the umpire
    for headers in ({}, g.auth("red"), g.auth("blue"), g.auth("umpire")):
        for path in ("", "/dice", "/events", "/events/1", "/scenario"):
            body = (await client.get(f"/games/{g.id}{path}", headers=headers)).text
            assert seed not in body, path


async def test_client_seed_is_mixed_into_the_roll(client: httpx.AsyncClient, app: FastAPI) -> None:
    g = await new_game(client, length=30)
    seed = stored_seed(app, g)
    r = await g.act("red", ROLL, **{"Referee-Client-Seed": "red-lucky-7"})
    assert r.status_code == 201
    event = (await client.get(f"/games/{g.id}/events/1")).json()
    assert event["dice"][0]["client_seed"] == "red-lucky-7"
    assert event["dice"][0]["value"] == rederive(seed, g.id, 0, 6, "red-lucky-7")
    bad = await g.act("red", ROLL, **{"Referee-Client-Seed": "has space"})
    problem(bad, 422, "dice.invalid_client_seed")


async def test_dry_runs_and_illegal_actions_never_roll(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    g = await new_game(client, length=30)
    seed = stored_seed(app, g)
    for _ in range(3):
        r = await client.post(f"/games/{g.id}/rulings", json=ROLL, headers=g.auth("red"))
        assert r.status_code == 200 and r.headers["referee-dice-needed"] == "6"
        ruling = r.json()
        assert ruling["legal"] is True and ruling["effects"] == []
        assert ruling["details"] == {"pending_dice": [6]}
    # an illegal dice action is refused before any die is rolled
    r = await g.act("red", {"kind": "roll", "pawn": "nobody"})
    assert problem(r, 422, "action.illegal")["ruling"]["violations"][0]["code"] == (
        "tiny.unknown_pawn"
    )
    assert (await g.view())["dice"]["rolled"] == 0
    # so the first real roll is still roll number 0
    assert (await g.act("red", ROLL)).status_code == 201
    event = (await client.get(f"/games/{g.id}/events/1")).json()
    assert event["dice"][0]["n"] == 0
    assert event["dice"][0]["value"] == rederive(seed, g.id, 0, 6)


async def test_umpire_reveal_then_verify(client: httpx.AsyncClient, app: FastAPI) -> None:
    g = await new_game(client, length=30)
    for _ in range(2):
        assert (await g.act("red", ROLL)).status_code == 201
    for seat in ("red", "umpire"):
        r = await client.get(f"/games/{g.id}/dice/verify", headers=g.auth(seat))
        problem(r, 403, "dice.seed_sealed")
    problem(await g.post("/dice/reveal", "red"), 403, "dice.umpire_only")
    r = await g.post("/dice/reveal", "umpire")
    assert r.status_code == 201, r.text
    seed = stored_seed(app, g)
    event = (await client.get(f"/games/{g.id}/events/{r.json()['event']}")).json()
    assert event["kind"] == "seed_revealed" and event["visible_to"] is None
    assert seed not in json.dumps(event)
    assert (await g.view())["dice"]["seed_revealed"] is True

    assert (await client.get(f"/games/{g.id}/dice", headers=g.auth("umpire"))).json()[
        "seed"
    ] == seed
    assert (await client.get(f"/games/{g.id}/dice", headers=g.auth("red"))).json()["seed"] is None
    problem(
        await client.get(f"/games/{g.id}/dice/verify", headers=g.auth("red")),
        403,
        "dice.seed_sealed",
    )
    verified = (await client.get(f"/games/{g.id}/dice/verify", headers=g.auth("umpire"))).json()
    assert verified["ok"] is True and verified["commitment_ok"] is True
    assert verified["checked"] == 2 and verified["mismatches"] == []
    problem(await g.post("/dice/reveal", "umpire"), 409, "dice.already_revealed")

    # verification catches a roll tampered with in the database
    with app.state.engine.begin() as conn:
        row = conn.execute(
            text("SELECT dice FROM events WHERE game_id = :id AND seq = 2"), {"id": g.id}
        ).scalar_one()
        rolls = json.loads(row) if isinstance(row, str) else row
        rolls[0]["value"] = rolls[0]["value"] % 6 + 1
        conn.execute(
            text("UPDATE events SET dice = :d WHERE game_id = :id AND seq = 2"),
            {"d": json.dumps(rolls), "id": g.id},
        )
    verified = (await client.get(f"/games/{g.id}/dice/verify", headers=g.auth("umpire"))).json()
    assert verified["ok"] is False
    assert [(m["event"], m["n"], m["recorded"]) for m in verified["mismatches"]] == [
        (2, 1, rolls[0]["value"])
    ]


async def test_game_over_reveals_the_seed_to_everyone(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    g = await new_game(client, length=30, goal=29)
    assert (await g.act("red", ROLL)).status_code == 201
    assert (await g.act("blue", {"kind": "step", "pawn": "b1", "n": 10})).status_code == 201
    assert (await g.act("blue", {"kind": "step", "pawn": "b1", "n": 10})).status_code == 201
    view = await g.view()
    assert view["status"] == "finished"  # b1 reached the goal square
    problem(await g.act("red", ROLL), 409, "game.finished")
    info = (await client.get(f"/games/{g.id}/dice")).json()  # anonymous spectator
    assert info["seed"] == stored_seed(app, g)
    verified = (await client.get(f"/games/{g.id}/dice/verify")).json()
    assert verified["ok"] is True and verified["checked"] == 1
    # anyone can re-derive every roll from the published values
    for roll in info["rolls"]:
        assert rederive(info["seed"], g.id, roll["n"], roll["sides"]) == roll["value"]
    assert hashlib.sha256(bytes.fromhex(info["seed"])).hexdigest() == info["commitment"]


async def test_physical_dice_entered_by_the_umpire(client: httpx.AsyncClient) -> None:
    g = await new_game(client, length=30, match={"physical_dice": True})
    assert (await g.view())["dice"]["physical"] is True
    body = problem(await g.act("red", ROLL), 403, "dice.umpire_enters")
    assert body["dice_needed"] == [6]
    problem(await g.act("umpire", ROLL), 422, "dice.required")
    problem(await g.act("umpire", ROLL, **{"Referee-Dice": "7"}), 422, "dice.invalid")
    problem(await g.act("umpire", ROLL, **{"Referee-Dice": "2,3"}), 422, "dice.invalid")
    problem(await g.act("umpire", ROLL, **{"Referee-Dice": "two"}), 422, "dice.invalid")
    r = await g.act("umpire", ROLL, **{"Referee-Dice": "4"})
    assert r.status_code == 201, r.text
    assert r.json()["state"]["positions"]["r1"] == 4
    event = (await client.get(f"/games/{g.id}/events/1")).json()
    assert event["seat"] == "umpire"
    assert event["dice"] == [
        {"n": 0, "sides": 6, "value": 4, "client_seed": None, "entered_by": "umpire"}
    ]
    # dice entered for an action that needs none are refused
    step = {"kind": "step", "pawn": "r1", "n": 1}
    problem(await g.act("umpire", step, **{"Referee-Dice": "3"}), 422, "dice.invalid")
    # at the end, verification counts entered dice without deriving them
    assert (await g.post("/finish", "umpire", json={"winner": None})).status_code == 201
    verified = (await client.get(f"/games/{g.id}/dice/verify")).json()
    assert verified["ok"] is True and verified["entered"] == 1 and verified["checked"] == 0

    derived = await new_game(client, length=30)
    r = await derived.act("umpire", ROLL, **{"Referee-Dice": "6"})
    problem(r, 409, "dice.not_physical")


class Fickle(TinyRuleset):
    """A misbehaving ruleset: a roll is legal when judged without dice, illegal with them."""

    id = "fickle"

    def adjudicate(
        self,
        board: TinyBoard,
        state: TinyState,
        action: Any,
        options: TinyOptions,
        dice: Sequence[int] = (),
    ) -> Ruling:
        if dice:
            return Ruling(legal=False, summary=f"rolled {dice[0]}: not allowed after all")
        return super().adjudicate(board, state, action, options, dice)


async def test_a_ruling_illegal_after_rolling_consumes_its_rolls_publicly(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    """No roll shopping: an attempt found illegal only with its dice still uses up its roll
    numbers, in a `dice_consumed` event every reader sees; a retry with another client seed
    gets the next roll number, never a re-roll of the first."""
    registry.register(Fickle())
    try:
        g = await new_game(client, ruleset="fickle")
        before = (await g.view())["state"]
        r = await g.act("red", ROLL, **{"Referee-Client-Seed": "seed-A"})
        body = problem(r, 422, "action.illegal_after_dice")
        assert body["event"] == 1 and body["version"] == 2 and r.headers["etag"] == 'W/"2"'
        assert body["ruling"]["legal"] is False
        first = body["dice"]
        assert [(d["n"], d["client_seed"]) for d in first] == [(0, "seed-A")]
        view = await g.view()
        assert view["dice"]["rolled"] == 1 and view["version"] == 2
        assert view["state"] == before  # the action is not applied

        # the opponent sees the consumed roll
        consumed = (await g.events("blue"))[-1]
        assert consumed["kind"] == "dice_consumed" and consumed["seat"] == "red"
        assert [(d["n"], d["value"], d["client_seed"]) for d in consumed["dice"]] == [
            (0, first[0]["value"], "seed-A")
        ]
        assert consumed["visible_to"] is None
        assert consumed["payload"]["reason"] == "action.illegal_after_dice"

        # a retry with another client seed cannot roll number 0 again
        retry = await g.act("red", ROLL, **{"Referee-Client-Seed": "seed-B"})
        again = problem(retry, 422, "action.illegal_after_dice")
        assert [(d["n"], d["client_seed"]) for d in again["dice"]] == [(1, "seed-B")]
        rolls = (await client.get(f"/games/{g.id}/dice")).json()["rolls"]
        assert [(x["n"], x["value"], x["event"]) for x in rolls] == [
            (0, first[0]["value"], 1),
            (1, again["dice"][0]["value"], 2),
        ]
        seed = stored_seed(app, g)
        assert first[0]["value"] == rederive(seed, g.id, 0, 6, "seed-A")
        audit = await client.get(f"/games/{g.id}/audit", headers=g.auth("umpire"))
        assert audit.json()["ok"] is True, audit.text
    finally:
        registry.unregister("fickle")


def test_documented_recipe_verifies_a_finished_game(db_url: str, tmp_path: Path) -> None:
    """The stand-alone script of docs/match-flow.md, run as a third party would."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "match-flow.md").read_text()
    script = next(
        b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if "referee-dice-v1" in b
    )
    (tmp_path / "verify.py").write_text(script)
    app = create_app(Settings(database_url=db_url))
    try:
        with running_server(app) as base, httpx.Client(base_url=base, timeout=30) as c:
            created = c.post(
                "/games", json={"ruleset": "tiny", "scenario": tiny_scenario(length=50)}
            ).json()
            gid, seats = created["id"], created["seats"]
            for i in range(4):
                etag = c.get(f"/games/{gid}").headers["etag"]
                headers = {"Authorization": f"Bearer {seats['red']}", "If-Match": etag}
                if i % 2:
                    headers["Referee-Client-Seed"] = f"seed-{i}"
                r = c.post(f"/games/{gid}/actions", json=ROLL, headers=headers)
                assert r.status_code == 201, r.text
            etag = c.get(f"/games/{gid}").headers["etag"]
            umpire = {"Authorization": f"Bearer {seats['umpire']}", "If-Match": etag}
            assert c.post(f"/games/{gid}/finish", json={}, headers=umpire).status_code == 201
            ran = subprocess.run(
                [sys.executable, str(tmp_path / "verify.py"), base, gid],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert ran.returncode == 0, ran.stderr
            assert ran.stdout.strip() == "all 4 rolls verified"
            # and it would notice a forged roll
            forged = script.replace('r["value"]', '(r["value"] % 6 + 1)')
            (tmp_path / "forged.py").write_text(forged)
            ran = subprocess.run(
                [sys.executable, str(tmp_path / "forged.py"), base, gid],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert ran.returncode != 0 and "AssertionError" in ran.stderr
    finally:
        app.state.engine.dispose()
