"""The whole-search memo of ``reachable`` (``SideFacts.searches``): a search kept, replayed or
evicted answers what a fresh state answers, and an answer handed out shares nothing with it."""

from __future__ import annotations

import json
from typing import Any

from app import native
from app.rules import registry
from app.rules.base import shipped_scenario
from app.rules.zoc.ruleset import ZocRuleset

zoc_search = native.selected("app.rules.zoc.search")  # the build in use
zoc_index = native.selected("app.rules.zoc.index")

RS = registry.get("zoc")
QUERY = RS.queries()["reachable"]


def _ask(board: Any, state: Any, opts: Any, unit: str, why_not: str) -> str:
    return json.dumps(QUERY.run(board, state, opts, {"unit": unit, "why_not": why_not}))


def test_kept_replayed_and_evicted_searches_answer_as_a_fresh_state(monkeypatch: Any) -> None:
    monkeypatch.setattr(zoc_search, "SEARCHES_KEPT", 2)  # every unit evicts an older one
    data = shipped_scenario(ZocRuleset.__module__, "seed-example.json")
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(data), opts)
    units = [u.id for u in state.units if u.hex is not None]
    assert len(units) > 2
    fresh = {
        (u, w): _ask(board, state.model_copy(), opts, u, w)
        for u in units
        for w in ("frontier", "all")
    }
    for _ in range(3):  # kept, replayed, evicted and searched again
        for u in units:
            for w in ("frontier", "all"):
                assert _ask(board, state, opts, u, w) == fresh[(u, w)], (u, w)


def test_a_search_kept_with_other_options_is_not_replayed() -> None:
    # a search is kept per unit with the options it was made with (compared, not part of the
    # memo's key): asked with other options, the unit is searched again for them
    data = shipped_scenario(ZocRuleset.__module__, "seed-example.json")
    plain = RS.parse_options({})
    exempt = RS.parse_options({"started_in_ezoc_exempt": True})
    board, state = RS.setup(RS.parse_scenario(data), plain)
    fresh = {
        id(o): _ask(board, state.model_copy(), o, "de-inf-y", "frontier") for o in (plain, exempt)
    }
    assert fresh[id(plain)] != fresh[id(exempt)]  # the option changes this unit's answer
    equal = RS.parse_options({"started_in_ezoc_exempt": True})  # equal, not the same object
    for o, like in ((plain, plain), (exempt, exempt), (plain, plain), (equal, exempt)):
        assert _ask(board, state, o, "de-inf-y", "frontier") == fresh[id(like)]


def test_an_answer_shares_nothing_with_the_kept_search() -> None:
    data = shipped_scenario(ZocRuleset.__module__, "seed-example.json")
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(data), opts)
    first = QUERY.run(board, state, opts, {"unit": "de-inf-y"})
    expected = json.dumps(first)
    assert first["unreachable"]
    assert any(e["stop"] is not None for e in first["reachable"].values())
    for entry in first["reachable"].values():  # a caller scribbling over its answer
        entry["path"].append("x")
        if entry["stop"] is not None:
            entry["stop"]["by"].append("x")
            entry["stop"]["citations"].append("x")
    for reasons in first["unreachable"].values():
        for r in reasons:
            r["citations"].append("x")
            r["code"] = "x"
    assert json.dumps(QUERY.run(board, state, opts, {"unit": "de-inf-y"})) == expected


def test_one_state_judged_on_two_boards_answers_for_each_board() -> None:
    """A state's index is kept per state and built for the board asked about: the same state
    judged on another board (here without the Mountain hexside that keeps the 18th Army's ZOC
    out of e3206) is indexed for that board, and back on the first board answers as before."""
    data = shipped_scenario(ZocRuleset.__module__, "seed-example.json")
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(data), opts)
    other, _ = RS.setup(RS.parse_scenario({**data, "hexsides": {}}), opts)
    zone_map = RS.queries()["ezoc-map"]

    def ask(on: Any, s: Any) -> str:
        answer = zone_map.run(on, s, opts, {"side": "axis"})
        return json.dumps([answer, QUERY.run(on, s, opts, {"unit": "de-inf-y"})])

    fresh = {id(board): ask(board, state.model_copy()), id(other): ask(other, state.model_copy())}
    assert fresh[id(board)] != fresh[id(other)]
    assert "e3206" in zone_map.run(other, state.model_copy(), opts, {"side": "axis"})["hexes"]
    assert "e3206" not in zone_map.run(board, state.model_copy(), opts, {"side": "axis"})["hexes"]
    for on in (board, other, board, other):
        assert ask(on, state) == fresh[id(on)]


def test_moves_hand_each_sides_search_facts_on_as_a_fresh_state_answers() -> None:
    """Every unit's reach asked (both sides' search facts and step verdicts found), then the
    German infantry (de-inf-y, which negates the EZOC in e3207) moves away and de-inf-1 moves
    into e3207: each move hands both sides' facts on (the mover's side's and the other's) and
    every unit's reach, with every why-not, is the reach of the same state parsed afresh."""
    data = shipped_scenario(ZocRuleset.__module__, "seed-example.json")
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(data), opts)
    units = [u.id for u in state.units]
    for step in (("de-inf-y", ["e3107"]), ("de-inf-1", ["e3207"])):
        for u in units:
            _ask(board, state, opts, u, "all")
        action = RS.parse_action({"kind": "move", "unit": step[0], "path": step[1]})
        ruling = RS.adjudicate(board, state, action, opts)
        assert ruling.legal, ruling.summary
        state = RS.apply(board, state, action, ruling)
        fresh = RS.load_state(json.loads(state.model_dump_json()))
        for u in units:
            for w in ("frontier", "all"):
                assert _ask(board, state, opts, u, w) == _ask(board, fresh, opts, u, w), (u, w)


def test_the_verdicts_are_kept_per_options_equal_options_sharing_them() -> None:
    # the verdict tables are keyed by the options hashed once per state (OptionsKey): equal
    # options, another object, find the table made for the first; other options make their own
    data = shipped_scenario(ZocRuleset.__module__, "seed-example.json")
    plain = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(data), plain)
    equal = RS.parse_options({})
    exempt = RS.parse_options({"started_in_ezoc_exempt": True})
    assert equal == plain and equal is not plain
    facts = zoc_search.side_facts(RS.context(board, state, plain, ()), state.phasing_side)

    def tables() -> list[Any]:
        return [t for key, t in facts.verdicts.items() if key[0] == "de-inf-y"]

    _ask(board, state, plain, "de-inf-y", "frontier")
    assert len(tables()) == 1 and tables()[0]  # the steps judged, kept
    made = tables()[0]
    _ask(board, state, equal, "de-inf-y", "all")
    assert tables() == [made] and tables()[0] is made
    _ask(board, state, exempt, "de-inf-y", "frontier")
    assert len(tables()) == 2
    key_of = facts.key_of
    assert key_of(plain) == key_of(equal) != key_of(exempt)
    assert hash(key_of(plain)) == hash(key_of(equal)) == hash(plain)


def test_an_answer_s_rows_are_its_own() -> None:
    # each reached row is a copy of a template row (zoc_search.PLAIN_ROW, STOP_ROW), its
    # values set: a caller writing over a row's every key changes no later answer
    data = shipped_scenario(ZocRuleset.__module__, "seed-example.json")
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(data), opts)
    units = [u.id for u in state.units if u.hex is not None and u.side == state.phasing_side]
    fresh = {u: _ask(board, state.model_copy(), opts, u, "frontier") for u in units}
    templates = json.dumps([zoc_search.PLAIN_ROW, zoc_search.STOP_ROW])
    for _ in range(2):
        for u in units:
            answer = QUERY.run(board, state, opts, {"unit": u})
            assert json.dumps(answer) == fresh[u]
            for row in answer["reachable"].values():
                for key in list(row):
                    row[key] = "x"
                row["more"] = "x"
    assert json.dumps([zoc_search.PLAIN_ROW, zoc_search.STOP_ROW]) == templates


def _facts_answer_as_the_zones(board: Any, state: Any, opts: Any, side: str) -> int:
    """Every hex's EZOC and no-ZOC sections as ``side``'s search facts of ``state`` find them
    are what the state's zones say; returns how many hexes the facts found alone (no unit
    next to them: answered without the zones)."""
    ctx = RS.context(board, state, opts, ())
    facts = zoc_search.side_facts(ctx, side)
    alone = 0
    for h, i in facts.graph.index.items():
        alone += facts.alone(i)
        assert facts.in_ezoc(ctx, i) == bool(ctx.zones.ezoc(h, side)), h
        sections = tuple(section for _u, _r, section in ctx.zones.no_zoc(h, side))
        assert facts.no_zoc_sections(ctx, i) == sections, h
    return alone


def test_fresh_facts_find_the_hexes_with_no_unit_next_to_them_as_the_zones_do() -> None:
    # a state's search facts made afresh know its occupied hexes (SideFacts.occupied): a hex
    # with no unit next to it is answered there (no EZOC, no notes), the others by the zones
    data = shipped_scenario(ZocRuleset.__module__, "seed-example.json")
    opts = RS.parse_options({})
    board, made = RS.setup(RS.parse_scenario(data), opts)
    state = RS.load_state(made.model_dump_json())
    for side in (s.id for s in board.sides):
        alone = _facts_answer_as_the_zones(board, state, opts, side)
        assert 0 < alone < len(board.hexes)  # both ways taken


def test_facts_handed_on_after_a_move_find_the_moved_unit_s_zone(monkeypatch: Any) -> None:
    # facts handed on to the state after a move know no occupied hexes (the state before's
    # are not this one's): the hexes next to where the unit moved are in its zone
    monkeypatch.setattr(zoc_index, "HAND_ON_FROM", 0)  # a small state's index handed on too
    scenario = {
        "areas": [{"cols": [1, 7], "rows": [1, 7]}],
        "sides": [{"id": "axis"}, {"id": "soviet"}],
        "phasing_side": "soviet",
        "units": [
            {"id": "a", "side": "axis", "movement_allowance": 6, "hex": "0101"},
            {"id": "s", "side": "soviet", "movement_allowance": 4, "hex": "0707"},
        ],
    }
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    for unit in ("a", "s"):
        _ask(board, state, opts, unit, "all")  # both sides' facts made, asked
    assert _facts_answer_as_the_zones(board, state, opts, "axis") > 0
    action = RS.parse_action({"kind": "move", "unit": "s", "path": ["0706", "0705"]})
    ruling = RS.adjudicate(board, state, action, opts)
    assert ruling.legal, ruling.summary
    moved = RS.apply(board, state, action, ruling)
    facts = zoc_search.side_facts(RS.context(board, moved, opts, ()), "axis")
    assert facts.below is not None  # handed on, not made afresh
    _facts_answer_as_the_zones(board, moved, opts, "axis")
    ctx = RS.context(board, moved, opts, ())
    assert facts.in_ezoc(ctx, facts.graph.index["0704"])  # next to 0705, where s stands
