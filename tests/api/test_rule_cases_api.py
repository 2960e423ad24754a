"""Every rule case with an action (all rulesets, tests/rules/*/cases), replayed through HTTP.

The rules-core tests (tests/rules/test_rule_cases.py) judge each case directly; this module
applies the very same checks (tests/rules/rule_cases.py ``check_ruling``: verdict, violation
codes, exact citations, effects with their fields, summary phrases, details,
interpretations) to what the server sends, on both databases, with the sequence of play
enforced: the game starts at the scenario's position, ``advance`` steps are the umpire ending
the phase through the API, and every action goes through ``POST /actions`` as in a match.
A dry run comes first (for cases without dice it must give the whole expected ruling), then
the real submission -- with the case's dice entered as physical dice -- whose ruling must
match too: 201 and one version more when legal; 422 with nothing written when not; 409
`phase.not_your_turn` (citing a section the case cites) when the action is out of sequence.
"""

from __future__ import annotations

import os
import zlib
from typing import Any

import httpx
import pytest

from tests.rules.rule_cases import Case, all_cases, before_steps, check_ruling, scenario_of

pytestmark = pytest.mark.anyio


PG_SHARE = 3
"""On PostgreSQL, one case in ``PG_SHARE`` is replayed (a fixed choice by the case id's
CRC-32, so the same cases every run); ``REFEREE_REPLAY_ALL=1`` (``make test-long``) replays
every case on both databases. Every case is replayed on SQLite. This keeps the suite under
ten minutes: the ruling comes from the same rules core on both, and the database-specific
paths (jsonb, notify, the write frame) are covered by every sampled case and tests/api."""


def _on_postgresql(case: Case) -> bool:
    everything = os.environ.get("REFEREE_REPLAY_ALL") == "1"
    return everything or zlib.crc32(case.id.encode()) % PG_SHARE == 0


def _replayable() -> list[Any]:
    cases = [c for c in all_cases() if "action" in c.data and "invalid_scenario" not in c.data]
    return [pytest.param(c, "sqlite", id=f"sqlite-{c.id}") for c in cases] + [
        pytest.param(c, "postgresql", id=f"postgresql-{c.id}", marks=pytest.mark.pg)
        for c in cases
        if _on_postgresql(c)
    ]


async def _post(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], **kw: Any
) -> httpx.Response:
    return await client.post(url, headers=headers, **kw)


@pytest.mark.parametrize(("case", "db_kind"), _replayable())
async def test_rule_case_over_http(client: httpx.AsyncClient, case: Case, db_kind: str) -> None:
    data, expect = case.data, case.expect
    r = await client.post(
        "/games",
        json={
            "ruleset": case.ruleset,
            "scenario": scenario_of(case),
            "options": data.get("options") or {},
            # a case whose position the sequence of play cannot reach says why
            "match": {"physical_dice": True, "enforce_sequence": "out_of_sequence" not in data},
        },
    )
    assert r.status_code == 201, r.text
    game = r.json()
    gid, umpire = game["id"], {"Authorization": f"Bearer {game['seats']['umpire']}"}
    version = 1

    def write() -> dict[str, str]:
        return {**umpire, "If-Match": f'W/"{version}"'}

    for pre in before_steps(case):
        if pre == "advance":
            r = await _post(client, f"/games/{gid}/phase/advance", write())
        else:
            r = await _post(client, f"/games/{gid}/actions", write(), json=pre)
        assert r.status_code == 201, r.text
        version += 1

    action = data["action"]
    dice = [int(d) for d in data.get("dice") or []]
    r = await client.post(f"/games/{gid}/rulings", json=action)
    assert r.status_code == 200, r.text
    needs_dice = bool(r.headers.get("Referee-Dice-Needed"))
    if not dice:
        check_ruling(expect, r.json())
    elif expect["legal"]:
        assert r.json()["legal"] is True, r.json()["summary"]
    if needs_dice and not dice:
        return  # the case judges the action before its dice are known: a dry run's answer

    headers = write()
    if dice:
        headers["Referee-Dice"] = ",".join(str(d) for d in dice)
    r = await _post(client, f"/games/{gid}/actions", headers, json=action)
    if r.status_code == 409:
        # out of sequence: refused by the match flow before the rules core, citing the
        # sequence rule the case's own ruling cites too
        problem = r.json()
        assert problem["code"] == "phase.not_your_turn", r.text
        assert expect["legal"] is False, r.text
        cited = {c["section"] for c in problem["citations"]}
        assert cited <= set(expect.get("citations") or []), (cited, expect.get("citations"))
    elif expect["legal"]:
        assert r.status_code == 201, r.text
        check_ruling(expect, r.json()["ruling"])
        version += 1
    else:
        assert r.status_code == 422, r.text
        check_ruling(expect, r.json()["ruling"])
    assert (await client.get(f"/games/{gid}")).json()["version"] == version
