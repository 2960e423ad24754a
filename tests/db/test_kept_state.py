"""Issue 11: after a write on SQLite the service keeps, for the next request, the state object
the ruleset made (``app.service.pipeline.remember_state``) instead of parsing the stored
document again. That is only right if parsing a state's dump gives back an equal state that
dumps byte for byte alike: checked here for the state after every legal action and sealed
decision of every ruleset's rule cases, and after every phase advance of their setups. (The
test suite also sets ``REFEREE_CHECK_KEPT_STATE``, so every write of every test checks it.)
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any

import pytest

from tests.rules.rule_cases import PACKAGES, Case, _setup, load_cases

RULESETS = sorted(PACKAGES)


def _made(case: Case) -> list[tuple[str, Any, Any]]:
    """(what, ruleset, state) for the states the case's action, sealed decision or a phase
    advance makes."""
    data = case.data
    if "invalid_scenario" in data or "query" in data:
        return []
    try:
        rs, options, board, state = _setup(case)
    except Exception:  # a scenario the case expects refused
        return []
    made: list[tuple[str, Any, Any]] = []
    if rs.sequence_of_play(board) is not None:
        with contextlib.suppress(Exception):  # the last phase, or one that may not end yet
            made.append(("advance_phase", rs, rs.advance_phase(board, state)))
    if "sealed" in data:
        sealed = data["sealed"]
        decision = rs.sealed_decisions(board, state)[sealed["decision"]]
        orders = {
            side: decision.order_model.model_validate(doc) for side, doc in sealed["orders"].items()
        }
        need = list(rs.sealed_dice_needed(board, state, decision.id, orders))
        dice = sealed["dice"] if "dice" in sealed else [sealed.get("fill", 1)] * len(need)
        ruling = rs.resolve_sealed(board, state, decision.id, orders, options, dice)
        if ruling.legal:
            made.append(("sealed", rs, rs.apply_sealed(board, state, decision.id, orders, ruling)))
        return made
    if "action" not in data:
        return made
    try:
        action = rs.parse_action(data["action"])
    except Exception:
        return made
    ruling = rs.adjudicate(board, state, action, options, list(data.get("dice") or []))
    if ruling.legal:
        made.append(("apply", rs, rs.apply(board, state, action, ruling)))
    return made


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_made_state_survives_its_own_dump_and_its_stored_text(ruleset_id: str) -> None:
    """A state parsed from its dump (a document) is the state, dumped byte for byte alike;
    and a cache miss whose game row holds the state whole validates it straight from the
    stored JSON text (``Ruleset.load_state`` given a ``str``): the same state again -- for
    the compact text a write stores and for the spaced text the JSON column's serializer
    writes (a game's first state), checked for every rule case's set-up state and every
    state the case makes."""
    import json

    from app.service.jsonsafe import encode_state

    checked = 0
    for case in load_cases(ruleset_id):
        made = _made(case)
        if made:
            made.append(("setup", made[0][1], _setup(case)[3]))
        for what, rs, state in made:
            compact = encode_state(state).decode("utf-8")
            for text in (compact, json.dumps(json.loads(compact))):
                from_text = rs.load_state(text)
                from_doc = rs.load_state(json.loads(text))
                assert from_text == from_doc == state, f"{case.id}: {what}"
                assert from_text.model_dump_json() == compact, f"{case.id}: {what}"
                assert from_doc.model_dump_json() == compact, f"{case.id}: {what}"
            checked += 1
    assert checked >= 50, f"only {checked} states of {ruleset_id} were checked"


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_state_rebuilt_on_its_snapshot_s_model_is_the_state_of_the_rebuilt_document(
    ruleset_id: str,
) -> None:
    """A miss between snapshots rebuilds the state on the snapshot's model
    (``deltas.apply_to_model``: the snapshot validated from its text, the changed entries from
    their documents, the rest passed through): declared by every built-in ruleset
    (``state_revalidates``), so checked here for every state every rule case makes -- the
    delta from the case's set-up state to it, and that delta and the one back as a chain of
    two -- against validating the document the deltas rebuild: equal, dumped byte for byte
    alike."""
    import json

    from app.db import deltas
    from app.service.jsonsafe import encode_state

    checked = 0
    for case in load_cases(ruleset_id):
        for what, rs, state in _made(case):
            assert rs.state_revalidates
            before = _setup(case)[3]
            there, back = deltas.make_delta(before, state), deltas.make_delta(state, before)
            if not there:  # nothing changed, or no delta for it (then a snapshot is stored)
                continue
            assert back is not None
            text = encode_state(before).decode("utf-8")
            for chain, expected in (([there], state), ([there, back], before)):
                made = deltas.apply_to_model(rs.load_state(text), chain)
                rebuilt = deltas.StoredChain(text, tuple(chain)).document()
                whole = rs.load_state(rebuilt)
                assert made is not None, f"{case.id}: {what}"
                assert made == whole == expected, f"{case.id}: {what}"
                assert made.model_dump_json() == whole.model_dump_json(), f"{case.id}: {what}"
                assert json.loads(made.model_dump_json()) == rebuilt, f"{case.id}: {what}"
            checked += 1
    assert checked >= 40, f"only {checked} states of {ruleset_id} were checked"


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_parsed_state_weighs_what_the_write_kept_it_with(ruleset_id: str) -> None:
    """On a miss the state cache weighs the stored document by the length of its compact
    JSON as pydantic-core writes it: what the write that stored it weighed the state it kept
    by (the length of its text), and the length of its canonical JSON (the weight before,
    which sorted the keys: the same characters in another order)."""
    import json

    from app.service.boards import BoardCache, canonical_json
    from app.service.jsonsafe import encode_state

    checked = 0
    for case in load_cases(ruleset_id):
        for what, rs, state in _made(case):
            text = encode_state(state)  # what a write stores and keeps the state weighed by
            stored = json.loads(text)  # the document as the database hands it back
            cache = BoardCache()
            key = ("game", 2, rs.id, rs.version)
            load = functools.partial(rs.load_state, stored)
            parsed = cache.state(key, load, functools.partial(dict, stored))
            assert parsed == state, f"{case.id}: {what}"
            assert cache.state_size(key) == len(text) == len(canonical_json(stored)), case.id
            checked += 1
    assert checked >= 50, f"only {checked} states of {ruleset_id} were checked"


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_parsed_board_weighs_its_canonical_json_length(ruleset_id: str) -> None:
    """A board parsed on a miss is weighed by :func:`json_size` (pydantic-core's compact
    JSON): the length of its canonical JSON (the weight before), but for how a float is
    written (pydantic-core's ``1e-5`` is ``json.dumps``'s ``1e-05``). Checked on the board of
    every rule case's setup, as the database hands the document back."""
    import json

    from app.service.boards import canonical_json, json_size

    checked = 0
    for case in load_cases(ruleset_id):
        if "invalid_scenario" in case.data:
            continue
        try:
            _rs, _options, board, _state = _setup(case)
        except Exception:  # a scenario the case expects refused
            continue
        stored = json.loads(board.model_dump_json())
        size, canonical = json_size(stored), len(canonical_json(stored))
        if _has_float(stored):
            assert abs(size - canonical) <= canonical // 100, case.id
        else:
            assert size == canonical, case.id
        checked += 1
    assert checked >= 20, f"only {checked} boards of {ruleset_id} were checked"


def _has_float(doc: Any) -> bool:
    if isinstance(doc, float):
        return True
    if isinstance(doc, dict):
        return any(_has_float(v) for v in doc.values())
    if isinstance(doc, list):
        return any(_has_float(v) for v in doc)
    return False
