"""The seed's own example as a shipped scenario (also in ``scenarios/zoc/*.json``).

The Soviet 18th Army holds Cernauti (e3306). A Mountain hexside separates e3306 from e3206, so
e3206 receives no zone. A German infantry unit stands in e3207, which the 18th Army zones; it
negates that EZOC for other German units. Two German infantry units in e3107 can therefore move
e3107 -> e3207 -> e3307 (next to the 1st Ukrainian Front HQ in e3308) without stopping in e3207;
they must stop in e3307, which the 18th Army and the HQ both zone.

The variant without the German infantry in e3207 shows the stop in e3207.
"""

from __future__ import annotations

import copy
from typing import Any

SEED_EXAMPLE: dict[str, Any] = {
    "title": "Cernauti: the section 8 example",
    "description": (
        "Soviet 18th Army in Cernauti (e3306) behind a Mountain hexside towards e3206; German "
        "infantry in e3207 negates the EZOC there; German units in e3107 move through e3207 "
        "to e3307 next to the 1st Ukrainian Front HQ (e3308)."
    ),
    "layout": {"orientation": "flat", "offset": "odd", "col_digits": 2, "row_digits": 2},
    "areas": [
        {
            "prefix": "e",
            "cols": [30, 36],
            "rows": [3, 10],
            "terrain": "clear",
            "country": "ussr",
            "weather_zone": "south",
        }
    ],
    "hexes": {"e3306": {"terrain": "city"}},
    "hexsides": {"e3206/e3306": ["mountain"]},
    "countries": {
        "germany": {"name": "Germany"},
        "ussr": {"name": "Soviet Union"},
    },
    "sides": [{"id": "axis", "label": "Axis"}, {"id": "soviet", "label": "Soviet"}],
    "units": [
        {
            "id": "su-18a",
            "name": "18th Army",
            "side": "soviet",
            "country": "ussr",
            "type": "army",
            "movement_allowance": 3,
            "steps": 2,
            "hex": "e3306",
        },
        {
            "id": "su-1uk-hq",
            "name": "1st Ukrainian Front HQ",
            "side": "soviet",
            "country": "ussr",
            "type": "hq",
            "movement_allowance": 3,
            "steps": 1,
            "hex": "e3308",
        },
        {
            "id": "de-inf-y",
            "name": "German infantry (e3207)",
            "side": "axis",
            "country": "germany",
            "type": "infantry",
            "movement_allowance": 4,
            "steps": 2,
            "hex": "e3207",
        },
        {
            "id": "de-inf-1",
            "name": "German infantry 1",
            "side": "axis",
            "country": "germany",
            "type": "infantry",
            "movement_allowance": 4,
            "steps": 2,
            "hex": "e3107",
        },
        {
            "id": "de-inf-2",
            "name": "German infantry 2",
            "side": "axis",
            "country": "germany",
            "type": "infantry",
            "movement_allowance": 4,
            "steps": 2,
            "hex": "e3107",
        },
    ],
    "markers": [],
    "weather": {"south": "clear"},
    "supply": {"sources": {"axis": ["e3003"], "soviet": ["e3610"]}, "max_length": 5},
    "turn": 1,
    "phase": "operational_movement",
    "phasing_side": "axis",
}


def seed_example_without_infantry() -> dict[str, Any]:
    """The same scenario without the German infantry in e3207."""
    scenario = copy.deepcopy(SEED_EXAMPLE)
    scenario["title"] = "Cernauti: the section 8 example, e3207 empty"
    scenario["description"] = (
        "As the section 8 example, but nothing German stands in e3207: a German unit moving "
        "from e3107 must stop there."
    )
    scenario["units"] = [u for u in scenario["units"] if u["id"] != "de-inf-y"]
    return scenario
