"""Interpretation what-if (issue 26 item 3), over HTTP on both databases.

``POST /games/{id}/what-if`` replays a game's log under other option values -- the other
reading of an interpretation -- and lists the rulings that change, stopping at the first event
that becomes illegal. On every shipped ruleset a rule case where flipping a documented option
flips the ruling (tests/rules/<package>/cases/) is played through the API and asked about;
the tiny test ruleset covers who may ask, validation, stopping early and hidden events.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.client import AsyncRefereeClient
from tests.rules.rule_cases import all_cases, before_steps, scenario_of
from tests.support.tiny import TINY

pytestmark = pytest.mark.anyio

FLIPS = {
    # ruleset: (rule case, option, the other reading's value)
    "zoc": ("zoc:negation-non-ground-friendly-option", "non_ground_negates", False),
    "zoi": (
        "zoi:ex-horse-artillery-stops-in-cavalry-zone-unlimbers",
        "horse_artillery_unlimber_when_stopped",
        False,
    ),
    "objective-zones": (
        "objective-zones:transfer-class-f-uncontested-free",
        "class_f_adjacent_only",
        True,
    ),
    "terrain": ("terrain:limbered-guns-alternative-reading", "limbered_guns_as_limbers", True),
    "battlefield": (
        "battlefield:redoubt-stand-shifts-along-the-line",
        "class_f_adjacent_only",
        True,
    ),
}
CASES = {c.id: c for c in all_cases()}


def problem(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = r.json()
    assert body["code"] == code, body
    return body


class Played:
    def __init__(self, client: httpx.AsyncClient, body: dict[str, Any]) -> None:
        self.client = client
        self.id: str = body["id"]
        self.seats: dict[str, str] = body["seats"]
        self.version = 1

    def auth(self, seat: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.seats[seat]}"}

    async def post(self, path: str, seat: str = "umpire", json: Any = None) -> httpx.Response:
        headers = {**self.auth(seat), "If-Match": f'W/"{self.version}"'}
        r = await self.client.post(f"/games/{self.id}{path}", json=json, headers=headers)
        assert r.status_code == 201, r.text
        self.version += 1
        return r

    async def what_if(self, seat: str | None, options: Any) -> httpx.Response:
        headers = self.auth(seat) if seat else {}
        return await self.client.post(
            f"/games/{self.id}/what-if", json={"options": options}, headers=headers
        )


async def create(
    client: httpx.AsyncClient, ruleset: str, scenario: Any, options: Any, **match: Any
) -> Played:
    r = await client.post(
        "/games",
        json={"ruleset": ruleset, "scenario": scenario, "options": options, "match": match},
    )
    assert r.status_code == 201, r.text
    return Played(client, r.json())


@pytest.mark.parametrize("ruleset", sorted(FLIPS))
async def test_flipping_a_documented_option_turns_a_recorded_ruling_illegal(
    client: httpx.AsyncClient, ruleset: str
) -> None:
    case_id, option, other = FLIPS[ruleset]
    case = CASES[case_id]
    game = await create(
        client,
        case.ruleset,
        scenario_of(case),
        case.data.get("options") or {},
        enforce_sequence=True,
    )
    for step in before_steps(case):
        if step == "advance":
            await game.post("/phase/advance")
        else:
            await game.post("/actions", json=step)
    r = await game.post("/actions", json=case.data["action"])
    recorded = r.json()["ruling"]
    seq = int(r.headers["Location"].rsplit("/", 1)[1])
    relied = {i["option"]: i["value"] for i in recorded["interpretations"]}
    assert relied[option] == (not other)  # the game's reading, flipped by the what-if

    answer = await game.what_if("umpire", {option: other})
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert report["changed_options"] == {option: other}
    assert report["options"][option] == other
    assert report["seat"] == "umpire" and report["hidden_changes"] == 0
    last = report["changed"][-1]
    assert last["seq"] == seq and last["kind"] == case.data["action"]["kind"]
    assert last["differs"][0] == "legal"
    assert last["recorded"] == recorded
    assert last["recorded"]["legal"] is True and last["replayed"]["legal"] is False
    assert last["replayed"]["violations"], last["replayed"]
    stopped = report["stopped"]
    assert stopped["seq"] == seq and stopped["reason"] == "illegal"
    assert stopped["message"].startswith(
        f"from event {seq} on the game could not have gone this way"
    )
    assert report["replayed"] == report["events"] == seq
    assert f"from event {seq} on" in report["summary"]
    # nothing was written
    assert (await client.get(f"/games/{game.id}")).json()["version"] == game.version

    # the game's own options: every ruling replays as recorded
    same = (await game.what_if("umpire", {option: not other})).json()
    assert same["changed"] == [] and same["stopped"] is None
    assert same["changed_options"] == {} and same["same_under_other_reading"] == []


def tiny(**extra: Any) -> dict[str, Any]:
    return {**(TINY.example_scenario() or {}), **extra}


async def test_an_early_event_made_illegal_stops_the_replay_there(
    client: httpx.AsyncClient,
) -> None:
    game = await create(client, "tiny", tiny(), {"wrap": True})
    await game.post("/actions", "red", {"kind": "step", "pawn": "r1", "n": -1})  # wraps to 9
    await game.post("/actions", "blue", {"kind": "step", "pawn": "b1", "n": -2})
    await game.post("/actions", "red", {"kind": "step", "pawn": "r1", "n": -1})
    report = (await game.what_if("umpire", {"wrap": False})).json()
    assert report["events"] == 3 and report["replayed"] == 1
    assert [(c["seq"], c["kind"], c["differs"][0]) for c in report["changed"]] == [
        (1, "step", "legal")
    ]
    assert report["changed"][0]["replayed"]["violations"][0]["code"] == "tiny.off_track"
    assert report["stopped"]["seq"] == 1 and report["stopped"]["reason"] == "illegal"
    assert "from event 1 on the game could not have gone this way" in report["summary"]


async def test_a_legal_ruling_that_changes_goes_on_from_the_other_position(
    client: httpx.AsyncClient,
) -> None:
    """Events whose ruling changes but stays legal are applied as now ruled: the log goes
    on from the position the other reading makes, and an event that relied on the changed
    option but comes out the same is named."""
    game = await create(client, "tiny", tiny(), {"wrap": False})
    await game.post("/actions", "red", {"kind": "step", "pawn": "r1", "n": 2})
    await game.post("/actions", "blue", {"kind": "step", "pawn": "b1", "n": -1})
    report = (await game.what_if("umpire", {"wrap": True})).json()
    assert report["changed"] == [] and report["stopped"] is None
    assert report["same_under_other_reading"] == [1, 2]
    assert report["replayed"] == 2
    assert "all 2 events replay" in report["summary"]


async def test_a_rollback_restores_the_position_of_the_what_if(
    client: httpx.AsyncClient,
) -> None:
    """A rollback in the log restores the what-if's own state of the version it names: under
    wrap, r1's second step (legal either way) is judged from square 0 again."""
    game = await create(client, "tiny", tiny(), {"wrap": False})
    await game.post("/actions", "red", {"kind": "step", "pawn": "r1", "n": 2})
    await game.post("/rollback", "umpire", {"to_version": 1})
    await game.post("/actions", "red", {"kind": "step", "pawn": "r1", "n": 3})
    report = (await game.what_if("umpire", {"wrap": True})).json()
    assert report["changed"] == [] and report["stopped"] is None
    assert report["same_under_other_reading"] == [1, 3] and report["replayed"] == 3


async def test_who_may_ask(client: httpx.AsyncClient) -> None:
    game = await create(client, "tiny", tiny(), {"wrap": True})
    await game.post("/actions", "red", {"kind": "step", "pawn": "r1", "n": -1})
    assert (await game.what_if("umpire", {"wrap": False})).status_code == 200
    refused = problem(await game.what_if("red", {"wrap": False}), 403, "whatif.not_yet")
    assert refused["citations"][0] == {
        "ruleset": "referee",
        "section": "what-if",
        "title": refused["citations"][0]["title"],
    }
    problem(await game.what_if(None, {"wrap": False}), 401, "auth.required")
    minted = await client.post(f"/games/{game.id}/tokens", json={}, headers=game.auth("red"))
    spectator = {"Authorization": f"Bearer {minted.json()['token']}"}
    r = await client.post(
        f"/games/{game.id}/what-if", json={"options": {"wrap": False}}, headers=spectator
    )
    problem(r, 403, "token.read_only")
    problem(
        await client.post(
            "/games/no-such-game/what-if", json={"options": {"wrap": False}}, headers=spectator
        ),
        404,
        "game.not_found",
    )

    await game.post("/finish", "umpire", {})
    for seat in ("red", "blue"):
        r = await game.what_if(seat, {"wrap": False})
        assert r.status_code == 200, r.text
        assert r.json()["stopped"]["seq"] == 1 and r.json()["seat"] == seat
    r = await client.post(
        f"/games/{game.id}/what-if", json={"options": {"wrap": False}}, headers=spectator
    )
    problem(r, 403, "token.read_only")


async def test_options_are_validated_by_the_rulesets_model(client: httpx.AsyncClient) -> None:
    game = await create(client, "zoc", scenario_of(CASES[FLIPS["zoc"][0]]), {})
    body = problem(
        await game.what_if("umpire", {"no_such_reading": True}), 422, "whatif.invalid_options"
    )
    assert [e["location"] for e in body["errors"]] == ["/options/no_such_reading"]
    assert body["errors"][0]["code"] == "whatif.unknown_option"
    body = problem(
        await game.what_if("umpire", {"non_ground_negates": "perhaps"}),
        422,
        "whatif.invalid_options",
    )
    assert [e["location"] for e in body["errors"]] == ["/options/non_ground_negates"]
    body = problem(
        await game.what_if("umpire", {"non_ground_negates": "yes"}),  # strict: not a boolean
        422,
        "whatif.invalid_options",
    )
    assert [e["location"] for e in body["errors"]] == ["/options/non_ground_negates"]
    r = await game.what_if("umpire", {})
    assert r.status_code == 422, r.text


async def test_a_player_after_the_end_does_not_see_a_hidden_events_content(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every tiny action is private for this test: readable by its writer and the umpire
    monkeypatch.setattr(TINY, "private_to", lambda board, state, action: ())
    game = await create(client, "tiny", tiny(), {"wrap": True})
    await game.post("/actions", "red", {"kind": "step", "pawn": "r1", "n": -1})
    await game.post("/finish", "umpire", {})

    seen = (await game.what_if("blue", {"wrap": False})).json()
    assert seen["changed"] == [] and seen["hidden_changes"] == 1
    assert seen["stopped"] == {
        "seq": 1,
        "reason": "illegal",
        "message": "from event 1 on the game could not have gone this way",
    }
    text = str(seen)
    assert "r1" not in text and "off_track" not in text and "steps from" not in text

    own = (await game.what_if("red", {"wrap": False})).json()
    assert own["hidden_changes"] == 0 and [c["seq"] for c in own["changed"]] == [1]
    assert "off the track" in own["stopped"]["message"] or own["stopped"]["message"].endswith(
        "the action would have been illegal"
    )


async def test_the_typed_client_asks(app: Any, client: httpx.AsyncClient) -> None:
    game = await create(client, "tiny", tiny(), {"wrap": True})
    await game.post("/actions", "red", {"kind": "step", "pawn": "r1", "n": -1})
    async with AsyncRefereeClient(
        "http://referee.test", transport=httpx.ASGITransport(app=app)
    ) as referee:
        report = await referee.seat(game.id, game.seats["umpire"]).what_if({"wrap": False})
    assert report.stopped is not None and report.stopped.seq == 1
    assert report.changed[0].recorded.legal and not report.changed[0].replayed.legal
