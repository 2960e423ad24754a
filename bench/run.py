"""Referee benchmarks: every figure is a ratio to a baseline measured in the same run.

Absolute times depend on the machine; ratios to a baseline taken in the same process, on the
same data, a moment apart, are what we track. Run: ``make bench`` (or ``python bench/run.py``).

* ``zoc reachable`` (40x40 map, 24 units) vs a plain breadth-first search of the same map
  with the shared grid's neighbours and no rules: what the zone and cost rules add.
* ``zoc adjudicate`` (a 6-hex move past enemy zones) vs the same plain search.
* ``zoi reachable`` (40x40 map) vs the plain search.
* ``HTTP dry run`` (POST /games/{id}/rulings, SQLite, in-process ASGI) vs ``GET /healthz``:
  what loading a game, the board cache and adjudication add to a request.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.rules import registry
from app.rules.geometry import DEFAULT_LAYOUT


def measure(fn: Callable[[], Any], *, repeat: int = 15, number: int = 5) -> float:
    """Median seconds per call over ``repeat`` batches of ``number`` calls."""
    fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t0) / number)
    return statistics.median(samples)


def plain_bfs(start: str, hexes: set[str], radius: int) -> int:
    seen = {start: 0}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        if seen[h] >= radius:
            continue
        for n in DEFAULT_LAYOUT.neighbors(h):
            if n in hexes and n not in seen:
                seen[n] = seen[h] + 1
                queue.append(n)
    return len(seen)


def zoc_scenario(size: int = 40) -> dict[str, Any]:
    units = []
    for i in range(12):
        units.append(
            {"id": f"ax-{i}", "side": "axis", "country": "germany", "type": "infantry",
             "movement_allowance": 6, "steps": 2, "hex": f"{5 + i * 2:02d}{10 + (i % 3):02d}"}
        )
        units.append(
            {"id": f"su-{i}", "side": "soviet", "country": "ussr", "type": "infantry",
             "movement_allowance": 6, "steps": 2, "hex": f"{5 + i * 2:02d}{20 + (i % 4):02d}"}
        )
    return {
        "title": "bench",
        "areas": [{"cols": [1, size], "rows": [1, size], "terrain": "clear",
                   "country": "ussr", "weather_zone": "all"}],
        "countries": {"germany": {"name": "Germany"}, "ussr": {"name": "USSR"}},
        "sides": [{"id": "axis", "label": "Axis"}, {"id": "soviet", "label": "Soviet"}],
        "units": units,
        "weather": {"all": "clear"},
        "phase": "operational_movement",
        "phasing_side": "axis",
    }


def zoi_scenario(size: int = 40) -> dict[str, Any]:
    units = []
    for i in range(12):
        units.append({"id": f"fr-{i}", "side": "french", "type": "infantry", "subtype": "line",
                      "hex": f"{5 + i * 2:02d}{10:02d}", "increments": 6, "ma": 8,
                      "formation": "column", "facing": 3})
        units.append({"id": f"au-{i}", "side": "austrian", "type": "infantry", "subtype": "line",
                      "hex": f"{5 + i * 2:02d}{20:02d}", "increments": 6, "ma": 6,
                      "formation": "line", "facing": 0})
    return {
        "ruleset": "zoi",
        "name": "bench",
        "map": {"columns": [1, size], "rows": [1, size]},
        "sides": [{"id": "french", "label": "French"}, {"id": "austrian", "label": "Austrian"}],
        "units": units,
        "turn": 1,
        "phase": "movement",
        "phasing": "french",
    }


def rules_benchmarks() -> list[tuple[str, float, float]]:
    out = []
    all_hexes = {f"{c:02d}{r:02d}" for c in range(1, 41) for r in range(1, 41)}

    zoc = registry.get("zoc")
    opts = zoc.parse_options({})
    board, state = zoc.setup(zoc.parse_scenario(zoc_scenario()), opts)
    q = zoc.queries()["reachable"]
    params = q.params(unit="ax-5")
    base = measure(lambda: plain_bfs("1511", all_hexes, 6))
    out.append(("zoc reachable (MA 6)", measure(lambda: q.run(board, state, opts, params)), base))
    move = zoc.parse_action(
        {"kind": "move", "unit": "ax-5", "path": ["1512", "1513", "1514", "1515", "1516", "1517"]}
    )
    out.append(("zoc adjudicate 6-hex move",
                measure(lambda: zoc.adjudicate(board, state, move, opts)), base))

    zoi = registry.get("zoi")
    zopts = zoi.parse_options({})
    zboard, zstate = zoi.setup(zoi.parse_scenario(zoi_scenario()), zopts)
    zq = zoi.queries()["reachable"]
    zparams = zq.params(unit="fr-5")
    zbase = measure(lambda: plain_bfs("1510", all_hexes, 8))
    out.append(("zoi reachable (MA 8)", measure(lambda: zq.run(zboard, zstate, zopts, zparams)),
                zbase))
    return out


async def http_benchmarks() -> list[tuple[str, float, float]]:
    import httpx

    from app.config import Settings
    from app.db.migrate import upgrade
    from app.main import create_app

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        upgrade(url)
        app = create_app(Settings(database_url=url))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            r = await client.post("/games", json={"ruleset": "zoc", "scenario": zoc_scenario()})
            gid = r.json()["id"]
            action = {"kind": "move", "unit": "ax-5", "path": ["1512", "1513", "1514"]}

            async def timed(call: Callable[[], Any], n: int = 60) -> float:
                await call()
                samples = []
                for _ in range(n):
                    t0 = time.perf_counter()
                    await call()
                    samples.append(time.perf_counter() - t0)
                return statistics.median(samples)

            health = await timed(lambda: client.get("/healthz"))
            dry = await timed(lambda: client.post(f"/games/{gid}/rulings", json=action))
            get = await timed(lambda: client.get(f"/games/{gid}"))
        app.state.engine.dispose()
    return [("HTTP dry run (zoc, 40x40)", dry, health), ("HTTP GET game (zoc, 40x40)", get, health)]


def main() -> int:
    rows = rules_benchmarks() + asyncio.run(http_benchmarks())
    print(f"{'benchmark':34} {'median':>10} {'baseline':>10} {'ratio':>8}")
    for name, value, base in rows:
        print(f"{name:34} {value * 1e3:8.2f}ms {base * 1e3:8.2f}ms {value / base:7.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
