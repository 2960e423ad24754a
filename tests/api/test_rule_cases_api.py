"""Every rule case with an action (zoc, zoi, objective-zones, terrain, battlefield), replayed
through HTTP.

The rules-core tests (tests/rules/*) judge each case directly; this module shows that the same
verdict, violations and effects come back over HTTP — a dry run first, then the real submission
by the umpire seat (201 when legal; refused with nothing written when not) — on both databases.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.anyio

RULES = Path(__file__).resolve().parents[1] / "rules"


def _module(path: Path) -> ModuleType:
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"_cases_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ZOC = _module(RULES / "zoc" / "zoc_case_harness.py")
ZOI = _module(RULES / "zoi" / "test_zoi_cases.py")
OZ = _module(RULES / "objective_zones" / "oz_case_harness.py")
TERRAIN = _module(RULES / "terrain" / "terrain_case_harness.py")
BATTLEFIELD = _module(RULES / "battlefield" / "bf_case_harness.py")


def _zoc_cases() -> list[Any]:
    out = []
    folders = (ZOC.CASES_DIR, ZOC.REVIEW_DIR, ZOC.HERE / "cases_examiner")
    for case in [c for folder in folders for c in ZOC.load_cases(folder)]:
        data = case.data
        if "action" in data and "invalid_scenario" not in data:
            out.append(
                pytest.param(
                    "zoc",
                    ZOC.scenario_of(case),
                    data.get("options") or {},
                    data.get("before") or [],
                    data["action"],
                    case.expect,
                    id=f"zoc-{case.name}",
                )
            )
    return out


def _zoi_cases() -> list[Any]:
    out = []
    for case in ZOI.CASES:
        if "action" in case:
            out.append(
                pytest.param(
                    "zoi",
                    ZOI.build_scenario(case),
                    case.get("options") or {},
                    case.get("before") or [],
                    case["action"],
                    case["expect"],
                    id=f"zoi-{case['name']}",
                )
            )
    return out


def _oz_cases() -> list[Any]:
    """Objective-zones action cases whose dice the service need not roll (cases with given
    dice are judged in the rules core, where dice come in as values)."""
    out = []
    for folder in (OZ.CASES_DIR, OZ.HERE / "cases_review"):
        for case in OZ.load_cases(folder):
            data = case.data
            if "action" not in data or "dice" in data:
                continue
            before = [*(data.get("before") or []), *["advance"] * int(data.get("advance", 0))]
            out.append(
                pytest.param(
                    "objective-zones",
                    OZ.scenario_of(case),
                    data.get("options") or {},
                    before,
                    data["action"],
                    case.expect,
                    id=f"oz-{case.name}",
                )
            )
    return out


def _terrain_cases() -> list[Any]:
    """Terrain action cases that need no dice (wheel checks are judged in the rules core)."""
    out = []
    for case in TERRAIN.load_cases():
        data = case.data
        if "action" not in data or data.get("dice") or case.expect.get("dice_needed"):
            continue
        out.append(
            pytest.param(
                "terrain",
                TERRAIN.scenario_of(case),
                data.get("options") or {},
                [],
                data["action"],
                case.expect,
                id=f"terrain-{case.name}",
            )
        )
    return out


def _battlefield_cases() -> list[Any]:
    """Battlefield action cases whose dice the service need not roll."""
    out = []
    for case in BATTLEFIELD.load_cases():
        data = case.data
        if "action" not in data or data.get("dice"):
            continue
        out.append(
            pytest.param(
                "battlefield",
                BATTLEFIELD.scenario_of(case),
                data.get("options") or {},
                data.get("before") or [],
                data["action"],
                case.expect,
                id=f"battlefield-{case.name}",
            )
        )
    return out


def _kinds(effects: list[Any]) -> list[str]:
    return [e if isinstance(e, str) else e["kind"] for e in effects]


@pytest.mark.parametrize(
    ("ruleset", "scenario", "options", "before", "action", "expect"),
    _zoc_cases() + _zoi_cases() + _oz_cases() + _terrain_cases() + _battlefield_cases(),
)
async def test_rule_case_over_http(
    client: httpx.AsyncClient,
    ruleset: str,
    scenario: dict[str, Any],
    options: dict[str, Any],
    before: list[Any],
    action: dict[str, Any],
    expect: dict[str, Any],
) -> None:
    # the cases judge a position as given: the umpire acts in any phase of this game
    r = await client.post(
        "/games",
        json={
            "ruleset": ruleset,
            "scenario": scenario,
            "options": options,
            "match": {"enforce_sequence": False},
        },
    )
    assert r.status_code == 201, r.text
    game = r.json()
    gid, umpire = game["id"], {"Authorization": f"Bearer {game['seats']['umpire']}"}
    version = 1
    for pre in before:
        if pre == "advance":  # the umpire advances the phase
            r = await client.post(
                f"/games/{gid}/phase/advance", headers={**umpire, "If-Match": f'W/"{version}"'}
            )
        else:
            r = await client.post(
                f"/games/{gid}/actions", json=pre, headers={**umpire, "If-Match": f'W/"{version}"'}
            )
        assert r.status_code == 201, r.text
        version += 1

    r = await client.post(f"/games/{gid}/rulings", json=action)
    assert r.status_code == 200, r.text
    ruling = r.json()
    assert ruling["legal"] is expect["legal"], ruling["summary"]
    assert [v["code"] for v in ruling["violations"]] == list(expect.get("violations", []))
    assert [e["kind"] for e in ruling["effects"]] == _kinds(expect["effects"])

    r = await client.post(
        f"/games/{gid}/actions", json=action, headers={**umpire, "If-Match": f'W/"{version}"'}
    )
    if expect["legal"]:
        assert r.status_code == 201, r.text
        assert r.json()["ruling"] == ruling
        assert (await client.get(f"/games/{gid}")).json()["version"] == version + 1
    else:
        assert r.status_code == 422, r.text
        assert r.json()["ruling"] == ruling
        assert (await client.get(f"/games/{gid}")).json()["version"] == version
