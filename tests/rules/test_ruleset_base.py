"""The plumbing the ``Ruleset`` base supplies (app/rules/base.py, app/rules/dispatch.py), on the
real ``zoc`` and ``zoi`` rulesets: dispatch through the kinds table, the typed outcome ``apply``
receives, the actor's side from the kind's owner, sides, coercion, queries and the packaged
example scenarios."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from app.rules import UMPIRE, InvalidQuery, RulesError, Ruling, Sides, registry
from app.rules.base import shipped_scenario, shipped_scenarios

ZOC = registry.get("zoc")
ZOI = registry.get("zoi")


def _zoc_game() -> tuple[Any, Any, Any]:
    options = ZOC.parse_options({})
    board, state = ZOC.setup(ZOC.parse_scenario(ZOC.example_scenario()), options)
    return board, state, options


def _unit(state: Any, unit_id: str) -> Any:
    return next(u for u in state.units if u.id == unit_id)


def test_action_models_come_from_the_kinds_table() -> None:
    assert dict(ZOC.action_models) == {k: v.model for k, v in ZOC.kinds.items()}
    assert set(ZOI.action_models) == {"move", "melee_retreat", "set_phase"}
    action = ZOC.parse_action({"kind": "remove_marker", "marker": "m1"})
    assert type(action) is ZOC.kinds["remove_marker"].model


def test_an_action_of_another_ruleset_is_not_dispatched() -> None:
    board, state, options = _zoc_game()
    foreign = ZOI.parse_action({"kind": "set_phase", "phase": "movement"})
    with pytest.raises(RulesError, match="not a zoc action: SetPhaseAction"):
        ZOC.adjudicate(board, state, foreign, options)


def test_apply_moves_the_unit_to_the_rulings_end_hex_and_never_mutates() -> None:
    board, state, options = _zoc_game()
    move = ZOC.parse_action({"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]})
    ruling = ZOC.adjudicate(board, state, move, options)
    assert ruling.legal and ruling.details["end_hex"] == "e3307"
    after = ZOC.apply(board, state, move, ruling)
    assert _unit(after, "de-inf-1").hex == "e3307"
    assert after.moved == ["de-inf-1"]
    assert _unit(state, "de-inf-1").hex == "e3107" and state.moved == []


def test_apply_takes_the_typed_outcome_not_the_path() -> None:
    """The end hex comes from the legal ruling's outcome (an overrun ends before the target's
    hex), validated into the kind's outcome model."""
    board, state, options = _zoc_game()
    move = ZOC.parse_action({"kind": "move", "unit": "de-inf-1", "path": ["e3207"]})
    ruling = ZOC.adjudicate(board, state, move, options)
    assert ruling.legal
    elsewhere = ruling.model_copy(update={"details": {**ruling.details, "end_hex": "e3106"}})
    assert _unit(ZOC.apply(board, state, move, elsewhere), "de-inf-1").hex == "e3106"
    without = ruling.model_copy(update={"details": {}})
    with pytest.raises(ValidationError, match="end_hex"):
        ZOC.apply(board, state, move, without)


def test_an_illegal_ruling_is_never_applied() -> None:
    board, state, _ = _zoc_game()
    move = ZOC.parse_action({"kind": "move", "unit": "de-inf-1", "path": ["e3207"]})
    refused = Ruling(legal=False, summary="no")
    with pytest.raises(RulesError, match="illegal action cannot be applied"):
        ZOC.apply(board, state, move, refused)


def test_the_actor_comes_from_the_kinds_owner() -> None:
    board, state, _ = _zoc_game()
    retreat = ZOC.parse_action({"kind": "retreat", "unit": "su-18a", "path": [], "length": 0})
    assert ZOC.actor_side(board, state, retreat) == "soviet"
    nobody = ZOC.parse_action({"kind": "retreat", "unit": "nobody", "path": [], "length": 0})
    assert ZOC.actor_side(board, state, nobody) is None
    marker = ZOC.parse_action({"kind": "remove_marker", "marker": "m1"})
    assert ZOC.actor_side(board, state, marker) == UMPIRE


def test_sides_come_from_the_board_or_the_declared_sides() -> None:
    board, _, _ = _zoc_game()
    assert ZOC.sides(board) == Sides(("axis", "soviet"), {"axis": "Axis", "soviet": "Soviet"})

    class Fixed(type(ZOC)):  # type: ignore[misc]
        fixed_sides = Sides(("north", "south"))

    assert Fixed().sides(board).names == ("north", "south")


def test_options_and_stored_documents_are_coerced() -> None:
    board, state, options = _zoc_game()
    assert ZOC.coerce_options(None) == options
    assert ZOC.coerce_options(options) is options
    assert ZOC.coerce_options({"started_in_ezoc_exempt": True}).started_in_ezoc_exempt
    assert ZOC.load_board(board) is board
    assert ZOC.load_state(state.model_dump(mode="json")) == state


def test_queries_run_on_models_and_on_stored_documents_alike() -> None:
    board, state, options = _zoc_game()
    run = ZOC.queries()["supply"].run
    on_models = run(board, state, options, ZOC.queries()["supply"].params(side="axis"))
    stored = (board.model_dump(mode="json"), state.model_dump(mode="json"))
    assert run(*stored, None, {"side": "axis"}) == on_models
    assert on_models["side"] == "axis" and on_models["citations"]
    with pytest.raises(InvalidQuery, match="exactly one"):
        run(*stored, None, None)


def test_examples_are_read_from_the_packaged_json_each_time() -> None:
    first = ZOC.example_scenario()
    assert first is not None
    assert first == shipped_scenario("app.rules.zoc.ruleset", "seed-example.json")
    first["units"].clear()
    assert (ZOC.example_scenario() or {})["units"]
    assert set(shipped_scenarios("app.rules.zoc.ruleset")) == {
        "coast-and-weather",
        "seed-example",
        "seed-example-no-infantry",
    }
    assert set(shipped_scenarios("app.rules.zoi.ruleset")) == {"example"}
