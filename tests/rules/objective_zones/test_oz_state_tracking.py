"""State the new clauses track across actions: who owes a morale test (OZ.Morale), batteries
that fired in Secondary Fire (OZ.Assault.B.5, cleared with the player turn) and engaged
melees (OZ.PostMelee.D.4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.rules import registry

EXAMPLE = Path(__file__).resolve().parents[3] / "scenarios" / "objective-zones" / "example.json"
RS = registry.get("objective-zones")


def _game(**patch: Any) -> tuple[Any, Any, Any]:
    scenario = {**json.loads(EXAMPLE.read_text(encoding="utf-8")), **patch}
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    return board, state, opts


def _do(board: Any, state: Any, opts: Any, action: dict[str, Any], dice: list[int]) -> Any:
    parsed = RS.parse_action(action)
    ruling = RS.adjudicate(board, state, parsed, opts, dice)
    assert ruling.legal, ruling.summary
    return RS.apply(board, state, parsed, ruling)


def test_artillery_losses_make_the_hit_unit_owe_a_test_and_secondary_fire_is_tracked() -> None:
    board, state, opts = _game(phase="secondary_fire")
    # church (Class D) holds only cs-45va In-Transit: hit on 0-1 with all the dice
    after = _do(
        board,
        state,
        opts,
        {"kind": "bombard", "unit": "us-bty", "zone": "church", "dice": 2},
        [10, 10],
    )
    assert after.morale_due == {"cs-45va": "artillery"}
    assert after.fired_secondary == ["us-bty"]
    later = RS.advance_phase(board, after)
    assert later.fired_secondary == ["us-bty"]  # objective combat, same player turn
    assert RS.advance_phase(board, later).fired_secondary == []  # the next player turn


def test_a_melee_result_makes_the_engaged_defenders_owe_a_test_and_records_the_melee() -> None:
    board, state, opts = _game()
    state = _do(
        board,
        state,
        opts,
        {"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-2", "us-3"]},
        [],
    )
    for _ in range(4):
        state = RS.advance_phase(board, state)
    decision = RS.sealed_decisions(board, state)["allocation:mill:t1"]
    orders = {
        "union": decision.order_model.model_validate(
            {"sectors": {"1": ["us-1"], "2": ["us-2", "us-3"]}}
        ),
        "confederate": decision.order_model.model_validate(
            {"sectors": {"1": ["cs-22va"], "2": ["cs-36va"]}}
        ),
    }
    dice = [9] * len(RS.sealed_dice_needed(board, state, decision.id, orders))
    ruling = RS.resolve_sealed(board, state, decision.id, orders, opts, dice)
    after = RS.apply_sealed(board, state, decision.id, orders, ruling)
    assert after.morale_due == {"cs-22va": "melee", "cs-36va": "melee"}
    assert after.melees == {"mill": "union"}
    assert {u.id for u in after.units if u.engaged} == {
        "us-1",
        "us-2",
        "us-3",
        "cs-22va",
        "cs-36va",
    }
