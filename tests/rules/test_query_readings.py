"""A query result names the interpretations it relied on (docs/ARCHITECTURE.md)."""

from __future__ import annotations

import pytest

from app.rules import registry


@pytest.mark.parametrize(
    ("ruleset", "class_c", "other"),
    [("objective-zones", "mill", "church"), ("battlefield", "village", "redoubt-w")],
)
@pytest.mark.parametrize("capacity", [2, 3])
def test_zone_display_names_the_class_c_capacity_reading(
    ruleset: str, class_c: str, other: str, capacity: int
) -> None:
    rs = registry.get(ruleset)
    options = rs.parse_options({"class_c_capacity": capacity})
    board, state = rs.setup(rs.parse_scenario(rs.example_scenario()), options)
    zone = rs.queries()["zone"]
    shown = zone.run(board, state, options, zone.params.model_validate({"zone": class_c}))
    assert shown["interpretations"] == ["oz.class-c-capacity"]
    assert shown["capacity"] == capacity and len(shown["sectors"]) == capacity
    plain = zone.run(board, state, options, zone.params.model_validate({"zone": other}))
    assert plain["interpretations"] == []
