"""Issue 9 item 3: one size budget per scenario (every ruleset; explicit hexes, areas,
features, units and vertices all count) and a board cache bounded in bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from app.service.boards import BoardCache
from app.service.budget import DEFAULT_BUDGET, document_size
from tests.match.flowkit import problem

pytestmark = pytest.mark.anyio

SCENARIOS = Path(__file__).parents[2] / "scenarios"


def _scenario(ruleset: str, name: str = "example.json") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCENARIOS / ruleset / name).read_text())
    return data


async def _refused(client: httpx.AsyncClient, ruleset: str, scenario: dict[str, Any]) -> None:
    r = await client.post("/games", json={"ruleset": ruleset, "scenario": scenario})
    body = problem(r, 422, "scenario.too_large")
    assert body["limit"] == DEFAULT_BUDGET and body["size"] > DEFAULT_BUDGET, body
    assert "REFEREE_SCENARIO_BUDGET" in body["detail"]
    app = client._transport.app  # type: ignore[attr-defined]
    with app.state.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM scenarios")).scalar_one() == 0


async def test_explicit_hexes_beside_an_area_count(client: httpx.AsyncClient) -> None:
    sc = _scenario("zoc", "seed-example.json")
    sc["areas"] = [{"cols": [1, 200], "rows": [1, 200]}]  # 40,000 generated hexes
    sc["hexes"] = {f"z{i:05d}": {} for i in range(12_000)}
    await _refused(client, "zoc", sc)


async def test_a_document_of_explicit_hexes_alone_counts(client: httpx.AsyncClient) -> None:
    sc = _scenario("zoc", "seed-example.json")
    sc["hexes"] = {f"z{i:05d}": {} for i in range(60_000)}
    await _refused(client, "zoc", sc)


async def test_a_large_zoi_map_counts(client: httpx.AsyncClient) -> None:
    sc = _scenario("zoi")
    sc["map"] = {**sc["map"], "columns": [0, 199], "rows": [0, 199]}
    sc["units"] = sc["units"] * 1 + [dict(sc["units"][0], id=f"x{i}") for i in range(3000)]
    await _refused(client, "zoi", sc)


async def test_terrain_vertices_count(client: httpx.AsyncClient) -> None:
    sc = _scenario("terrain")
    ring = [[float(i % 100), float(i // 100)] for i in range(400)]
    sc["features"] = [{"id": f"f{i}", "kind": "rough", "polygon": ring} for i in range(50)]
    assert document_size(sc) > DEFAULT_BUDGET
    await _refused(client, "terrain", sc)


async def test_objective_zones_units_count(client: httpx.AsyncClient) -> None:
    sc = _scenario("objective-zones")
    sc["extra"] = [[0] * 1000] * 60  # not even a field of the schema: counted first
    await _refused(client, "objective-zones", sc)


async def test_every_shipped_scenario_is_well_within_the_budget(
    client: httpx.AsyncClient,
) -> None:
    for path in sorted(SCENARIOS.glob("*/*.json")):
        sc = json.loads(path.read_text())
        assert document_size(sc) < DEFAULT_BUDGET / 100, path
        r = await client.post("/games", json={"ruleset": path.parent.name, "scenario": sc})
        assert r.status_code == 201, (path, r.text)


def test_the_board_cache_is_bounded_in_bytes() -> None:
    cache = BoardCache(maxsize=100, max_bytes=1000)
    for i in range(5):
        cache.put(("r", "1", f"d{i}"), f"board{i}", 300)
    assert len(cache) == 3 and cache.bytes == 900
    assert cache.get(("r", "1", "d0"), lambda: ("reloaded", 300)) == "reloaded"  # evicted
    assert cache.get(("r", "1", "d4"), lambda: ("never", 300)) == "board4"
    cache.put(("r", "1", "huge"), "huge", 5000)  # larger than the cache: served, not kept
    assert ("r", "1", "huge") not in cache._items and cache.bytes <= 1000
    cache.put(("r", "1", "d4"), "again", 100)  # replacing an entry re-weighs it
    assert cache.bytes == sum(size for _, size in cache._items.values())


def test_parsed_states_are_bounded_in_bytes_too() -> None:
    """Many large games must not pile up parsed states past the byte bound, and a game's
    older versions are not kept at all once a newer one is parsed."""
    cache = BoardCache(maxsize=100, max_bytes=1000)
    big = {"units": ["x" * 90] * 3}  # about 290 bytes of canonical JSON
    for game in range(10):
        cache.state((f"g{game}", 1, "r", "1"), lambda: dict(big), lambda: big)
    assert cache.states.bytes <= 1000
    assert len(cache.states) == 3
    loads: list[str] = []

    def load(game: str) -> dict[str, list[str]]:
        loads.append(game)
        return dict(big)

    cache.state(("g9", 1, "r", "1"), lambda: load("g9"), lambda: big)
    assert loads == []  # the newest game is still kept
    cache.state(("g0", 1, "r", "1"), lambda: load("g0"), lambda: big)
    assert loads == ["g0"]  # the oldest was dropped
    for version in range(2, 6):
        cache.state(("g0", version, "r", "1"), lambda: dict(big), lambda: big)
    assert [k[1] for k in cache.states._items if k[0] == "g0"] == [5]
