"""A gun destroyed by a broken wheel (A.46) acts no more and is no target: the state after a
ruling whose dice destroyed it cannot be written as a rule case (a case's ``before`` actions
roll no dice), so these ask the rules core directly (issue 14, mutation round;
docs/mutation/battlefield.md)."""

from __future__ import annotations

import json
from typing import Any

from app.rules import registry
from tests.rules.rule_cases import REPO

RS = registry.get("battlefield")
OPTIONS = RS.parse_options({})
ROCKS = {
    "id": "rocks",
    "kind": "rough",
    "polygon": [[620, 150], [700, 150], [700, 240], [620, 240]],
}


def _game() -> tuple[Any, Any]:
    doc = json.loads((REPO / "scenarios/battlefield/millers-crossing.json").read_text("utf-8"))
    doc["features"].append(ROCKS)
    board, state = RS.setup(RS.parse_scenario(doc), OPTIONS)
    return board, RS.advance_phase(board, state)  # Union's movement phase


def _wrecked() -> tuple[Any, Any]:
    """us-bty rolled a 10 (read as 0) entering the rocks: its wheel broke (A.46)."""
    board, state = _game()
    move = RS.parse_action({"kind": "move", "unit": "us-bty", "path": [[660, 200]]})
    ruling = RS.adjudicate(board, state, move, OPTIONS, [10])
    assert ruling.legal and [e.kind for e in ruling.effects][-1] == "terrain.equipment_destroyed"
    return board, RS.apply(board, state, move, ruling)


def _sections(ruling: Any) -> set[str]:
    return {c.section for c in ruling.citations}


def test_a_wheel_check_is_a_d10_the_move_needs() -> None:
    board, state = _game()
    into = RS.parse_action({"kind": "move", "unit": "us-bty", "path": [[660, 200]]})
    clear = RS.parse_action({"kind": "move", "unit": "us-bty", "path": [[600, 280]]})
    hold = RS.parse_action({"kind": "hold", "unit": "us-bty"})
    assert list(RS.dice_needed(board, state, into)) == [10]
    assert list(RS.dice_needed(board, state, clear)) == []
    assert list(RS.dice_needed(board, state, hold)) == []


def test_a_destroyed_gun_may_not_move_again() -> None:
    board, state = _wrecked()
    again = RS.parse_action({"kind": "move", "unit": "us-bty", "path": [[600, 280]]})
    ruling = RS.adjudicate(board, state, again, OPTIONS)
    assert not ruling.legal
    assert [(v.code, v.unit) for v in ruling.violations] == [("bf.unknown_unit", "us-bty")]
    assert _sections(ruling) == {"BF.Table", "OZ.Display", "OZ.Display.B"}


def test_a_destroyed_gun_takes_no_hold_order() -> None:
    board, state = _wrecked()
    ruling = RS.adjudicate(
        board, state, RS.parse_action({"kind": "hold", "unit": "us-bty"}), OPTIONS
    )
    assert [(v.code, v.unit) for v in ruling.violations] == [("bf.unknown_unit", "us-bty")]
    assert _sections(ruling) == {"BF.Table", "OZ.Display", "OZ.Display.B"}


def test_a_destroyed_gun_is_no_kill_zone_target() -> None:
    board, state = _wrecked()
    zones = state.zones.model_copy(update={"phase": "initial_fire", "phasing_side": "confederate"})
    state = state.model_copy(update={"zones": zones})
    fire = RS.parse_action(
        {"kind": "garrison_fire", "unit": "cs-bty", "origin": [757.6, 480], "target": "us-bty"}
    )
    ruling = RS.adjudicate(board, state, fire, OPTIONS)
    assert [(v.code, v.unit) for v in ruling.violations] == [("bf.no_target", "us-bty")]
    assert _sections(ruling) == {"BF.Table", "OZ.Display", "OZ.Display.B", "OZ.Basic.E"}


def test_a_destroyed_gun_is_offered_nothing() -> None:
    board, state = _wrecked()
    offered = RS.available_actions(board, state, OPTIONS, "union")
    assert "us-bty" not in {u.unit for u in offered.units}
    assert {"us-1", "us-2", "us-sk"} <= {u.unit for u in offered.units}
