"""Scenario -> board and state, every problem found at once (P.Scenario)."""

from __future__ import annotations

from app.rules.examples.pin.catalog import CATALOG
from app.rules.examples.pin.models import Board, Options, Scenario, State
from app.rules.judgement import Judgement
from app.rules.refs import UnitRefs


def build(scenario: Scenario, options: Options) -> tuple[Board, State]:
    check = Judgement(CATALOG)
    refs = UnitRefs(s.id for s in scenario.sides)
    for i, unit in enumerate(scenario.units):
        if refs.duplicate(unit.id):
            check.invalid(["units", i, "id"], f"duplicate unit {unit.id}", "P.Scenario")
        if refs.unknown_side(unit.side):
            check.invalid(["units", i, "side"], f"unknown side {unit.side}", "P.Scenario")
        x, y = unit.at
        if not (0 <= x < scenario.width and 0 <= y < scenario.height):
            check.invalid(["units", i, "at"], f"{unit.id} is off the board", "P.Scenario")
    check.raise_if_refused("the pin scenario is inconsistent")
    board = Board(width=scenario.width, height=scenario.height, sides=scenario.sides)
    return board, State(units=scenario.units)
