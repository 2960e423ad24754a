"""Turns and phases through HTTP on both databases: position in the game view, sequence
enforcement citing the sequence rule, ending a phase by the acting side, umpire advance."""

from __future__ import annotations

import httpx
import pytest

from tests.match.flowkit import SEQUENCE_CITATION, new_game, problem

pytestmark = pytest.mark.anyio


RED_STEP = {"kind": "step", "pawn": "r1", "n": 1}
BLUE_STEP = {"kind": "step", "pawn": "b1", "n": -1}


async def test_game_view_shows_the_position_and_match_options(client: httpx.AsyncClient) -> None:
    g = await new_game(client, sequence=True)
    view = await g.view()
    assert view["position"] == {
        "turn": 1,
        "phase": "move",
        "phase_title": "Move",
        "phasing_side": "red",
        "acts": "phasing",
        "phases": [
            {"id": "move", "title": "Move", "acts": "phasing"},
            {"id": "react", "title": "React", "acts": "non_phasing"},
        ],
        "sides": ["red", "blue"],
    }
    assert view["match"] == {
        "clock": None,
        "physical_dice": False,
        "takeback": False,
        "enforce_sequence": True,
        "appeal_window_events": 5,
        "spectators_read_chat": True,
    }
    assert view["clock"] is None and view["winner"] is None
    # a ruleset (or scenario) without a sequence of play has no position
    plain = await new_game(client)
    assert (await plain.view())["position"] is None


async def test_only_the_phasing_side_acts_and_rejections_cite_the_sequence(
    client: httpx.AsyncClient,
) -> None:
    g = await new_game(client, sequence=True)
    r = await g.act("blue", BLUE_STEP)
    body = problem(r, 409, "phase.not_your_turn")
    assert body["citations"] == [SEQUENCE_CITATION]
    assert body["position"] == {"turn": 1, "phase": "move", "phasing_side": "red"}
    assert body["side"] == "blue" and body["acts"] == "phasing"
    assert await g.version() == 1  # nothing written

    assert (await g.act("red", RED_STEP)).status_code == 201
    # the umpire moving blue's pawn in red's phase is out of sequence too
    problem(await g.act("umpire", BLUE_STEP), 409, "phase.not_your_turn")
    # an umpire-only action belongs to no side: allowed in any phase
    assert (await g.act("umpire", {"kind": "reset"})).status_code == 201


async def test_ending_phases_walks_the_sequence_of_play(client: httpx.AsyncClient) -> None:
    g = await new_game(client, sequence=True)
    assert (await g.act("red", {"kind": "step", "pawn": "r1", "n": 2})).status_code == 201

    # only the side acting in the phase (or the umpire) may end it
    problem(await g.post("/phase/end", "blue"), 409, "phase.not_your_turn")
    r = await g.post("/phase/end", "red")
    assert r.status_code == 201, r.text
    body = r.json()
    assert r.headers["location"] == f"/games/{g.id}/events/{body['event']}"
    assert r.headers["etag"] == f'W/"{body["version"]}"'
    assert body["position"]["phase"] == "react" and body["position"]["acts"] == "non_phasing"
    assert body["ruling"]["citations"] == [SEQUENCE_CITATION]
    # the react phase snapshotted where the pawns stood when it began
    assert body["state"]["phase_start"] == {"r1": 2, "b1": 9}

    # react: the non-phasing side acts, the phasing side may not
    problem(await g.act("red", RED_STEP), 409, "phase.not_your_turn")
    assert (await g.act("blue", BLUE_STEP)).status_code == 201
    problem(await g.post("/phase/end", "red"), 409, "phase.not_your_turn")
    assert (await g.post("/phase/end", "blue")).status_code == 201

    # blue's player turn, then turn 2 goes back to red
    view = await g.view()
    assert view["position"]["turn"] == 1 and view["position"]["phasing_side"] == "blue"
    assert (await g.post("/phase/end", "blue")).status_code == 201
    assert (await g.post("/phase/end", "red")).status_code == 201
    position = (await g.view())["position"]
    assert (position["turn"], position["phase"], position["phasing_side"]) == (2, "move", "red")

    phases = [e for e in await g.events("red") if e["kind"] == "phase"]
    assert [e["payload"]["to"] for e in phases] == [
        {"turn": 1, "phase": "react", "phasing_side": "red"},
        {"turn": 1, "phase": "move", "phasing_side": "blue"},
        {"turn": 1, "phase": "react", "phasing_side": "blue"},
        {"turn": 2, "phase": "move", "phasing_side": "red"},
    ]
    assert all(e["payload"]["by"] == "end" and e["action"] == {} for e in phases)
    assert [e["seat"] for e in phases] == ["red", "blue", "blue", "red"]
    versions = [e["version"] for e in await g.events()]
    assert versions == list(range(2, 2 + len(versions)))  # one version per event


async def test_umpire_advances_and_preconditions(client: httpx.AsyncClient) -> None:
    g = await new_game(client, sequence=True)
    url = f"/games/{g.id}/phase/advance"
    problem(await client.post(url), 401, "auth.required")
    problem(await client.post(url, headers=g.auth("umpire")), 428, "precondition.if_match_required")
    problem(await client.post(url, headers=g.write("umpire", 9)), 412, "precondition.stale")
    problem(await client.post(url, headers=g.write("red", 1)), 403, "phase.umpire_only")
    r = await client.post(url, headers=g.write("umpire", 1, **{"Idempotency-Key": "adv-1"}))
    assert r.status_code == 201 and r.json()["position"]["phase"] == "react"
    again = await client.post(url, headers=g.write("umpire", 1, **{"Idempotency-Key": "adv-1"}))
    assert again.status_code == 201 and again.text == r.text
    assert again.headers["idempotent-replayed"] == "true"
    assert await g.version() == 2
    # the umpire may also end a phase that is not theirs
    assert (await g.post("/phase/end", "umpire")).status_code == 201
    assert (await g.view())["position"]["phasing_side"] == "blue"


async def test_sequence_not_enforced_by_option_or_absent(client: httpx.AsyncClient) -> None:
    free = await new_game(client, sequence=True, match={"enforce_sequence": False})
    assert (await free.act("blue", BLUE_STEP)).status_code == 201
    assert (await free.view())["position"]["phasing_side"] == "red"
    assert (await free.post("/phase/end", "red")).status_code == 201

    plain = await new_game(client)
    assert (await plain.act("blue", BLUE_STEP)).status_code == 201
    assert (await plain.act("red", RED_STEP)).status_code == 201
    problem(await plain.post("/phase/end", "red"), 409, "phase.no_sequence")
    problem(await plain.post("/phase/advance", "umpire"), 409, "phase.no_sequence")


async def test_match_options_are_validated(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/games",
        json={
            "ruleset": "tiny",
            "scenario": {"length": 5},
            "match": {"clock": {"budget_seconds": 0}, "dice": "loaded"},
        },
    )
    body = problem(r, 422, "request.invalid")
    assert {e["location"] for e in body["errors"]} == {
        "/match/clock/budget_seconds",
        "/match/dice",
    }


async def test_finish_by_umpire_ends_the_game(client: httpx.AsyncClient) -> None:
    g = await new_game(client, sequence=True)
    problem(await g.post("/finish", "red", json={"winner": "red"}), 403, "game.umpire_only")
    problem(await g.post("/finish", "umpire", json={"winner": "green"}), 422, "request.invalid")
    r = await g.post("/finish", "umpire", json={"winner": "blue"})
    assert r.status_code == 201, r.text
    view = await g.view()
    assert view["status"] == "finished" and view["winner"] == "blue"
    problem(await g.act("red", RED_STEP), 409, "game.finished")
    problem(await g.post("/phase/end", "red"), 409, "game.finished")
