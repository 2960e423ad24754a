"""Deterministic scenarios of real game sizes for the benchmarks (no randomness module: a
small linear congruential generator keeps every run on the same data)."""

from __future__ import annotations

from typing import Any

TERRAIN_BY_COST = ("clear", "rough", "swamp")  # 1, 2 and 3 movement points by default


class Lcg:
    """A tiny deterministic number generator (same numbers in every run)."""

    def __init__(self, seed: int) -> None:
        self.x = seed

    def below(self, n: int) -> int:
        self.x = (self.x * 1103515245 + 12345) % (1 << 31)
        return self.x % n


def digits(size: int) -> int:
    return max(2, len(str(size)))


def hex_id(col: int, row: int, size: int) -> str:
    d = digits(size)
    return f"{col:0{d}d}{row:0{d}d}"


def zoc_scenario(
    size: int,
    enemies: int,
    *,
    ma: int = 12,
    seed: int = 7,
    river_every: int = 0,
    units_within: int | None = None,
    id_size: int | None = None,
) -> dict[str, Any]:
    """A ``size`` x ``size`` map with terrain costs 1-3, ``enemies`` Soviet units spread over
    it, and one Axis mover ``mover`` (movement allowance ``ma``) in the middle, plus a few
    friendly units (negation). ``river_every`` > 0 adds a river hexside every n hexes.
    ``units_within`` keeps every unit (and the mover) in the map's first n columns and rows,
    ``id_size`` numbers hexes as on a map that large (so two maps share their hex ids)."""
    rng = Lcg(seed)
    span = units_within or size
    id_size = id_size or size
    d = digits(id_size)
    mid = (span + 1) // 2
    hexes: dict[str, Any] = {}
    for col in range(1, size + 1):
        for row in range(1, size + 1):
            t = rng.below(10)
            if t >= 7:
                hexes[hex_id(col, row, id_size)] = {"terrain": TERRAIN_BY_COST[1 + t % 2]}
    hexsides: dict[str, list[str]] = {}
    if river_every:
        for col in range(1, size + 1, river_every):
            for row in range(1, size):
                a, b = hex_id(col, row, id_size), hex_id(col, row + 1, id_size)
                hexsides[f"{a}/{b}"] = ["river"]
    taken = {(mid, mid)}
    units: list[dict[str, Any]] = [
        {
            "id": "mover",
            "side": "axis",
            "country": "germany",
            "movement_allowance": ma,
            "steps": 2,
            "hex": hex_id(mid, mid, id_size),
        }
    ]
    for i in range(max(1, enemies // 20)):
        col, row = 1 + rng.below(span), 1 + rng.below(span)
        if (col, row) in taken:
            continue
        taken.add((col, row))
        units.append(
            {
                "id": f"ax-{i}",
                "side": "axis",
                "country": "germany",
                "movement_allowance": 6,
                "hex": hex_id(col, row, id_size),
            }
        )
    placed = 0
    while placed < enemies:
        col, row = 1 + rng.below(span), 1 + rng.below(span)
        if (col, row) in taken:
            continue
        taken.add((col, row))
        units.append(
            {
                "id": f"su-{placed}",
                "side": "soviet",
                "country": "ussr",
                "movement_allowance": 6,
                "hex": hex_id(col, row, id_size),
            }
        )
        placed += 1
    return {
        "title": f"bench {size}x{size}",
        "layout": {"col_digits": d, "row_digits": d},
        "areas": [
            {
                "cols": [1, size],
                "rows": [1, size],
                "terrain": "clear",
                "country": "ussr",
                "weather_zone": "all",
            }
        ],
        "hexes": hexes,
        "hexsides": hexsides,
        "countries": {"germany": {"name": "Germany"}, "ussr": {"name": "USSR"}},
        "sides": [{"id": "axis", "label": "Axis"}, {"id": "soviet", "label": "Soviet"}],
        "units": units,
        "weather": {"all": "clear"},
        "phase": "operational_movement",
        "phasing_side": "axis",
    }


def mover_step(scenario: dict[str, Any]) -> list[str]:
    """A one-hex move of the ``mover`` (to the next row), as a path."""
    start = next(u["hex"] for u in scenario["units"] if u["id"] == "mover")
    d = scenario["layout"]["col_digits"]
    return [start, f"{start[:d]}{int(start[d:]) + 1:0{d}d}"]


def zoi_scenario(
    size: int, enemies: int, *, ma: int = 8, seed: int = 11, friends: int = 0
) -> dict[str, Any]:
    """La Bataille map ``size`` x ``size`` with ``enemies`` Austrian line units and a French
    column ``mover`` in the middle; with ``friends``, that many more French columns
    (``fr-0``...) on free hexes two columns or rows from the mover, placed after the enemies
    (the rest of the scenario is the one without them)."""
    rng = Lcg(seed)
    mid = (size + 1) // 2
    taken = {(mid, mid)}
    units: list[dict[str, Any]] = [
        {
            "id": "mover",
            "side": "french",
            "type": "infantry",
            "subtype": "line",
            "hex": hex_id(mid, mid, size),
            "increments": 6,
            "ma": ma,
            "formation": "column",
            "facing": 3,
        }
    ]
    placed = 0
    while placed < enemies:
        col, row = 1 + rng.below(size), 1 + rng.below(size)
        if (col, row) in taken:
            continue
        taken.add((col, row))
        units.append(
            {
                "id": f"au-{placed}",
                "side": "austrian",
                "type": "infantry",
                "subtype": "line",
                "hex": hex_id(col, row, size),
                "increments": 6,
                "ma": 6,
                "formation": "line",
                "facing": rng.below(6),
            }
        )
        placed += 1
    spots = [(mid + dc, mid + dr) for dc, dr in ((2, 0), (-2, 0), (0, 2), (0, -2), (2, 2))]
    spots += [  # more friends (bench/hover.py): a grid of spots every 5 hexes around the mover
        (mid + dc, mid + dr) for dc in range(-15, 16, 5) for dr in range(-15, 16, 5) if dc or dr
    ]
    free = [p for p in spots if p not in taken and min(p) >= 1 and max(p) <= size]
    for i, (col, row) in enumerate(free[:friends]):
        units.append(
            {
                "id": f"fr-{i}",
                "side": "french",
                "type": "infantry",
                "subtype": "line",
                "hex": hex_id(col, row, size),
                "increments": 6,
                "ma": ma,
                "formation": "column",
                "facing": 3,
            }
        )
    return {
        "ruleset": "zoi",
        "name": f"bench {size}x{size}",
        "map": {
            "layout": {"col_digits": digits(size), "row_digits": digits(size)},
            "columns": [1, size],
            "rows": [1, size],
        },
        "sides": [{"id": "french", "label": "French"}, {"id": "austrian", "label": "Austrian"}],
        "units": units,
        "turn": 1,
        "phase": "movement",
        "phasing": "french",
    }
