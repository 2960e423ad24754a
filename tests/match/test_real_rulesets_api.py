"""The match flow on every real ruleset: phases, takeback, rollback, audit replay, dice and
clocks on `zoc`, `zoi`, `objective-zones` and `terrain` games created from their shipped
examples (the tiny/blind tests cover each command in depth; these show the same commands work
on the rulesets players use). The leakage crawl on real rulesets is in test_leakage.py."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.rules import registry
from tests.match.flowkit import START, FakeClock, Game, problem, rederive

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Script:
    """A real ruleset's example and a legal first action of the side that acts first."""

    ruleset: str
    scenario: str
    seat: str
    action: dict[str, Any]
    dice_action: dict[str, Any] | None = None
    """A legal action of ``seat`` that needs dice, when the example has one."""

    def load(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((ROOT / self.scenario).read_text(encoding="utf-8"))
        return data


SCRIPTS = [
    Script(
        "zoc",
        "scenarios/zoc/seed-example.json",
        "axis",
        {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]},
    ),
    Script(
        "zoi",
        "scenarios/zoi/example.json",
        "french",
        {"kind": "move", "unit": "fr-ldr", "path": ["0610"]},
    ),
    Script(
        "objective-zones",
        "scenarios/objective-zones/example.json",
        "union",
        {"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-2", "us-3"]},
    ),
    Script(
        "terrain",
        "scenarios/terrain/example.json",
        "french",
        {"kind": "move", "unit": "fr-skirm", "path": [[150, 200]]},
        dice_action={"kind": "move", "unit": "fr-wagon", "path": [[200, 590]]},
    ),
]
BY_ID = [pytest.param(s, id=s.ruleset) for s in SCRIPTS]


async def create(client: httpx.AsyncClient, script: Script, **match: Any) -> Game:
    body: dict[str, Any] = {"ruleset": script.ruleset, "scenario": script.load()}
    if match:
        body["match"] = match
    r = await client.post("/games", json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    return Game(client=client, id=created["id"], seats=created["seats"], body=created)


def core(script: Script) -> tuple[Any, Any, Any, Any]:
    rs = registry.get(script.ruleset)
    options = rs.parse_options({})
    board, state = rs.setup(rs.parse_scenario(script.load()), options)
    return rs, options, board, state


@pytest.mark.parametrize("script", BY_ID)
async def test_phases_follow_the_rulesets_sequence(
    client: httpx.AsyncClient, script: Script
) -> None:
    rs, _, board, state = core(script)
    g = await create(client, script)
    sequence = rs.sequence_of_play(board)
    if sequence is None:  # terrain keeps no turns: the match flow says so
        problem(await g.post("/phase/advance", "umpire"), 409, "phase.no_sequence")
        return
    position = rs.position(board, state)
    for _ in range(len(sequence.phases)):  # a whole player turn: the other side's turn starts
        assert (await g.view())["position"]["phase"] == position.phase
        r = await g.post("/phase/advance", "umpire")
        assert r.status_code == 201, r.text
        position = sequence.next_position(position)
        shown = (await g.view())["position"]
        assert (shown["turn"], shown["phase"], shown["phasing_side"]) == (
            position.turn,
            position.phase,
            position.phasing_side,
        )
    assert position.phasing_side != script.seat
    # the first side's action is now out of sequence, refused citing the sequence rule
    body = problem(await g.act(script.seat, script.action), 409, "phase.not_your_turn")
    assert {c["section"] for c in body["citations"]} == {sequence.citation.section}


@pytest.mark.parametrize("script", BY_ID)
async def test_takeback_and_rollback_restore_the_state(
    client: httpx.AsyncClient, script: Script
) -> None:
    rs, options, board, state = core(script)
    parsed = rs.parse_action(script.action)
    after = rs.apply(board, state, parsed, rs.adjudicate(board, state, parsed, options))
    g = await create(client, script, takeback=True)
    initial = (await g.view("umpire"))["state"]
    r = await g.act(script.seat, script.action)
    assert r.status_code == 201, r.text
    moved = (await g.view("umpire"))["state"]
    assert moved == json.loads(after.model_dump_json()) != initial
    r = await g.post("/takeback", script.seat)
    assert r.status_code == 201, r.text
    assert (await g.view("umpire"))["state"] == initial
    assert (await g.act(script.seat, script.action)).status_code == 201
    assert (await g.post("/rollback", "umpire", json={"to_version": 1})).status_code == 201
    assert (await g.view("umpire"))["state"] == initial
    assert (await g.post("/rollback", "umpire", json={"to_version": 4})).status_code == 201
    assert (await g.view("umpire"))["state"] == moved
    kinds = [e["kind"] for e in await g.events()]
    assert kinds[1:] == ["takeback", script.action["kind"], "rollback", "rollback"]


@pytest.mark.parametrize("script", BY_ID)
async def test_audit_replays_a_real_game(client: httpx.AsyncClient, script: Script) -> None:
    g = await create(client, script, takeback=True)
    assert (await g.act(script.seat, script.action)).status_code == 201
    assert (await g.post("/takeback", script.seat)).status_code == 201
    assert (await g.act(script.seat, script.action)).status_code == 201
    if script.dice_action is not None:
        assert (await g.act("french", script.dice_action)).status_code == 201
    rs, _, board, _ = core(script)
    if rs.sequence_of_play(board) is not None:
        assert (await g.post("/phase/advance", "umpire")).status_code == 201
    assert (await g.post("/rollback", "umpire", json={"to_version": 2})).status_code == 201
    report = (await g.client.get(f"/games/{g.id}/audit", headers=g.auth("umpire"))).json()
    assert report["ok"] is True, report
    assert report["first_difference"] is None
    assert report["events"] == len(await g.events())
    assert report["recorded_version"] == report["replayed_version"] == rs.version


@pytest.mark.parametrize("script", BY_ID)
async def test_dice_are_derived_recorded_and_verifiable(
    client: httpx.AsyncClient, script: Script
) -> None:
    rs, options, board, state = core(script)
    g = await create(client, script)
    assert (await g.view())["dice"]["rolled"] == 0
    assert (await g.act(script.seat, script.action)).status_code == 201
    assert [e["dice"] for e in await g.events()] == [[]]  # this action needs none
    if script.dice_action is None:
        assert (await g.view())["dice"]["rolled"] == 0
        return
    r = await g.act("french", script.dice_action)
    assert r.status_code == 201, r.text
    rolls = (await g.events())[-1]["dice"]
    parsed = rs.parse_action(script.dice_action)
    first = rs.parse_action(script.action)
    state = rs.apply(board, state, first, rs.adjudicate(board, state, first, options))
    assert [d["sides"] for d in rolls] == list(rs.dice_needed(board, state, parsed))
    expected = rs.adjudicate(board, state, parsed, options, [d["value"] for d in rolls])
    assert r.json()["ruling"] == expected.model_dump(mode="json")
    assert (await g.post("/dice/reveal", "umpire")).status_code == 201
    seed = (await g.client.get(f"/games/{g.id}/dice", headers=g.auth("umpire"))).json()["seed"]
    for d in rolls:
        assert d["value"] == rederive(seed, g.id, d["n"], d["sides"])
    verified = (await g.client.get(f"/games/{g.id}/dice/verify", headers=g.auth("umpire"))).json()
    assert verified["ok"] is True and verified["checked"] == len(rolls)


@pytest.mark.parametrize(
    "script", [pytest.param(s, id=s.ruleset) for s in SCRIPTS if s.dice_action is not None]
)
async def test_physical_dice_entered_by_the_umpire(
    client: httpx.AsyncClient, script: Script
) -> None:
    assert script.dice_action is not None
    rs, options, board, state = core(script)
    g = await create(client, script, physical_dice=True)
    body = problem(await g.act("umpire", script.dice_action), 422, "dice.required")
    assert "10" in body["detail"]
    r = await g.act("umpire", script.dice_action, **{"Referee-Dice": "10"})
    assert r.status_code == 201, r.text
    parsed = rs.parse_action(script.dice_action)
    expected = rs.adjudicate(board, state, parsed, options, [10])
    assert r.json()["ruling"] == expected.model_dump(mode="json")
    kinds = [e["kind"] for e in r.json()["ruling"]["effects"]]
    assert kinds == ["terrain.wheel_check", "terrain.equipment_destroyed"]


@pytest.mark.parametrize("script", BY_ID)
async def test_clock_charges_the_side_that_acted(
    client: httpx.AsyncClient, clock: FakeClock, script: Script
) -> None:
    control = {"budget_seconds": 100, "increment_seconds": 10, "cap_seconds": 105}
    g = await create(client, script, clock=control)
    view = (await g.view())["clock"]
    sides = set(view["remaining"])
    assert view["remaining"] == dict.fromkeys(sides, 100.0) and view["as_of"] == START
    clock.advance(30)
    r = await g.act(script.seat, script.action)
    assert r.status_code == 201, r.text
    remaining = r.json()["clock"]["remaining"]
    assert view["running"] == script.seat
    assert remaining == {s: 80.0 if s == script.seat else 100.0 for s in sides}


async def test_a_zoc_retreat_belongs_to_the_combat_phase_in_a_match(
    client: httpx.AsyncClient,
) -> None:
    """The rules judge a retreat in any phase (the source says nothing of it), but a match
    takes it in the Combat phase only, as the offer says: a phasing side cannot retreat its
    units during movement (zoc/sequence.py ``sequence_only``)."""
    script = SCRIPTS[0]
    g = await create(client, script)
    retreat = {"kind": "retreat", "unit": "de-inf-1", "path": ["e3307"], "length": 1}
    before = await g.version()
    body = problem(await g.act("axis", retreat), 409, "phase.not_your_turn")
    assert body["kind"] == "retreat" and body["allowed"] == ["combat"]
    assert body["position"]["phase"] == "operational_movement"
    assert "no retreat in this phase" in body["detail"] and "Combat Phase" in body["detail"]
    assert {c["section"] for c in body["citations"]} == {"basic.phase"}
    assert await g.version() == before  # nothing written
    # the dry run still shows the rules' own answer: they say nothing of the phase
    r = await client.post(f"/games/{g.id}/rulings", json=retreat)
    assert r.status_code == 200, r.text
    assert "zoc.wrong_phase" not in {v["code"] for v in r.json()["violations"]}
    # in the Combat phase the rules judge it (a ruling, whatever it is, not the sequence's 409)
    assert (await g.post("/phase/advance", "umpire")).status_code == 201
    assert (await g.view())["position"]["phase"] == "combat"
    r = await g.act("axis", retreat)
    assert r.status_code in (201, 422), r.text
    assert "ruling" in r.json()
