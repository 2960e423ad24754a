"""The ``reachable`` search (``app/rules/zoi/search.py``) answers as walking every path with the
move judge's own :class:`Walk` (``_reference`` in ``test_search.py``) in every position the
``zoi`` rule cases set up: each case's scenario and options after its ``before`` actions
(states made by ``apply``, whose look-ups are handed on from the state before), for every
unit. The answer's ``hexes`` (each hex's Pareto-best paths, costs, stops and fire chances) are
compared as JSON text; each position is asked twice (the second time on look-ups the first
filled) and once more after every unit of the position was asked."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.rules.zoi.zones import Game
from tests.rules.rule_cases import Case, _setup, load_cases
from tests.rules.zoi.test_search import _reference

CASES = [c for c in load_cases("zoi") if "invalid_scenario" not in c.data]


def _hexes(rs: Any, board: Any, state: Any, opts: Any, unit_id: str) -> str:
    return json.dumps(rs.queries()["reachable"].run(board, state, opts, {"unit": unit_id})["hexes"])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_search_answers_as_walking_every_path_in_each_rule_case_position(case: Case) -> None:
    rs, opts, board, state = _setup(case)
    units = [u.id for u in state.units if u.hex in board.hexes]
    fresh = rs.load_state(state.model_dump(mode="json"))  # nothing kept: the reference's state
    want = {u: json.dumps(_reference(Game(board, fresh, opts), u)) for u in units}
    for unit_id in units:
        for ask in ("first", "again"):
            assert _hexes(rs, board, state, opts, unit_id) == want[unit_id], (unit_id, ask)
    for unit_id in units:
        assert _hexes(rs, board, state, opts, unit_id) == want[unit_id], (unit_id, "after all")


def test_a_label_not_beaten_on_stopping_or_shifting_is_kept_as_walking_finds() -> None:
    """A generated crowded board (``_game(6, 8, 20)``) where, under the "slide" reading, a
    label entering a zone hex must be kept although a label already there spent no more and
    gave no more chances: it is not beaten on the other two counts (stopping, shifting). The
    search's early "beaten" test, which looks at the first two counts only, is for hexes
    without a zone; applied to every hex, this test fails."""
    from tests.rules.zoi.test_search import READINGS, RS, _game

    scenario = _game(6, 8, 20)
    board, state = RS.setup(RS.parse_scenario(scenario), RS.parse_options({}))
    query = RS.queries()["reachable"]
    for reading in READINGS:
        if reading.get("shift_within_zone") != "slide":
            continue
        options = RS.parse_options(reading)
        for unit in scenario["units"]:
            fast = query.run(board, state, options, {"unit": unit["id"]})["hexes"]
            slow = _reference(Game(board, state, options), unit["id"])
            assert json.dumps(fast) == json.dumps(slow), (reading, unit["id"])
