"""The ``reachable`` search keeps its look-ups per state object (``search._index``); a state
judged on another board (other terrain) must be answered from that board, not from the look-ups
made for the first one."""

from __future__ import annotations

from typing import Any

from app.rules import registry

RS = registry.get("zoi")


def _scenario(terrain: dict[str, str]) -> dict[str, Any]:
    return {
        "ruleset": "zoi",
        "name": "cache",
        "map": {"columns": [1, 5], "rows": [1, 5], "default_terrain": "clear", "terrain": terrain},
        "sides": [{"id": "french", "label": "French"}, {"id": "austrian", "label": "Austrian"}],
        "units": [
            {
                "id": "fr-a",
                "side": "french",
                "type": "infantry",
                "subtype": "line",
                "hex": "0303",
                "increments": 6,
                "ma": 1,
                "formation": "column",
                "facing": 0,
            },
        ],
        "turn": 1,
        "phase": "movement",
        "phasing": "french",
    }


def _reachable(board: Any, state: Any) -> list[str]:
    answer = RS.queries()["reachable"].run(board, state, RS.parse_options({}), {"unit": "fr-a"})
    return [h["hex"] for h in answer["hexes"]]


def test_one_state_on_two_boards_is_answered_from_each_board() -> None:
    options = RS.parse_options({})
    clear, state = RS.setup(RS.parse_scenario(_scenario({})), options)
    marsh, _ = RS.setup(RS.parse_scenario(_scenario({"0302": "marsh"})), options)
    assert "0302" in _reachable(clear, state)  # clear ground: 1 MP
    assert "0302" not in _reachable(marsh, state)  # marsh costs infantry 3 MP; fr-a has 1
    assert "0302" in _reachable(clear, state)


def test_one_state_on_three_boards_is_answered_from_each_board() -> None:
    """The look-ups kept for a state belong to the board they were made on: judged on a second
    board and then on a third (clear again, another board object), each answer is that board's
    (the cached look-ups of the first board are used for it alone)."""
    options = RS.parse_options({})
    clear, state = RS.setup(RS.parse_scenario(_scenario({})), options)
    marsh, _ = RS.setup(RS.parse_scenario(_scenario({"0302": "marsh"})), options)
    clear_again, _ = RS.setup(RS.parse_scenario(_scenario({})), options)
    assert "0302" in _reachable(clear, state)
    assert "0302" not in _reachable(marsh, state)
    assert "0302" in _reachable(clear_again, state)
    assert "0302" not in _reachable(marsh, state)
    assert "0302" in _reachable(clear, state)
