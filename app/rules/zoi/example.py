"""The shipped example scenario (also in ``scenarios/zoi/example.json``; a test keeps them equal).

A French infantry column, a foot battery and cuirassiers advance on an Austrian line regiment,
a grenadier battalion in carré and a hussar regiment in line. Suggested first moves:

* ``fr-4-2`` 0608 -> 0607 -> 0606 -> 0605: enters the zone of ``aus-ir49`` and must stop;
* ``fr-cuir-1`` 0908 -> 0907 -> 0906 -> 0905: stopped by the hussars' zone;
* ``fr-cuir-1`` 0908 -> 0808 -> 0707 -> 0706 -> 0705 -> 0704 -> 0703: passes the infantry zone
  in 0704 and draws one opportunity-fire chance when it leaves it.
"""

from __future__ import annotations

from typing import Any

EXAMPLE_SCENARIO: dict[str, Any] = {
    "ruleset": "zoi",
    "name": "Aspern outskirts (example)",
    "description": "A French column, battery and cuirassiers against an Austrian line, a "
    "grenadier carre and hussars. Flat-topped hexes, odd columns shifted down; direction 0 is "
    "north, numbered clockwise.",
    "map": {
        "layout": {"orientation": "flat", "offset": "odd", "col_digits": 2, "row_digits": 2},
        "columns": [1, 12],
        "rows": [1, 10],
        "default_terrain": "clear",
        "terrain": {"0806": "woods", "0807": "woods", "0402": "town", "1108": "marsh"},
    },
    "sides": [
        {"id": "french", "label": "Armée d'Allemagne"},
        {"id": "austrian", "label": "Hauptarmee"},
    ],
    "units": [
        {
            "id": "fr-4-2",
            "side": "french",
            "type": "infantry",
            "subtype": "line",
            "name": "II/4e Ligne",
            "hex": "0608",
            "increments": 6,
            "ma": 6,
            "formation": "column",
            "facing": 0,
        },
        {
            "id": "fr-art-1",
            "side": "french",
            "type": "artillery",
            "subtype": "foot",
            "name": "1/1er Artillerie à pied",
            "hex": "0708",
            "increments": 3,
            "ma": 5,
            "formation": "limbered",
            "facing": 0,
        },
        {
            "id": "fr-cuir-1",
            "side": "french",
            "type": "cavalry",
            "subtype": "heavy",
            "name": "1er Cuirassiers",
            "hex": "0908",
            "increments": 5,
            "ma": 9,
            "formation": "column",
            "facing": 0,
        },
        {
            "id": "fr-ldr",
            "side": "french",
            "type": "leader",
            "name": "Général Legrand",
            "hex": "0609",
            "increments": 0,
            "ma": 12,
        },
        {
            "id": "aus-ir49",
            "side": "austrian",
            "type": "infantry",
            "subtype": "line",
            "name": "IR 49 Kerpen",
            "hex": "0604",
            "increments": 6,
            "ma": 5,
            "formation": "line",
            "facing": 2,
        },
        {
            "id": "aus-gr1",
            "side": "austrian",
            "type": "infantry",
            "subtype": "line",
            "name": "Grenadier-Bataillon Scovaud",
            "hex": "0304",
            "increments": 5,
            "ma": 5,
            "formation": "carre",
        },
        {
            "id": "aus-h3",
            "side": "austrian",
            "type": "cavalry",
            "subtype": "light",
            "name": "Hussar-Regiment 3",
            "hex": "0904",
            "increments": 4,
            "ma": 10,
            "formation": "line",
            "facing": 2,
        },
        {
            "id": "aus-ldr",
            "side": "austrian",
            "type": "leader",
            "name": "FML Hohenzollern",
            "hex": "0603",
            "increments": 0,
            "ma": 12,
        },
    ],
    "turn": 1,
    "phase": "movement",
    "phasing": "french",
}
