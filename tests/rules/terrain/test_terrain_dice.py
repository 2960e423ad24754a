"""The d10s a terrain move is given (A.46, terrain.d10-zero): a die reads 0-10, anything else
is the caller's error (the service never passes it: it asks for the dice `dice_needed` names).
A rule case cannot state an error raised by the rules core, hence these unit tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.rules import registry
from app.rules.base import RulesError

EXAMPLE = Path(__file__).resolve().parents[3] / "scenarios" / "terrain" / "example.json"


def _game() -> tuple[Any, Any, Any, Any]:
    rs = registry.get("terrain")
    options = rs.parse_options({})
    board, state = rs.setup(rs.parse_scenario(json.loads(EXAMPLE.read_text())), options)
    return rs, options, board, state


@pytest.mark.parametrize("die", [-1, 11])
def test_a_d10_outside_zero_to_ten_is_the_callers_error(die: int) -> None:
    rs, options, board, state = _game()
    move = rs.parse_action({"kind": "move", "unit": "fr-wagon", "path": [[200, 580]]})
    with pytest.raises(RulesError) as caught:
        rs.adjudicate(board, state, move, options, [die])
    assert str(caught.value) == "a d10 reads 0-10"


@pytest.mark.parametrize("die", [0, 10])
def test_a_d10_of_zero_or_ten_breaks_the_wheel(die: int) -> None:
    rs, options, board, state = _game()
    move = rs.parse_action({"kind": "move", "unit": "fr-wagon", "path": [[200, 580]]})
    ruling = rs.adjudicate(board, state, move, options, [die])
    assert ruling.legal
    assert [e.kind for e in ruling.effects] == [
        "terrain.wheel_check",
        "terrain.equipment_destroyed",
    ]


def test_an_unknown_unit_is_refused_before_its_dice_are_read() -> None:
    rs, options, board, state = _game()
    move = rs.parse_action({"kind": "move", "unit": "ghost", "path": [[200, 580]]})
    ruling = rs.adjudicate(board, state, move, options, [11])
    assert not ruling.legal
    assert [v.code for v in ruling.violations] == ["terrain.unknown_unit"]


def test_a_destroyed_unit_owes_no_dice() -> None:
    rs, _options, board, state = _game()
    move = rs.parse_action({"kind": "move", "unit": "fr-wagon", "path": [[200, 580]]})
    assert list(rs.dice_needed(board, state, move)) == [10]
    units = [u.model_copy(update={"destroyed": u.id == "fr-wagon"}) for u in state.units]
    gone = state.model_copy(update={"units": units})
    assert list(rs.dice_needed(board, gone, move)) == []


def test_a_charge_or_fire_owes_no_dice() -> None:
    """A.46's wheel check is rolled on a move; a charge through rough is a declaration only."""
    rs, _options, board, state = _game()
    charge = rs.parse_action({"kind": "charge", "unit": "fr-wagon", "path": [[200, 580]]})
    assert list(rs.dice_needed(board, state, charge)) == []
    fire = rs.parse_action({"kind": "fire", "unit": "fr-bty", "target": "br-inf"})
    assert list(rs.dice_needed(board, state, fire)) == []
