"""Floors for the two rulings the rules-core benchmark times, written here without any project
code: each does the look-ups (or the shapely measures) its ruling needs and builds **the same
information as plain dicts** -- verdict, summary, effects with their cited sections, the
ruling's citations, the readings relied on, the details. ``bench/core.py`` checks, outside the
timing, that a floor's dict equals the ruling's JSON, so both sides of the ratio answer the
same question with the same answer; the ratio is then the cost of the ruling machinery
(typed models, the judgement kit, every clause checked) over hand-written code for one case.

Catalog titles and the readings' texts are data (``Texts``), looked up once outside the
timing, as a front end would hold them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shapely.geometry import LineString, Point, Polygon


@dataclass(frozen=True)
class Texts:
    """Section titles and interpretation readings of one ruleset (data, not code)."""

    ruleset: str
    titles: dict[str, str]
    readings: dict[str, str]

    def cite(self, section: str) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "section": section, "title": self.titles[section]}


def _effect(
    texts: Texts,
    kind: str,
    message: str,
    sections: tuple[str, ...],
    details: dict[str, Any],
    *,
    unit: str | None = None,
    by: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "kind": kind,
        "message": message,
        "unit": unit,
        "hex": None,
        "step": None,
        "by": by or [],
        "citations": [texts.cite(s) for s in sections],
        "details": details,
    }


def _ruling(
    texts: Texts,
    summary: str,
    effects: list[dict[str, Any]],
    relied: list[tuple[str, str, Any]],
    details: dict[str, Any],
) -> dict[str, Any]:
    cited: dict[str, None] = {}
    for e in effects:
        for c in e["citations"]:
            cited.setdefault(c["section"], None)
    return {
        "legal": True,
        "summary": summary,
        "violations": [],
        "effects": effects,
        "citations": [texts.cite(s) for s in cited],
        "interpretations": [
            {"id": i, "text": texts.readings[i], "option": option, "value": value}
            for i, option, value in relied
        ],
        "details": details,
    }


# -- objective-zones: declaring an assault -----------------------------------------------------

CLASS_CAPACITY = {"A": 1, "B": 2, "D": 3, "F": 4}
"""Troop capacity by zone class where the text gives one number (C and E are readings)."""


def oz_declare_floor(
    scenario: dict[str, Any],
    zones: dict[str, dict[str, Any]],
    units: dict[str, dict[str, Any]],
    zone_id: str,
    unit_ids: list[str],
    texts: Texts,
    class_c: int = 2,
) -> dict[str, Any] | None:
    """The declaration's checks (zone and units known, phase, one side, phasing, free,
    no battery, infantry, a defender, not yet assaulted) and the ruling as dicts; None when a
    check fails (the benchmark's action passes them all)."""
    zone = zones.get(zone_id)
    named = [units[uid] for uid in unit_ids if uid in units]
    if zone is None or len(named) != len(unit_ids) or scenario["phase"] != "charge_declaration":
        return None
    side = named[0]["side"]
    if any(u["side"] != side for u in named) or side != scenario["phasing_side"]:
        return None
    for u in named:
        if u.get("zone") not in (None, zone_id) or u["type"] == "artillery":
            return None
    if not any(u["type"] == "infantry" for u in named):
        return None
    if not any(u.get("zone") == zone_id and u["side"] != side for u in units.values()):
        return None
    if any(a["zone"] == zone_id for a in scenario.get("assaults", ())):
        return None
    klass = zone["class"]
    relied = [("oz.class-c-capacity", "class_c_capacity", class_c)] if klass == "C" else []
    sectors = class_c if klass == "C" else CLASS_CAPACITY[klass]
    decision = f"allocation:{zone_id}:t{scenario['turn']}"
    effects = [
        _effect(
            texts,
            "oz.assault_declared",
            f"{side} assaults {zone_id}",
            ("OZ.Assault.A",),
            {"zone": zone_id},
            by=list(unit_ids),
        ),
        _effect(
            texts, "oz.contested", f"{zone_id} is contested", ("OZ.Basic.B",), {"zone": zone_id}
        ),
        _effect(
            texts,
            "oz.allocation_pending",
            f"sealed decision {decision}",
            ("OZ.Assault.B.1", "OZ.Class", "OZ.Capacity"),
            {"decision": decision, "sectors": sectors},
        ),
    ]
    defender = next(s["id"] for s in scenario["sides"] if s["id"] != side)
    return _ruling(
        texts,
        f"{side} declares an assault on {zone_id}.",
        effects,
        relied,
        {"zone": zone_id, "decision": decision, "defender": defender},
    )


# -- terrain: a move through closed ground -----------------------------------------------------

CAPS = {("skirmish", "heavy_woods"): (60.0, "A.44", "skirmishers in heavy woods")}
"""Movement caps in closed ground by order and kind (the one the benchmark's move meets)."""


def terrain_move_floor(
    features: list[tuple[dict[str, Any], Polygon, tuple[float, ...]]],
    unit: dict[str, Any],
    to: tuple[float, float],
    texts: Texts,
) -> dict[str, Any] | None:
    """The path's length inside each feature whose box it meets (and whether it starts inside
    it), the halting features at the end point, the caps, the allowance, and the ruling as
    dicts; None for a move outside what this floor covers."""
    start = tuple(unit["at"])
    line = LineString([start, to])
    total = line.length
    lo_x, lo_y, hi_x, hi_y = line.bounds
    yards_by: dict[str, float] = {}
    effects = []
    relied = []
    for f, shape, (x0, y0, x1, y1) in features:
        if x1 < lo_x or x0 > hi_x or y1 < lo_y or y0 > hi_y:
            continue
        inside = line.intersection(shape).length
        if inside <= 1e-6:
            continue
        if shape.covers(Point(start)):
            return None  # starting inside a feature: not covered here
        yards_by[f["id"]] = round(inside, 2)
        cap = CAPS.get((str(unit.get("order")), str(f["kind"])))
        if cap is None:
            return None
        limit, clause, why = cap
        if total > limit:
            return None
        relied.append(("terrain.cap-scope", "cap_scope", "whole_move"))
        effects.append(
            _effect(
                texts,
                "terrain.movement_capped",
                f"{why}: at most {limit:g} yards",
                (clause,),
                {
                    "feature": f["id"],
                    "cap": limit,
                    "yards_in_feature": round(inside, 2),
                    "counted": round(total, 2),
                },
                unit=unit["id"],
            )
        )
    end = Point(to)
    for f, shape, (x0, y0, x1, y1) in features:
        halts = f["kind"] in ("ford", "building", "earthworks", "protective_cover", "stone_wall")
        if halts and x0 <= to[0] <= x1 and y0 <= to[1] <= y1 and shape.covers(end):
            return None  # halting in a feature: not covered here
    allowance = unit["movement"]
    if total > allowance:
        return None
    return _ruling(
        texts,
        f"{unit['id']} moves {round(total, 2)} yards to ({to[0]:g}, {to[1]:g})",
        effects,
        relied,
        {
            "path_yards": round(total, 2),
            "yards_by_feature": yards_by,
            "cost": round(total, 2),
            "allowance": round(allowance, 2),
        },
    )
