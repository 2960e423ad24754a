"""Turn a validated :class:`Scenario` into a :class:`Board` and an initial :class:`State`.

Everything that pydantic cannot see (hex ids under the layout, adjacency of hexsides, references
between units, sides, countries and hexes) is checked here; problems are collected and raised
together as one :class:`app.rules.InvalidScenario`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.rules.base import InvalidScenario, Position
from app.rules.geometry import Hex, HexIdError, HexLayout, Hexside
from app.rules.judgement import Judgement
from app.rules.refs import UnitRefs, repeats
from app.rules.zoc.catalog import CATALOG
from app.rules.zoc.models import (
    ALL_SEA_TERRAIN,
    Board,
    HexInfo,
    Marker,
    Scenario,
    State,
)
from app.rules.zoc.sequence import PHASES as PHASES

MAX_HEXES = 40_000


SCENARIO = ("basic.umpire",)
"""The section every scenario refusal cites: the umpire's set-up, whose references resolve."""


class _Errors:
    """Scenario problems, gathered by the judgement kit (all of them, each cited)."""

    def __init__(self) -> None:
        self.judgement = Judgement(CATALOG)

    def add(
        self, loc: Sequence[str | int], msg: str, code: str, sections: Sequence[str] = SCENARIO
    ) -> None:
        self.judgement.problem(f"zoc.scenario.{code}", loc, msg, sections)

    def raise_if_any(self) -> None:
        """Raise InvalidScenario; each problem's ``loc`` in the dotted form the zoc rule cases
        name (``units[1].side``), its ``location`` an RFC 6901 pointer (``/units/1/side``)."""
        try:
            self.judgement.raise_if_refused("the zoc scenario is inconsistent")
        except InvalidScenario as exc:
            for err in exc.errors:
                err["loc"] = "".join(
                    f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]
                ).lstrip(".")
            raise


def build(scenario: Scenario) -> tuple[Board, State]:
    """Validate references and expand the map; raise InvalidScenario listing every problem."""
    errors = _Errors()
    layout = scenario.layout.layout()
    hexes = _hexes(scenario, layout, errors)
    hexsides = _hexsides(scenario, layout, hexes, errors)
    side_ids = [s.id for s in scenario.sides]
    if repeats(side_ids):
        errors.add(["sides"], "duplicate side id", "duplicate_id")
    sides = set(side_ids)
    for hex_id, info in hexes.items():
        if info.country is not None and info.country not in scenario.countries:
            errors.add(
                ["hexes", hex_id, "country"], f"unknown country {info.country!r}", "unknown_country"
            )
        if info.terrain not in scenario.movement_costs.terrain:
            errors.add(
                ["hexes", hex_id, "terrain"],
                f"terrain {info.terrain!r} has no entry in movement_costs.terrain",
                "terrain_without_cost",
                ("basic.umpire", "basic.movement-points"),
            )
    if scenario.phasing_side not in sides:
        errors.add(["phasing_side"], f"unknown side {scenario.phasing_side!r}", "unknown_side")
    refs = UnitRefs(side_ids)
    for i, unit in enumerate(scenario.units):
        loc: list[str | int] = ["units", i]
        if refs.duplicate(unit.id):
            errors.add([*loc, "id"], f"duplicate unit id {unit.id!r}", "duplicate_id")
        if refs.unknown_side(unit.side):
            errors.add([*loc, "side"], f"unknown side {unit.side!r}", "unknown_side")
        if unit.country is not None and unit.country not in scenario.countries:
            errors.add([*loc, "country"], f"unknown country {unit.country!r}", "unknown_country")
        if unit.hex is not None and unit.hex not in hexes:
            errors.add([*loc, "hex"], f"hex {unit.hex!r} is not on the map", "off_map")
    markers: list[Marker] = []
    marker_ids: set[str] = set()
    for i, marker in enumerate(scenario.markers):
        if marker.id in marker_ids:
            errors.add(["markers", i, "id"], f"duplicate marker id {marker.id!r}", "duplicate_id")
        marker_ids.add(marker.id)
        problem = marker_problem(marker, layout, hexes, sides)
        if problem:
            errors.add(["markers", i], problem, "bad_marker", ("basic.umpire", "8.1.clar.markers"))
        else:
            markers.append(normalized_marker(marker))
    zones = {info.weather_zone for info in hexes.values() if info.weather_zone is not None}
    for zone in scenario.weather:
        if zone not in zones:
            errors.add(
                ["weather", zone], f"no hex lies in weather zone {zone!r}", "unknown_weather_zone"
            )
    for side, sources in scenario.supply.sources.items():
        if side not in sides:
            errors.add(["supply", "sources", side], f"unknown side {side!r}", "unknown_side")
        for hex_id in sources:
            if hex_id not in hexes:
                errors.add(
                    ["supply", "sources", side],
                    f"hex {hex_id!r} is not on the map",
                    "off_map",
                    ("basic.umpire", "basic.supply"),
                )
    start = {u.id: u.hex for u in scenario.units}
    for unit_id, pos in (scenario.start_positions or {}).items():
        if unit_id not in start:
            errors.add(["start_positions", unit_id], "unknown unit", "unknown_unit")
        elif pos is not None and pos not in hexes:
            errors.add(["start_positions", unit_id], f"hex {pos!r} is not on the map", "off_map")
        else:
            start[unit_id] = pos
    for unit_id in scenario.moved:
        if unit_id not in start:
            errors.add(["moved"], f"unknown unit {unit_id!r}", "unknown_unit")
    errors.raise_if_any()
    board = Board(
        title=scenario.title,
        layout=scenario.layout,
        hexes=hexes,
        hexsides=hexsides,
        countries=scenario.countries,
        sides=tuple(scenario.sides),
        movement_costs=scenario.movement_costs,
        supply=scenario.supply,
    )
    state = State(
        turn=scenario.turn,
        phase=scenario.phase,
        phasing_side=scenario.phasing_side,
        weather=dict(scenario.weather),
        units=[u.model_copy() for u in scenario.units],
        markers=markers,
        start_positions=start,
        moved=list(scenario.moved),
    )
    return board, state


def _hexes(scenario: Scenario, layout: HexLayout, errors: _Errors) -> dict[str, HexInfo]:
    hexes: dict[str, HexInfo] = {}
    for i, area in enumerate(scenario.areas):
        (c0, c1), (r0, r1) = area.cols, area.rows
        if c0 > c1 or r0 > r1 or c0 < 0 or r0 < 0:
            errors.add(
                ["areas", i], "column and row ranges must be [low, high], not negative", "bad_area"
            )
            continue
        if (c1 - c0 + 1) * (r1 - r0 + 1) + len(hexes) > MAX_HEXES:
            errors.add(["areas", i], f"the map may hold at most {MAX_HEXES} hexes", "map_too_large")
            continue
        info = HexInfo(terrain=area.terrain, country=area.country, weather_zone=area.weather_zone)
        for col in range(c0, c1 + 1):
            for row in range(r0, r1 + 1):
                try:
                    hexes[layout.format(Hex(area.prefix, col, row))] = info
                except HexIdError as exc:
                    errors.add(["areas", i], str(exc), "bad_hex_id")
                    break
    for hex_id, spec in scenario.hexes.items():
        try:
            layout.parse(hex_id)
        except HexIdError as exc:
            errors.add(["hexes", hex_id], str(exc), "bad_hex_id")
            continue
        old = hexes.get(hex_id, HexInfo())
        hexes[hex_id] = HexInfo(
            terrain=spec.terrain if spec.terrain is not None else old.terrain,
            country=spec.country if spec.country is not None else old.country,
            weather_zone=spec.weather_zone if spec.weather_zone is not None else old.weather_zone,
        )
    if not hexes:
        errors.add(["areas"], "the map has no hexes", "empty_map")
    return hexes


def _hexsides(
    scenario: Scenario, layout: HexLayout, hexes: dict[str, HexInfo], errors: _Errors
) -> dict[str, tuple[Any, ...]]:
    out: dict[str, tuple[Any, ...]] = {}
    for key, features in scenario.hexsides.items():
        side_id = hexside_id(key, layout)
        if side_id is None:
            errors.add(
                ["hexsides", key], "expected 'hexA/hexB' naming two adjacent hexes", "bad_hexside"
            )
            continue
        a, b = side_id.split("/")
        if a not in hexes and b not in hexes:
            errors.add(["hexsides", key], "neither hex is on the map", "off_map")
            continue
        merged = list(out.get(side_id, ()))
        for feature in features:
            if feature not in merged:
                merged.append(feature)
        out[side_id] = tuple(merged)
    return out


def hexside_id(key: str, layout: HexLayout) -> str | None:
    """Normalize 'hexA/hexB' (either order) to the Hexside id; None if malformed/not adjacent."""
    parts = key.split("/")
    if len(parts) != 2:
        return None
    a, b = (p.strip() for p in parts)
    try:
        if not layout.adjacent(a, b):
            return None
    except HexIdError:
        return None
    return Hexside.between(a, b).id


def marker_problem(
    marker: Marker, layout: HexLayout, hexes: dict[str, HexInfo], sides: set[str]
) -> str | None:
    """Why a marker cannot be on this map, or None."""
    if marker.hex not in hexes:
        return f"hex {marker.hex!r} is not on the map"
    if marker.side is not None and marker.side not in sides:
        return f"unknown side {marker.side!r}"
    if marker.kind == "airdrop" and marker.side is None:
        return "an Airdrop marker needs the side it belongs to"
    if marker.kind != "beachhead":
        if marker.hexside is not None:
            return "only a Beachhead marker has a hexside"
        return None
    if hexes[marker.hex].terrain != ALL_SEA_TERRAIN:
        return f"a Beachhead marker lies in an All-Sea hex ({ALL_SEA_TERRAIN!r} terrain)"
    if marker.hexside is None:
        return "a Beachhead marker needs its Beachhead Hexside"
    side_id = hexside_id(marker.hexside, layout)
    if side_id is None or marker.hex not in side_id.split("/"):
        return f"{marker.hexside!r} is not a hexside of {marker.hex}"
    return None


def normalized_marker(marker: Marker) -> Marker:
    if marker.hexside is None:
        return marker.model_copy()
    a, b = marker.hexside.split("/")
    return marker.model_copy(update={"hexside": Hexside.between(a.strip(), b.strip()).id})


def generated_hexes(scenario: Scenario) -> int:
    """The hexes of the map areas (rectangles), which the document does not list."""
    return sum(
        max(0, a.cols[1] - a.cols[0] + 1) * max(0, a.rows[1] - a.rows[0] + 1)
        for a in scenario.areas
    )


def advance(state: State, nxt: Position) -> State:
    """The state at ``nxt``, the next phase (after the last phase the next side's turn, turn
    + 1 after the last side): every unit's start position recorded (8.2), moved list
    cleared."""
    new = state.model_copy(deep=True)
    new.turn = nxt.turn
    new.phase = nxt.phase  # type: ignore[assignment]
    new.phasing_side = nxt.phasing_side or state.phasing_side
    new.start_positions = {u.id: u.hex for u in new.units}
    new.moved = []
    return new
