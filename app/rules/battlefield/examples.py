"""The shipped example of the ``battlefield`` ruleset.

The same document as scenarios/battlefield/millers-crossing.json (a test checks it).
"""

from __future__ import annotations

from typing import Any

EXAMPLE: dict[str, Any] = {
    "title": "Miller's Crossing: a village, a redoubt line and a stream on one table",
    "layout": "rolling_hills",
    "table": {"width": 1600, "height": 1000},
    "sides": [{"id": "union", "label": "Union"}, {"id": "confederate", "label": "Confederate"}],
    "features": [
        {
            "id": "pike",
            "kind": "road",
            "name": "Valley pike",
            "line": [[700, 0], [760, 500], [800, 1000]],
            "width": 20,
        },
        {
            "id": "creek",
            "kind": "stream",
            "name": "Miller's creek",
            "steep_banks": True,
            "line": [[0, 340], [1600, 360]],
            "width": 20,
        },
        {
            "id": "stone-bridge",
            "kind": "bridge",
            "polygon": [[725, 325], [760, 325], [760, 375], [725, 375]],
        },
        {"id": "lower-ford", "kind": "ford", "line": [[1150, 330], [1150, 370]]},
        {
            "id": "orchard",
            "kind": "orchard",
            "name": "Miller's orchard",
            "polygon": [[300, 150], [500, 150], [500, 300], [300, 300]],
        },
        {
            "id": "big-woods",
            "kind": "heavy_woods",
            "name": "Big woods",
            "polygon": [[1050, 550], [1300, 550], [1300, 750], [1050, 750]],
        },
        {
            "id": "ridge",
            "kind": "hill",
            "name": "Redoubt ridge",
            "polygon": [[80, 780], [660, 780], [660, 1000], [80, 1000]],
        },
    ],
    "zones": [
        {
            "id": "village",
            "name": "Millersburg",
            "class": "C",
            "polygon": [[650, 480], [950, 480], [950, 760], [650, 760]],
        },
        {
            "id": "redoubt-w",
            "name": "West redoubt",
            "class": "F",
            "adjacent": ["redoubt-e"],
            "polygon": [[100, 820], [360, 820], [360, 980], [100, 980]],
        },
        {
            "id": "redoubt-e",
            "name": "East redoubt",
            "class": "F",
            "adjacent": ["redoubt-w"],
            "polygon": [[360, 820], [620, 820], [620, 980], [360, 980]],
        },
    ],
    "units": [
        {
            "id": "cs-1va",
            "side": "confederate",
            "grade": "green",
            "men": 8,
            "zone": "village",
            "box": "garrison",
            "sector": 1,
            "entered_turn": 0,
        },
        {
            "id": "cs-bty",
            "side": "confederate",
            "type": "artillery",
            "sections": 2,
            "limbered": False,
            "zone": "village",
            "box": "garrison",
            "entered_turn": 0,
        },
        {
            "id": "cs-2va",
            "side": "confederate",
            "grade": "veteran",
            "men": 18,
            "zone": "redoubt-w",
            "box": "garrison",
            "sector": 2,
            "entered_turn": 0,
        },
        {
            "id": "cs-3va",
            "side": "confederate",
            "grade": "trained",
            "men": 16,
            "zone": "redoubt-e",
            "box": "garrison",
            "sector": 1,
            "entered_turn": 0,
        },
        {
            "id": "cs-cav",
            "side": "confederate",
            "type": "cavalry",
            "grade": "trained",
            "men": 10,
            "at": [1450, 900],
        },
        {"id": "us-1", "side": "union", "grade": "veteran", "men": 24, "at": [742, 300]},
        {"id": "us-2", "side": "union", "grade": "trained", "men": 20, "at": [1150, 315]},
        {
            "id": "us-sk",
            "side": "union",
            "order": "skirmish",
            "grade": "trained",
            "men": 10,
            "at": [250, 200],
        },
        {
            "id": "us-bty",
            "side": "union",
            "type": "artillery",
            "sections": 2,
            "limbered": False,
            "at": [600, 250],
        },
    ],
    "artillery_range": 1000,
    "kill_zone_width": 60,
    "turn": 1,
    "phase": "charge_declaration",
    "phasing_side": "union",
}
