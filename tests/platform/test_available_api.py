"""GET /games/{id}/actions/available ("what can I do now") over a real server on both
databases, with the shipped scenarios of every ruleset: the units that may act and their
action kinds, whether the seat may end the phase, open sealed decisions, exact citations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from tests.platform.conftest import Game

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def start(http: httpx.Client, ruleset: str, scenario: str | dict[str, Any]) -> Game:
    body = json.loads((SCENARIOS / scenario).read_text()) if isinstance(scenario, str) else scenario
    r = http.post("/games", json={"ruleset": ruleset, "scenario": body})
    assert r.status_code == 201, r.text
    return Game(r.json()["id"], r.json()["seats"], http)


def available(game: Game, seat: str) -> dict[str, Any]:
    r = game.http.get(f"/games/{game.id}/actions/available", headers=game.auth(seat))
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def units(answer: dict[str, Any]) -> dict[str, list[str]]:
    return {u["unit"]: u["kinds"] for u in answer["units"]}


def sections(cited: list[dict[str, Any]]) -> list[str]:
    return [c["section"] for c in cited]


def test_zoc_movement_phase(http: httpx.Client) -> None:
    game = start(http, "zoc", "zoc/seed-example.json")
    axis = available(game, "axis")
    assert (axis["may_act"], axis["may_end_phase"], axis["seat"]) == (True, True, "axis")
    assert axis["position"]["phase"] == "operational_movement"
    assert units(axis) == {
        "de-inf-y": ["move", "trace_supply"],
        "de-inf-1": ["move", "trace_supply"],
        "de-inf-2": ["move", "trace_supply"],
    }
    assert axis["kinds"] == ["move", "trace_supply"]
    assert sections(axis["citations"]) == ["basic.phase", "8.2.supply", "basic.supply"]
    assert sections(axis["units"][0]["citations"]) == ["basic.phase", "8.2.supply", "basic.supply"]
    assert axis["sealed"] == []

    soviet = available(game, "soviet")
    assert (soviet["may_act"], soviet["may_end_phase"]) == (False, False)
    assert (soviet["kinds"], soviet["units"]) == ([], [])
    assert sections(soviet["citations"]) == ["basic.phase"]
    assert "does not let soviet act" in soviet["notes"][0]

    moved = game.write(
        "axis", "/actions", {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]}
    )
    assert moved.status_code == 201, moved.text
    axis = available(game, "axis")
    assert units(axis)["de-inf-2"] == ["trace_supply"]
    assert sections(axis["units"][2]["citations"]) == ["8.2.supply", "basic.supply"]
    assert axis["version"] == 2

    umpire = available(game, "umpire")
    assert (umpire["may_act"], umpire["may_end_phase"]) == (True, True)
    assert units(umpire) == {
        "su-18a": ["trace_supply"],
        "su-1uk-hq": ["trace_supply"],
        "de-inf-y": ["move", "trace_supply"],
        "de-inf-1": ["move", "trace_supply"],
        "de-inf-2": ["trace_supply"],
    }
    assert umpire["kinds"] == [
        "move",
        "trace_supply",
        "set_phase",
        "place_unit",
        "place_marker",
        "remove_marker",
    ]
    assert sections(umpire["citations"])[-1] == "basic.umpire"


def test_zoi_movement_then_melee(http: httpx.Client) -> None:
    game = start(http, "zoi", "zoi/example.json")
    french = available(game, "french")
    assert units(french) == {
        "fr-4-2": ["move"],
        "fr-art-1": ["move"],
        "fr-cuir-1": ["move"],
        "fr-ldr": ["move"],
    }
    assert sections(french["citations"]) == ["sequence", "movement"]
    assert available(game, "austrian")["may_act"] is False
    for _ in range(3):  # movement -> defensive fire -> offensive fire -> melee
        assert game.write("umpire", "/phase/advance").status_code == 201
    austrian = available(game, "austrian")
    assert austrian["position"]["phase"] == "melee" and austrian["may_act"] is True
    # a leader makes no melee retreat (14.melee-retreat): it is not offered one (zoi 1.1.0,
    # available actions use the ruling's own check)
    assert set(units(austrian)) == {"aus-ir49", "aus-gr1", "aus-h3"}
    assert set(austrian["kinds"]) == {"melee_retreat"}
    assert sections(austrian["citations"]) == ["sequence", "14.melee-retreat"]


def test_objective_zones_declaration_then_movement(http: httpx.Client) -> None:
    game = start(http, "objective-zones", "objective-zones/example.json")
    union = available(game, "union")
    assert units(union) == {
        u: ["declare_assault"] for u in ("us-1", "us-2", "us-3", "us-cav", "us-bty")
    }
    assert sections(union["citations"]) == ["OZ.Sequence", "OZ.Assault.A"]
    confederate = available(game, "confederate")
    assert (confederate["may_act"], confederate["units"]) == (False, [])
    game.end_phase("union")
    confederate = available(game, "confederate")
    assert confederate["position"]["phase"] == "movement" and confederate["may_act"] is True
    assert units(confederate) == {
        u: ["exit", "transfer"] for u in ("cs-22va", "cs-36va", "cs-bty", "cs-45va")
    }
    assert sections(confederate["citations"]) == ["OZ.Sequence", "OZ.Trafficability", "OZ.Basic.C"]
    union = available(game, "union")
    assert units(union) == {u: ["enter"] for u in ("us-1", "us-2", "us-3", "us-cav", "us-bty")}
    assert sections(union["citations"]) == ["OZ.Sequence", "OZ.Display"]


def test_terrain_has_no_sequence(http: httpx.Client) -> None:
    game = start(http, "terrain", "terrain/example.json")
    british = available(game, "british")
    assert (british["may_act"], british["may_end_phase"], british["position"]) == (
        True,
        False,
        None,
    )
    assert units(british) == {
        u: ["move", "charge", "fire", "hold"] for u in ("br-inf", "br-cav", "br-lt")
    }
    assert british["citations"] == [] and "no sequence of play" in british["notes"][0]


def test_sealed_decisions_and_who_may_ask(http: httpx.Client) -> None:
    game = start(http, "blind", {"sides": ["red", "blue"], "budget": 10, "rounds": 2})
    red = available(game, "red")
    assert red["sealed"] == [
        {
            "decision": "bid.r1",
            "title": "Round 1 bid",
            "sides": ["red", "blue"],
            "submitted": False,
            "waiting": ["red", "blue"],
            "may_open": False,
            "citation": {"ruleset": "blind", "section": "2", "title": "Sealed bids"},
        }
    ]
    assert game.write("red", "/sealed/bid.r1", {"bid": 1}).status_code == 201
    red, blue, umpire = (available(game, s)["sealed"][0] for s in ("red", "blue", "umpire"))
    assert (red["submitted"], red["waiting"]) == (True, ["blue"])
    assert (blue["submitted"], blue["waiting"]) == (False, ["blue"])
    assert (umpire["submitted"], umpire["may_open"]) == (False, True)

    path = f"/games/{game.id}/actions/available"
    r = http.get(path)
    assert r.status_code == 401 and r.json()["code"] == "auth.required"
    spectator = http.post(f"/games/{game.id}/tokens", headers=game.auth("red")).json()["token"]
    r = http.get(path, headers={"Authorization": f"Bearer {spectator}"})
    assert r.status_code == 403 and r.json()["code"] == "token.read_only"
    assert http.get("/games/nope/actions/available", headers=game.auth("red")).status_code == 404

    assert game.write("umpire", "/finish", {}).status_code == 201
    done = available(game, "red")
    assert (done["may_act"], done["kinds"], done["sealed"], done["status"]) == (
        False,
        [],
        [],
        "finished",
    )
    assert done["notes"][0] == "The game is finished: nothing more may be played."
