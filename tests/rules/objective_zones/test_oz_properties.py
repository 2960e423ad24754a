"""Property tests of the assault resolution: any dice give a legal, deterministic ruling whose
state keeps every unit's castings non-negative and follows the post-melee thresholds."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import registry
from tests.support.props import examples

RS = registry.get("objective-zones")
DECISION = "allocation:mill:t1"


def _combat_state(options: Any) -> tuple[Any, Any]:
    board, state = RS.setup(
        RS.parse_scenario(registry.get("objective-zones").example_scenario()), options
    )
    action = RS.parse_action(
        {"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-2", "us-3"]}
    )
    state = RS.apply(board, state, action, RS.adjudicate(board, state, action, options))
    for _ in range(4):
        state = RS.advance_phase(board, state)
    return board, state


@settings(max_examples=examples(150), deadline=None)
@given(
    dice=st.lists(st.integers(min_value=1, max_value=10), min_size=12, max_size=12),
    post_melee=st.sampled_from(["sector", "zone-wide"]),
)
def test_any_dice_give_a_consistent_resolution(dice: list[int], post_melee: str) -> None:
    options = RS.parse_options({"post_melee": post_melee})
    board, state = _combat_state(options)
    decision = RS.sealed_decisions(board, state)[DECISION]
    orders = {
        "union": decision.order_model.model_validate(
            {"sectors": {"1": ["us-1"], "2": ["us-2", "us-bty"]}}
        ),
        "confederate": decision.order_model.model_validate(
            {"sectors": {"1": ["cs-22va", "cs-bty"], "2": ["cs-36va"]}}
        ),
    }
    assert len(RS.sealed_dice_needed(board, state, DECISION, orders)) == 12
    ruling = RS.resolve_sealed(board, state, DECISION, orders, options, dice)
    assert ruling == RS.resolve_sealed(board, state, DECISION, orders, options, dice)
    assert ruling.legal
    for sector in ruling.details["sectors"].values():
        by_att, by_def = sector["inflicted_by_attacker"], sector["inflicted_by_defender"]
        if sector["result"] == "shattered":
            assert by_att > 0 and by_att >= 3 * by_def
        elif sector["result"] == "held":
            assert post_melee == "zone-wide" and by_att <= by_def
        else:
            assert sector["result"] == "engaged" and not (by_att > 0 and by_att >= 3 * by_def)
    new = RS.apply_sealed(board, state, DECISION, orders, ruling)
    assert all(u.men >= 0 for u in new.units)
    assert set(new.removed) == set(ruling.details["removed"])
    assert DECISION not in RS.sealed_decisions(board, new)
