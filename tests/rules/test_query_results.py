"""Every query of every shipped ruleset answers exactly what its result model documents: the
answer validates (no unknown key, no missing one, right types) and dumps back to the same
JSON. Run on the shipped example scenarios, for every side and unit, and for the terrain
example at every feature's centre and along sight lines between them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter
from shapely.geometry import shape

from app.rules import registry
from app.rules.base import InvalidQuery, QuerySpec

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("zoc", "zoi", "objective-zones", "terrain", "battlefield")
ZOC_SCENARIOS = sorted((ROOT / "scenarios" / "zoc").glob("*.json"))


def _game(ruleset_id: str, scenario: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
    ruleset = registry.get(ruleset_id)
    options = ruleset.parse_options({})
    board, state = ruleset.setup(ruleset.parse_scenario(scenario), options)
    return ruleset, board, state, options


def _apply(ruleset: Any, board: Any, state: Any, options: Any, action: dict[str, Any]) -> Any:
    parsed = ruleset.parse_action(action)
    ruling = ruleset.adjudicate(board, state, parsed, options)
    assert ruling.legal, ruling.summary
    return ruleset.apply(board, state, parsed, ruling)


def _centres(scenario: dict[str, Any]) -> list[str]:
    points = []
    for feature in scenario.get("features", []):
        if "polygon" in feature:
            polygon = shape({"type": "Polygon", "coordinates": [feature["polygon"]]})
            c = polygon.representative_point()
            points.append(f"{c.x:.1f},{c.y:.1f}")
    return points


def _cases() -> Iterator[tuple[str, str, Any, Any, Any, dict[str, Any]]]:
    """(ruleset, query, board, state, options, params) for every query worth asking."""
    for path in ZOC_SCENARIOS:
        ruleset, board, state, options = _game("zoc", json.loads(path.read_text()))
        moved = (
            _apply(
                ruleset,
                board,
                state,
                options,
                {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]},
            )
            if path.name == "seed-example.json"
            else None
        )
        for st in (state, moved):
            if st is None:
                continue
            for side in ruleset.sides(board).names:
                yield "zoc", "ezoc-map", board, st, options, {"side": side}
                yield "zoc", "supply", board, st, options, {"side": side}
            for unit in st.units:
                if unit.hex is not None:
                    yield "zoc", "reachable", board, st, options, {"unit": unit.id}
                    yield "zoc", "supply", board, st, options, {"unit": unit.id}
    ruleset, board, state, options = _game("zoi", registry.get("zoi").example_scenario() or {})
    for side in ruleset.sides(board).names:
        yield "zoi", "zone-map", board, state, options, {"side": side}
        yield "zoi", "defensive-fire", board, state, options, {"side": side}
    for unit in state.units:
        yield "zoi", "reachable", board, state, options, {"unit": unit.id}
    oz = registry.get("objective-zones").example_scenario() or {}
    ruleset, board, state, options = _game("objective-zones", oz)
    for zone in oz["zones"]:
        yield "objective-zones", "zone", board, state, options, {"zone": zone["id"]}
    declared = _apply(
        ruleset,
        board,
        state,
        options,
        {"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-2"]},
    )
    for side in ruleset.sides(board).names:
        yield (
            "objective-zones",
            "allocation-options",
            board,
            declared,
            options,
            {"zone": "mill", "side": side},
        )
    yield "objective-zones", "zone", board, declared, options, {"zone": "mill"}
    for table in ("terrain", "battlefield"):
        scenario = registry.get(table).example_scenario() or {}
        ruleset, board, state, options = _game(table, scenario)
        yield table, "scenario-check", board, state, options, {}
        centres = _centres(scenario)
        for unit in scenario["units"]:
            yield table, "cover", board, state, options, {"unit": unit["id"]}
        for i, at in enumerate(centres):
            yield table, "terrain-at", board, state, options, {"at": at}
            yield (
                table,
                "line-of-sight",
                board,
                state,
                options,
                {"from": at, "to": centres[(i + 3) % len(centres)]},
            )
    scenario = registry.get("battlefield").example_scenario() or {}
    ruleset, board, state, options = _game("battlefield", scenario)
    charged = _apply(
        ruleset, board, state, options, {"kind": "charge", "unit": "us-1", "path": [[758, 520]]}
    )
    for st in (state, charged):
        for zone in scenario["zones"]:
            yield "battlefield", "zone", board, st, options, {"zone": zone["id"]}
        for unit in scenario["units"]:
            yield "battlefield", "cover", board, st, options, {"unit": unit["id"]}
    for side in ("union", "confederate"):
        yield (
            "battlefield",
            "allocation-options",
            board,
            charged,
            options,
            {"zone": "village", "side": side},
        )


CASES = list(_cases())


def test_every_shipped_query_has_a_result_model_and_cases() -> None:
    for ruleset_id in SHIPPED:
        for name, spec in registry.get(ruleset_id).queries().items():
            assert spec.result is not None, f"{ruleset_id} {name} has no result model"
            assert any(c[:2] == (ruleset_id, name) for c in CASES), (ruleset_id, name)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}-{c[5]}" for c in CASES])
def test_query_answer_is_exactly_its_documented_model(case: tuple[Any, ...]) -> None:
    ruleset_id, name, board, state, options, params = case
    spec: QuerySpec = registry.get(ruleset_id).queries()[name]
    try:
        answer = spec.run(board, state, options, spec.params.model_validate(params))
    except InvalidQuery:
        pytest.skip("the query refuses these parameters")
    adapter: TypeAdapter[Any] = TypeAdapter(spec.result)
    parsed = adapter.validate_python(json.loads(json.dumps(answer)))
    dumped = adapter.dump_python(parsed, mode="json", by_alias=True, exclude_unset=True)
    assert dumped == json.loads(json.dumps(answer))
