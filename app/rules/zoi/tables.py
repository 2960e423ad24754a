"""Default tables of the ``zoi`` ruleset (scenario data with documented defaults).

Rule 14 names the facing and formation concepts but gives no numbers. The defaults here are the
series' usual facing table as described in ``docs/rulesets/zoi.md`` plus project defaults for
terrain and change costs. A scenario replaces any entry by giving the same key (a ``null`` front
table entry removes a formation).

Keys are ``"<type>.<formation>"`` or, more specific, ``"<type>.<subtype>.<formation>"`` for the
front table, and ``"<type>"`` or ``"<type>.<subtype>"`` for the cost tables.
"""

from __future__ import annotations

from typing import Any

FRONT_TABLE: dict[str, dict[str, Any]] = {
    # infantry
    "infantry.column": {"faces": "hexside", "front": 3},
    "infantry.line": {"faces": "vertex", "front": 2},
    "infantry.carre": {"faces": "all", "front": 6},
    "infantry.skirmish": {"faces": "vertex", "front": 4},
    "infantry.general_order": {"faces": "hexside", "front": 3},
    "infantry.road_march": {"faces": "hexside", "front": 1},
    "infantry.routed": {"faces": "hexside", "front": 3},
    # cavalry
    "cavalry.column": {"faces": "hexside", "front": 3},
    "cavalry.line": {"faces": "vertex", "front": 2},
    "cavalry.general_order": {"faces": "hexside", "front": 3},
    "cavalry.road_march": {"faces": "hexside", "front": 1},
    "cavalry.routed": {"faces": "hexside", "front": 3},
    "cavalry.light.column": {"faces": "hexside", "front": 5},
    "cavalry.light.general_order": {"faces": "hexside", "front": 5},
    # artillery (foot and horse); limbered/unlimbered are its formations
    "artillery.limbered": {"faces": "hexside", "front": 3},
    "artillery.unlimbered": {"faces": "hexside", "front": 3},
    "artillery.road_march": {"faces": "hexside", "front": 1},
    "artillery.routed": {"faces": "hexside", "front": 3},
}
"""Formation -> what the facing number denotes and how many hexsides are front."""

CHANGE_COSTS: dict[str, dict[str, int]] = {
    "infantry": {"face": 1, "formation": 1, "limber": 0, "unlimber": 0},
    "cavalry": {"face": 3, "formation": 3, "limber": 0, "unlimber": 0},
    "artillery": {"face": 2, "formation": 2, "limber": 2, "unlimber": 2},
}
"""Movement points for a change of facing, of formation, and for limbering/unlimbering."""

TERRAIN_COSTS: dict[str, dict[str, int | None]] = {
    "clear": {"infantry": 1, "cavalry": 1, "artillery": 1, "leader": 1},
    "woods": {"infantry": 2, "cavalry": 3, "artillery": 3, "leader": 2},
    "rough": {"infantry": 2, "cavalry": 2, "artillery": 3, "leader": 1},
    "town": {"infantry": 1, "cavalry": 2, "artillery": 2, "leader": 1},
    "marsh": {"infantry": 3, "cavalry": None, "artillery": None, "leader": 2},
}
"""Terrain -> unit class -> movement points to enter (``None``: may not enter)."""

MELEE_MATRIX: list[dict[str, Any]] = [
    {"type": "*", "condition": "*", "result": "R1", "retreat": 1, "loss": 0},
    {"type": "*", "condition": "*", "result": "R2", "retreat": 2, "loss": 0},
    {"type": "*", "condition": "*", "result": "R1L1", "retreat": 1, "loss": 1},
    {"type": "*", "condition": "*", "result": "R2L1", "retreat": 2, "loss": 1},
    {"type": "*", "condition": "*", "result": "R3L2", "retreat": 3, "loss": 2},
]
"""A minimal placeholder melee matrix: result -> retreat length and increments lost.

Rule 14 only says to consult the series matrix; a scenario supplies the real one.
"""

SUBTYPES: dict[str, tuple[str, ...]] = {
    "infantry": ("line", "light"),
    "cavalry": ("heavy", "light"),
    "artillery": ("foot", "horse"),
    "leader": (),
}
"""Unit types and their subtypes."""

ROUTED = "routed"
CARRE = "carre"
LIMBERED = "limbered"
UNLIMBERED = "unlimbered"
