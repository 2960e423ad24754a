"""Issue 11: ``zoc``'s applies share what they do not change (``index.moved_to``) instead of
deep-copying the whole state: a move on a 500-unit game copies one unit. Sharing is safe only
if no state is ever changed once made, so these tests play a chain of actions and check that
every earlier state still dumps as it did, and that each new state is the one the deep copy
gave (the one changed unit, the moved list)."""

from __future__ import annotations

import copy
from typing import Any

from app.rules import registry

ZOC = registry.get("zoc")


def _game() -> tuple[Any, Any, Any]:
    options = ZOC.parse_options({})
    board, state = ZOC.setup(ZOC.parse_scenario(ZOC.example_scenario()), options)
    return board, state, options


def _play(board: Any, state: Any, options: Any, action: dict[str, Any]) -> Any:
    parsed = ZOC.parse_action(action)
    ruling = ZOC.adjudicate(board, state, parsed, options)
    assert ruling.legal, ruling.summary
    return ZOC.apply(board, state, parsed, ruling)


def _expected(before: dict[str, Any], unit: str, hex_id: str, moved: bool) -> dict[str, Any]:
    """What the deep-copying apply gave: ``before`` with one unit's hex (and moved list)."""
    out = copy.deepcopy(before)
    next(u for u in out["units"] if u["id"] == unit)["hex"] = hex_id
    if moved and unit not in out["moved"]:
        out["moved"].append(unit)
    return out


def test_a_chain_of_applies_leaves_every_earlier_state_as_it_was() -> None:
    board, state, options = _game()
    steps: list[tuple[dict[str, Any], str, str, bool]] = [
        (
            {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]},
            "de-inf-1",
            "e3307",
            True,
        ),
        ({"kind": "place_unit", "unit": "de-inf-2", "hex": "e3307"}, "de-inf-2", "e3307", False),
        ({"kind": "place_unit", "unit": "de-inf-1", "hex": "e3107"}, "de-inf-1", "e3107", False),
        ({"kind": "move", "unit": "de-inf-2", "path": ["e3207"]}, "de-inf-2", "e3207", True),
    ]
    states = [state]
    dumps = [state.model_dump(mode="json")]
    for action, unit, hex_id, moved in steps:
        after = _play(board, states[-1], options, action)
        assert after.model_dump(mode="json") == _expected(dumps[-1], unit, hex_id, moved)
        states.append(after)
        dumps.append(after.model_dump(mode="json"))
    assert [s.model_dump(mode="json") for s in states] == dumps
    assert dumps[-1]["moved"] == ["de-inf-1", "de-inf-2"]  # each listed once


def test_a_move_copies_the_moved_unit_only() -> None:
    board, state, options = _game()
    after = _play(board, state, options, {"kind": "place_unit", "unit": "de-inf-2", "hex": "e3307"})
    shared = [a is b for a, b in zip(state.units, after.units, strict=True)]
    moved = [u.id == "de-inf-2" for u in state.units]
    assert shared == [not m for m in moved]
    assert after.markers is state.markers and after.weather is state.weather
