"""The shipped example scenario (``scenarios/terrain/example.json`` holds the same document)."""

from __future__ import annotations

from typing import Any

EXAMPLE: dict[str, Any] = {
    "title": "Mill brook: a measured terrain example",
    "layout": "rolling_hills",
    "table": {"width": 1200, "height": 800},
    "sides": [{"id": "french", "label": "French"}, {"id": "british", "label": "British"}],
    "features": [
        {
            "id": "hw1",
            "kind": "heavy_woods",
            "name": "Bois du Loup",
            "polygon": [[100, 100], [300, 100], [300, 300], [100, 300]],
        },
        {
            "id": "lw1",
            "kind": "orchard",
            "name": "Mill orchard",
            "polygon": [[400, 100], [550, 100], [550, 250], [400, 250]],
        },
        {
            "id": "grass1",
            "kind": "high_grass",
            "polygon": [[650, 100], [750, 100], [750, 200], [650, 200]],
        },
        {
            "id": "rough1",
            "kind": "rough",
            "name": "Stony field",
            "polygon": [[100, 450], [300, 450], [300, 600], [100, 600]],
        },
        {
            "id": "brook",
            "kind": "stream",
            "steep_banks": True,
            "line": [[0, 400], [1200, 400]],
            "width": 20,
        },
        {"id": "ford1", "kind": "ford", "line": [[600, 380], [600, 420]]},
        {
            "id": "bridge1",
            "kind": "bridge",
            "polygon": [[890, 385], [920, 385], [920, 415], [890, 415]],
        },
        {"id": "road1", "kind": "road", "line": [[905, 0], [905, 800]], "width": 20},
        {
            "id": "mill",
            "kind": "building",
            "polygon": [[1000, 600], [1060, 600], [1060, 650], [1000, 650]],
        },
        {
            "id": "works1",
            "kind": "earthworks",
            "works": "prepared",
            "polygon": [[700, 650], [800, 650], [800, 670], [700, 670]],
        },
    ],
    "units": [
        {
            "id": "fr-inf",
            "side": "french",
            "type": "infantry",
            "order": "formed",
            "at": [350, 200],
            "movement": 120,
        },
        {
            "id": "fr-skirm",
            "side": "french",
            "type": "infantry",
            "order": "skirmish",
            "at": [90, 200],
            "movement": 150,
        },
        {
            "id": "fr-cav",
            "side": "french",
            "type": "cavalry",
            "order": "formed",
            "at": [200, 700],
            "movement": 240,
        },
        {
            "id": "fr-bty",
            "side": "french",
            "type": "artillery",
            "limbered": False,
            "at": [380, 230],
            "movement": 60,
        },
        {"id": "fr-wagon", "side": "french", "type": "wagon", "at": [200, 650], "movement": 120},
        {
            "id": "br-inf",
            "side": "british",
            "type": "infantry",
            "order": "formed",
            "at": [600, 500],
            "movement": 120,
        },
        {
            "id": "br-cav",
            "side": "british",
            "type": "cavalry",
            "order": "formed",
            "at": [950, 660],
            "movement": 240,
        },
        {
            "id": "br-lt",
            "side": "british",
            "type": "infantry",
            "order": "skirmish",
            "at": [800, 150],
            "movement": 150,
        },
    ],
}
