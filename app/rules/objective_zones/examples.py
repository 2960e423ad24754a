"""The shipped example (also ``scenarios/objective-zones/example.json``): a Union brigade
assaults a Confederate-held village (Class C, two sectors) beside a town and a redoubt."""

from __future__ import annotations

from typing import Any

EXAMPLE: dict[str, Any] = {
    "title": "Assault on Hooper's Mill",
    "sides": [
        {"id": "union", "label": "Union"},
        {"id": "confederate", "label": "Confederate"},
    ],
    "zones": [
        {"id": "mill", "name": "Hooper's Mill", "class": "C", "road": True, "adjacent": ["church"]},
        {"id": "church", "name": "Church Hill", "class": "D", "road": True, "adjacent": ["mill"]},
        {"id": "redoubt", "name": "North Redoubt", "class": "F", "road": False, "adjacent": []},
    ],
    "units": [
        {
            "id": "cs-22va",
            "side": "confederate",
            "type": "infantry",
            "grade": "veteran",
            "men": 18,
            "zone": "mill",
            "at": "garrison",
            "sector": 1,
            "entered_turn": 0,
        },
        {
            "id": "cs-36va",
            "side": "confederate",
            "type": "infantry",
            "grade": "trained",
            "men": 8,
            "zone": "mill",
            "at": "garrison",
            "sector": 2,
            "entered_turn": 0,
        },
        {
            "id": "cs-bty",
            "side": "confederate",
            "type": "artillery",
            "grade": "trained",
            "men": 6,
            "sections": 2,
            "zone": "mill",
            "at": "garrison",
            "entered_turn": 0,
        },
        {
            "id": "cs-45va",
            "side": "confederate",
            "type": "infantry",
            "grade": "green",
            "men": 14,
            "zone": "church",
            "at": "transit",
            "entered_turn": 0,
        },
        {"id": "us-1", "side": "union", "type": "infantry", "grade": "veteran", "men": 24},
        {"id": "us-2", "side": "union", "type": "infantry", "grade": "trained", "men": 16},
        {"id": "us-3", "side": "union", "type": "infantry", "grade": "green", "men": 10},
        {"id": "us-cav", "side": "union", "type": "cavalry", "grade": "trained", "men": 12},
        {
            "id": "us-bty",
            "side": "union",
            "type": "artillery",
            "grade": "trained",
            "men": 6,
            "sections": 1,
        },
    ],
    "melee_dice": {"elite": 4, "veteran": 3, "trained": 2, "green": 1},
    "casualties_per_hit": 1,
    "battery_hit_level": 1,
    "turn": 1,
    "phase": "charge_declaration",
    "phasing_side": "union",
}
