"""Export, verify and import (issue 26): every real ruleset played from its shipped scenario
with a few legal actions (dice and a sealed decision where the ruleset has them), exported,
verified and imported on both databases; tampered files refused with the event named; a
seat's file withholds what the seat may not see; ``referee verify FILE``."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.cli import main as cli_main
from app.service.export import export_schema
from tests.match.flowkit import Game, problem, tiny_scenario

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]

OZ_DECISION = "allocation:mill:t1"
BF_DECISION = "allocation:village:t2"

Step = tuple[Any, ...]
ADVANCE: Step = ("advance",)


@dataclass(frozen=True)
class Play:
    ruleset: str
    scenario: str
    steps: tuple[Step, ...]
    then: Step
    """A legal step to continue the imported game with."""
    sealed: int = 0
    """Sealed orders revealed by the steps."""

    def load(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((ROOT / self.scenario).read_text(encoding="utf-8"))
        return data


PLAYS = [
    Play(
        "zoc",
        "scenarios/zoc/seed-example.json",
        (
            ("act", "axis", {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]}),
            ADVANCE,
            ("rollback", 2),
            ADVANCE,
        ),
        ADVANCE,
    ),
    Play(
        "zoi",
        "scenarios/zoi/example.json",
        (("act", "french", {"kind": "move", "unit": "fr-ldr", "path": ["0610"]}), ADVANCE),
        ADVANCE,
    ),
    Play(
        "objective-zones",
        "scenarios/objective-zones/example.json",
        (
            (
                "act",
                "union",
                {"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-2", "us-3"]},
            ),
            ADVANCE,
            ADVANCE,
            ADVANCE,
            ADVANCE,
            ("sealed", "union", OZ_DECISION, {"sectors": {"1": ["us-1"], "2": ["us-2", "us-bty"]}}),
            (
                "sealed",
                "confederate",
                OZ_DECISION,
                {"sectors": {"1": ["cs-22va", "cs-bty"], "2": ["cs-36va"]}},
            ),
        ),
        ADVANCE,
        sealed=2,
    ),
    Play(
        "terrain",
        "scenarios/terrain/example.json",
        (
            ("act", "french", {"kind": "move", "unit": "fr-skirm", "path": [[150, 200]]}),
            ("act", "french", {"kind": "move", "unit": "fr-wagon", "path": [[200, 590]]}),
        ),
        ("act", "french", {"kind": "move", "unit": "fr-skirm", "path": [[150, 220]]}),
    ),
    Play(
        "battlefield",
        "scenarios/battlefield/millers-crossing.json",
        (
            ADVANCE,
            ("act", "union", {"kind": "move", "unit": "us-1", "path": [[745, 350], [752, 418]]}),
            ("act", "union", {"kind": "move", "unit": "us-2", "path": [[1150, 390]]}),
            *[ADVANCE] * 6,
            (
                "act",
                "confederate",
                {
                    "kind": "garrison_fire",
                    "unit": "cs-bty",
                    "origin": [757.6, 480],
                    "target": "us-1",
                },
            ),
            *[ADVANCE] * 3,
            ("act", "union", {"kind": "charge", "unit": "us-1", "path": [[758, 520]]}),
            ("act", "union", {"kind": "charge", "unit": "us-2", "path": [[900, 600]]}),
            *[ADVANCE] * 4,
            ("sealed", "union", BF_DECISION, {"sectors": {"1": ["us-1"], "2": ["us-2", "us-bty"]}}),
            ("sealed", "confederate", BF_DECISION, {"sectors": {"1": ["cs-1va", "cs-bty"]}}),
        ),
        ADVANCE,
        sealed=2,
    ),
]
BY_ID = [pytest.param(p, id=p.ruleset) for p in PLAYS]


async def create(client: httpx.AsyncClient, ruleset: str, scenario: dict[str, Any]) -> Game:
    r = await client.post("/games", json={"ruleset": ruleset, "scenario": scenario})
    assert r.status_code == 201, r.text
    body = r.json()
    return Game(client=client, id=body["id"], seats=body["seats"], body=body)


async def step(g: Game, s: Step) -> None:
    if s[0] == "act":
        r = await g.act(s[1], s[2])
    elif s[0] == "advance":
        r = await g.post("/phase/advance", "umpire")
    elif s[0] == "rollback":
        r = await g.post("/rollback", "umpire", json={"to_version": s[1]})
    else:
        r = await g.client.post(
            f"/games/{g.id}/sealed/{s[2]}", json=s[3], headers=g.write(s[1], "*")
        )
    assert r.status_code in (200, 201), (s, r.text)


async def export(g: Game, seat: str | None) -> dict[str, Any]:
    r = await g.client.get(f"/games/{g.id}/export", headers=g.auth(seat) if seat else {})
    assert r.status_code == 200, r.text
    assert "attachment" in r.headers["content-disposition"]
    body: dict[str, Any] = r.json()
    return body


async def verify(client: httpx.AsyncClient, file: dict[str, Any]) -> dict[str, Any]:
    r = await client.post("/verify", json=file)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def derived_rolls(file: dict[str, Any]) -> int:
    return sum(1 for e in file["events"] for d in e["dice"] if d.get("entered_by") is None)


@pytest.mark.parametrize("play", BY_ID)
async def test_export_verify_import_and_continue(client: httpx.AsyncClient, play: Play) -> None:
    g = await create(client, play.ruleset, play.load())
    for s in play.steps:
        await step(g, s)
    sides = [seat for seat in g.seats if seat != "umpire"]

    # a side's file mid-game: no seed, verifies in what it shows
    for side in sides:
        mine = await export(g, side)
        assert mine["reader"] == side and mine["complete"] is False
        assert mine["dice"]["seed"] is None and mine["withheld"]["seed"] is True
        report = await verify(client, mine)
        assert report["ok"] is True, report["differences"]
        assert report["seed"] == "absent"
        assert report["verified_all"] is (derived_rolls(mine) == 0)
        assert report["orders_checked"] == play.sealed

    # the umpire's file, once the seed is revealed: everything checks
    assert (await g.post("/dice/reveal", "umpire")).status_code == 201
    file = await export(g, "umpire")
    assert file["format"] == "referee-export-1" and file["complete"] is True
    assert file["ruleset"]["id"] == play.ruleset
    assert file["ruleset"]["versions"] == [file["ruleset"]["version"]]
    assert [e["seq"] for e in file["events"]] == list(range(1, len(file["events"]) + 1))
    assert all(e["state_after"] is not None and e["ruleset_version"] for e in file["events"])
    report = await verify(client, file)
    assert report["ok"] is True and report["verified_all"] is True, report
    assert report["seed"] == "verified" and report["version_changed"] is False
    assert report["rolls_checked"] == derived_rolls(file)
    assert report["orders_checked"] == play.sealed == sum(len(s["orders"]) for s in file["sealed"])
    if play.ruleset in ("terrain", "objective-zones", "battlefield"):
        assert report["rolls_checked"] > 0

    # import: a new game holding the same log, new tokens, where it came from recorded
    r = await client.post("/games/import", json=file)
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["id"] != g.id and set(created["seats"]) == set(g.seats)
    assert not set(created["seats"].values()) & set(g.seats.values())
    assert r.headers["location"] == f"/games/{created['id']}"
    h = Game(client=client, id=created["id"], seats=created["seats"], body=created)
    assert (await h.view("umpire"))["state"] == (await g.view("umpire"))["state"]
    copied = await h.events()
    original = await g.events()
    keys = ("seq", "version", "kind", "seat", "action", "ruling", "dice", "payload")
    assert [{k: e[k] for k in keys} for e in copied[: len(original)]] == [
        {k: e[k] for k in keys} for e in original
    ]
    marker = copied[-1]
    assert marker["kind"] == "imported" and len(copied) == len(original) + 1
    assert marker["payload"]["game"] == g.id
    assert marker["payload"]["dice"]["commitment"] == file["dice"]["commitment"]
    assert created["version"] == marker["version"] == (await h.view())["version"]
    audit = (await client.get(f"/games/{h.id}/audit", headers=h.auth("umpire"))).json()
    assert audit["ok"] is True, audit["first_difference"]

    # and it goes on: a legal step, then its own file verifies (both dice epochs checked)
    await step(h, play.then)
    assert (await h.post("/dice/reveal", "umpire")).status_code == 201
    again = await verify(client, await export(h, "umpire"))
    assert again["ok"] is True and again["verified_all"] is True, again
    assert again["rolls_checked"] >= report["rolls_checked"]


async def _oz_file(client: httpx.AsyncClient) -> tuple[Game, dict[str, Any]]:
    play = PLAYS[2]
    g = await create(client, play.ruleset, play.load())
    for s in play.steps:
        await step(g, s)
    assert (await g.post("/dice/reveal", "umpire")).status_code == 201
    return g, await export(g, "umpire")


async def _refused(client: httpx.AsyncClient, file: dict[str, Any], seq: int) -> dict[str, Any]:
    """The file does not verify, the first difference is event ``seq``, import says so."""
    report = await verify(client, file)
    assert report["ok"] is False
    first = report["first_difference"]
    assert first["seq"] == seq, report["differences"]
    assert f"event {seq} " in report["summary"]
    body = problem(await client.post("/games/import", json=file), 422, "import.unverified")
    assert f"event {seq} ({first['kind']})" in body["detail"]
    assert body["difference"]["seq"] == seq
    return report


async def test_a_tampered_file_is_refused_naming_the_event(client: httpx.AsyncClient) -> None:
    _, file = await _oz_file(client)
    reveal = next(e for e in file["events"] if e["kind"] == "sealed_revealed")
    assert reveal["dice"], "the melee needs dice"

    ruled = copy.deepcopy(file)  # one ruling edited
    ruled["events"][0]["ruling"]["summary"] = "The union may do as it likes."
    report = await _refused(client, ruled, 1)
    assert report["first_difference"]["field"] == "ruling"
    assert report["first_difference"]["kind"] == "declare_assault"

    rolled = copy.deepcopy(file)  # one die edited
    die = rolled["events"][reveal["seq"] - 1]["dice"][0]
    die["value"] = die["value"] % die["sides"] + 1
    report = await _refused(client, rolled, reveal["seq"])
    assert report["first_difference"]["field"] == "dice"
    assert report["first_difference"]["kind"] == "sealed_revealed"

    revealed = copy.deepcopy(file)  # one reveal edited: the nonce no longer fits
    order = revealed["events"][reveal["seq"] - 1]["payload"]["orders"]["union"]
    order["nonce"] = "0" * 64
    report = await _refused(client, revealed, reveal["seq"])
    assert report["first_difference"]["field"] == "commitment"
    assert "union" in report["first_difference"]["message"]

    swapped = copy.deepcopy(file)  # one revealed order changed after the commitment
    order = swapped["events"][reveal["seq"] - 1]["payload"]["orders"]["union"]
    order["order"] = {"sectors": {"1": ["us-2"], "2": ["us-1", "us-bty"]}}
    order["canonical"] = json.dumps(order["order"], sort_keys=True, separators=(",", ":"))
    report = await _refused(client, swapped, reveal["seq"])
    fields = {d["field"] for d in report["differences"] if d["seq"] == reveal["seq"]}
    assert "commitment" in fields

    unseeded = copy.deepcopy(file)  # a seed that is not the committed one
    unseeded["dice"]["seed"] = "ab" * 32
    report = await verify(client, unseeded)
    assert report["ok"] is False and report["seed"] == "mismatch"


async def test_another_ruleset_version_is_reported_as_such(client: httpx.AsyncClient) -> None:
    _, file = await _oz_file(client)
    older = copy.deepcopy(file)
    older["ruleset"]["version"] = "0.0.1"
    for e in older["events"]:
        e["ruleset_version"] = "0.0.1"
    report = await verify(client, older)
    assert report["version_changed"] is True and report["ok"] is True
    assert "0.0.1" in report["version_note"] and "differs" not in report["summary"]
    assert report["file_versions"] == ["0.0.1"]
    assert report["running_version"] == file["ruleset"]["version"]
    # a rules change that does alter a ruling is labelled as following from it
    changed = copy.deepcopy(older)
    changed["events"][0]["ruling"]["summary"] = "judged otherwise by 0.0.1"
    report = await verify(client, changed)
    assert report["ok"] is False and report["first_difference"]["version_changed"] is True
    assert "ruleset version changed" in report["first_difference"]["message"]


async def test_a_sides_file_withholds_hidden_events_and_states(client: httpx.AsyncClient) -> None:
    """tiny: a note is for its writer and the umpire; the other side's file redacts it, and
    the ruleset shows no side the whole state, so no snapshot is in a side's file."""
    g = await create(client, "tiny", tiny_scenario())
    marker = "EXPORT-SECRET-NOTE-2611"
    assert (await g.act("red", {"kind": "note", "text": marker})).status_code == 201
    assert (await g.act("red", {"kind": "step", "pawn": "r1", "n": 1})).status_code == 201
    r = await client.get(f"/games/{g.id}/export", headers=g.auth("blue"))
    assert r.status_code == 200 and marker not in r.text
    blue = r.json()
    assert blue["events"][0]["kind"] == "redacted" and blue["events"][0]["redacted"] is True
    assert blue["withheld"]["events"] == [1] and blue["withheld"]["states"] == [2]
    assert blue["initial_state"] is None and blue["withheld"]["initial_state"] is True
    report = await verify(client, blue)
    assert report["ok"] is True and report["verified_all"] is False
    assert [u["seq"] for u in report["unchecked"]][:2] == [1, 2]
    problem(await client.post("/games/import", json=blue), 422, "import.incomplete")
    spectator = await client.get(f"/games/{g.id}/export")
    assert spectator.status_code == 200 and marker not in spectator.text
    assert spectator.json()["reader"] is None
    red = await export(g, "red")
    assert red["events"][0]["action"]["text"] == marker  # its writer sees it
    umpire = await export(g, "umpire")
    assert umpire["events"][0]["action"]["text"] == marker
    assert (await verify(client, umpire))["ok"] is True


async def test_import_refuses_what_it_cannot_carry_over(client: httpx.AsyncClient) -> None:
    play = PLAYS[3]  # terrain: a derived roll, seed not revealed yet
    g = await create(client, play.ruleset, play.load())
    for s in play.steps:
        await step(g, s)
    body = problem(
        await client.post("/games/import", json=await export(g, "umpire")),
        422,
        "import.unverifiable",
    )
    assert "dice/reveal" in body["detail"]
    oz = PLAYS[2]  # objective-zones: the union's order is still sealed
    g = await create(client, oz.ruleset, oz.load())
    for s in oz.steps[:-2]:
        await step(g, s)
    _, _, decision, order = oz.steps[-2]
    r = await client.post(
        f"/games/{g.id}/sealed/{decision}", json=order, headers=g.write("union", "*")
    )
    assert r.status_code == 201, r.text
    secrets = (r.json()["nonce"], r.json()["canonical"])
    for reader in ("confederate", "umpire", None):  # no one else's file holds the order
        text = (
            await client.get(f"/games/{g.id}/export", headers=g.auth(reader) if reader else {})
        ).text
        assert not [s for s in secrets if s in text], reader
    file = await export(g, "umpire")
    assert "order" not in json.dumps(file["events"][-1]["payload"])
    body = problem(await client.post("/games/import", json=file), 422, "import.sealed_pending")
    assert "union" in body["detail"]
    problem(await client.post("/verify", json={"format": "nope"}), 422, "export.invalid")
    wrong = {**file, "ruleset": {**file["ruleset"], "id": "no-such-ruleset"}}
    problem(await client.post("/verify", json=wrong), 422, "verify.ruleset_unavailable")


async def test_referee_verify_file(
    client: httpx.AsyncClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, file = await _oz_file(client)
    good = tmp_path / "game.json"
    good.write_text(json.dumps(file), encoding="utf-8")
    assert cli_main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert "OK: verified" in out and "seed: verified" in out
    file["events"][0]["ruling"]["summary"] = "edited"
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(file), encoding="utf-8")
    assert cli_main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "DIFFERS at event 1 (declare_assault): ruling" in out
    assert cli_main(["verify", str(tmp_path / "missing.json")]) == 2


def test_the_published_schema_is_the_models() -> None:
    published = json.loads((ROOT / "docs" / "export.schema.json").read_text(encoding="utf-8"))
    assert published == export_schema(), "regenerate docs/export.schema.json (docs/EXPORT.md)"
    assert published["properties"]["format"]["const"] == "referee-export-1"


async def test_a_hostile_file_is_reported_not_a_server_error(client: httpx.AsyncClient) -> None:
    _, file = await _oz_file(client)
    reveal = next(e for e in file["events"] if e["kind"] == "sealed_revealed")
    odd = copy.deepcopy(file)
    odd["events"][reveal["seq"] - 1]["dice"][0]["n"] = "x"  # a roll that is no roll
    odd["events"][0]["state_after"] = {"not": "a state"}  # a snapshot that is no state
    report = await verify(client, odd)
    assert report["ok"] is False
    assert report["first_difference"]["seq"] == 1
    assert {d["seq"] for d in report["differences"]} >= {1, reveal["seq"]}
    gapped = copy.deepcopy(file)
    del gapped["events"][2]
    report = await verify(client, gapped)
    assert report["first_difference"]["field"] == "seq"
    assert report["first_difference"]["seq"] == 4
    for bad in (
        {**file, "game": {**file["game"], "status": "hacked"}},
        {**file, "match": {"clock": "forever"}},
        {**file, "events": [{**file["events"][0], "kind": "k" * 65}, *file["events"][1:]]},
    ):
        r = await client.post("/games/import", json=bad)
        assert r.status_code == 422 and r.json()["code"] == "export.invalid", r.text
