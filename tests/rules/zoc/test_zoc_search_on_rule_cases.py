"""The ``reachable`` search answers as the reference search (``reference_reachable`` in
``test_zoc_search.py``: string hexes, every step judged by the move judge) in every position
the ``zoc`` rule cases set up: each case's scenario and options after its ``before`` actions
(states made by ``apply``, whose index is handed on from the state before), for every unit on
the map. The whole answer is compared as JSON text (hexes, costs, paths, stops, why-nots,
citations in order, readings): byte for byte with ``why_not: "all"``; with the default
``"frontier"``, the same but for the ``zoc.out_of_reach`` entries and the citations only they
made. Each position is asked twice (the second time the state's kept search is replayed),
and once more after every unit of the position was asked (the search's tables filled by the
other units' searches)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.rules.zoc.context import Context
from tests.rules.rule_cases import Case, _setup, load_cases
from tests.rules.zoc.test_zoc_search import _frontier_of, reference_reachable

CASES = [c for c in load_cases("zoc") if "invalid_scenario" not in c.data]


def _answers(board: Any, state: Any, opts: Any, unit_id: str) -> tuple[str, dict[str, Any]]:
    from app.rules.zoc.movement import reachable

    ctx = Context(board, state, opts)
    full = json.dumps(reachable(ctx, ctx.units[unit_id], "all"))
    ctx = Context(board, state, opts)
    return full, reachable(ctx, ctx.units[unit_id], "frontier")


def _expected(board: Any, state: Any, opts: Any, unit_id: str) -> tuple[str, dict[str, Any]]:
    ref_ctx = Context(board, state.model_copy(), opts)  # a fresh index: nothing kept
    reference = reference_reachable(ref_ctx, ref_ctx.units[unit_id])
    expected = _frontier_of(reference)
    cited = set(json.loads(json.dumps(reference)).get("citations", []))
    return json.dumps(reference), {**expected, "citations": cited}


def _check(got: tuple[str, dict[str, Any]], want: tuple[str, dict[str, Any]], where: str) -> None:
    assert got[0] == want[0], where
    frontier, expected = got[1], want[1]
    assert {k: v for k, v in frontier.items() if k != "citations"} == {
        k: v for k, v in expected.items() if k != "citations"
    }, where
    # the frontier's citations: the reference's, in the reference's order, less those only the
    # out-of-reach entries made
    reference_order = json.loads(want[0]).get("citations", [])
    assert frontier["citations"] == [c for c in reference_order if c in frontier["citations"]]
    assert set(frontier["citations"]) <= expected["citations"], where


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_search_answers_as_the_reference_in_each_rule_case_position(case: Case) -> None:
    _rs, opts, board, state = _setup(case)
    on_map = [u.id for u in state.units if u.hex is not None]
    want = {u: _expected(board, state, opts, u) for u in on_map}
    for unit_id in on_map:
        for ask in ("first", "again"):
            _check(_answers(board, state, opts, unit_id), want[unit_id], f"{unit_id} {ask}")
    for unit_id in on_map:  # after every unit of the position was asked
        _check(_answers(board, state, opts, unit_id), want[unit_id], f"{unit_id} after all")
