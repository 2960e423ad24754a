"""Issue 11: the search's look-ups of a state made by ``move`` or ``melee_retreat`` are derived
from the look-ups of the state before (``search._StateIndex.handed_on``: what the changed
unit's old and new hexes can change dropped, the rest kept), not built afresh. It must never
change an answer: after random chains of legal actions on generated games, each state's
queries (on handed-on look-ups, then filled by queries in a random order) and rulings answer
byte for byte as the same state round-tripped through its JSON dump (fresh look-ups)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from app.rules import layers
from app.rules.zoi import search
from app.rules.zoi.zones import Game
from tests.rules.zoi.test_search import READINGS, RS, _game
from tests.support.props import examples

SIDES = ("french", "austrian")


def _asks(board: Any, state: Any, opts: Any) -> list[tuple[str, Any]]:
    """Every query of the state (reachable for each unit, zone map and defensive fire for each
    side) and a few rulings for each unit (a one-hex move, a turn then a move, a retreat)."""
    game = Game(board, state, opts)
    asks: list[tuple[str, Any]] = []
    for unit in state.units:
        asks.append(("reachable", {"unit": unit.id}))
        nbrs = game.adjacent_on_map(unit.hex)
        for _, n in nbrs[:2]:
            asks.append(("act", {"kind": "move", "unit": unit.id, "path": [n]}))
        if nbrs and unit.facing is not None:
            face = {"do": "face", "facing": (unit.facing + 1) % 6}
            enter = {"do": "enter", "hex": nbrs[-1][1]}
            asks.append(("act", {"kind": "move", "unit": unit.id, "steps": [face, enter]}))
        if nbrs:
            retreat = {"kind": "melee_retreat", "unit": unit.id, "path": [nbrs[0][1]]}
            asks.append(("act", {**retreat, "result": "R1"}))
    for side in SIDES:
        asks.append(("zone-map", {"side": side}))
        asks.append(("defensive-fire", {"side": side}))
    asks.append(("defensive-fire", {}))
    return asks


def _ask(board: Any, state: Any, opts: Any, name: str, params: Any) -> str:
    if name == "act":
        return RS.adjudicate(board, state, RS.parse_action(params), opts).model_dump_json()
    return json.dumps(RS.queries()[name].run(board, state, opts, params))


def _candidates(board: Any, state: Any, opts: Any) -> dict[str, list[dict[str, Any]]]:
    """Actions to try, by kind: moves of one or two hexes, with turns and formation changes
    before or after; melee retreats of one to three hexes; phases (indexed afresh)."""
    game = Game(board, state, opts)
    out: dict[str, list[dict[str, Any]]] = {"move": [], "change": [], "melee_retreat": []}
    for unit in state.units:
        nbrs = [n for _, n in game.adjacent_on_map(unit.hex)]
        for n in nbrs:
            out["move"].append({"kind": "move", "unit": unit.id, "path": [n]})
            for _, far in game.adjacent_on_map(n):
                out["move"].append({"kind": "move", "unit": unit.id, "path": [n, far]})
            for f in range(6):
                enter, face = {"do": "enter", "hex": n}, {"do": "face", "facing": f}
                out["change"].append({"kind": "move", "unit": unit.id, "steps": [face, enter]})
                out["change"].append({"kind": "move", "unit": unit.id, "steps": [enter, face]})
        for f in range(6):
            out["change"].append(
                {"kind": "move", "unit": unit.id, "steps": [{"do": "face", "facing": f}]}
            )
        for form in game.formations(unit):
            for facing in (None, 0, 3):
                step: dict[str, Any] = {"do": "formation", "formation": form}
                if facing is not None:
                    step["facing"] = facing
                out["change"].append({"kind": "move", "unit": unit.id, "steps": [step]})
                if nbrs:
                    enter = {"do": "enter", "hex": nbrs[0]}
                    out["change"].append({"kind": "move", "unit": unit.id, "steps": [enter, step]})
        for do in ("limber", "unlimber"):
            out["change"].append({"kind": "move", "unit": unit.id, "steps": [{"do": do}]})
        for n in nbrs:
            for result, length in (("R1", 1), ("R1L1", 1), ("R2", 2), ("R3L2", 3)):
                path = [n]
                while len(path) < length:
                    ahead = [m for _, m in game.adjacent_on_map(path[-1]) if m not in path]
                    if not ahead:
                        break
                    path.append(ahead[len(path) % len(ahead)])
                out["melee_retreat"].append(
                    {"kind": "melee_retreat", "unit": unit.id, "path": path, "result": result}
                )
    out["other"] = [
        {"kind": "set_phase", "phase": "melee"},
        {"kind": "set_phase", "phase": "movement", "phasing": "austrian"},
        {"kind": "set_phase", "phase": "movement", "phasing": "french"},
    ]
    return out


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 10_000),
    st.sampled_from([(6, 10), (7, 14), (8, 12), (8, 20)]),
    st.sampled_from(range(len(READINGS))),
    st.sampled_from(range(len(READINGS))),
    st.sampled_from(["movement", "melee"]),
    st.data(),
)
def test_handed_on_lookups_answer_as_fresh_ones(
    seed: int,
    size_count: tuple[int, int],
    reading: int,
    other_reading: int,
    phase: str,
    data: st.DataObject,
) -> None:
    size, count = size_count
    scenario = _game(seed, size, count)
    scenario["phase"] = phase
    opts = RS.parse_options(READINGS[reading])
    other = RS.parse_options(READINGS[other_reading])  # look-ups of a second reading handed on
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    for _ in range(data.draw(st.integers(1, 4), label="actions")):
        asks = _asks(board, state, opts)
        warm = [i for i, (name, _) in enumerate(asks) if name == "reachable"]
        warm += data.draw(st.lists(st.sampled_from(range(len(asks))), max_size=6), label="warm")
        for i in data.draw(st.permutations(warm), label="warm order"):
            _ask(board, state, opts, *asks[i])  # fill the look-ups of the state before
            if asks[i][0] == "reachable":
                _ask(board, state, other, *asks[i])
        candidates = _candidates(board, state, opts)
        found = None
        kinds = ["move", "move", "change"] if state.phase == "movement" else ["melee_retreat"] * 3
        for _ in range(24):
            kind = data.draw(st.sampled_from([*kinds, "other"]), label="kind")
            if not candidates[kind]:
                continue
            action = RS.parse_action(data.draw(st.sampled_from(candidates[kind]), label="action"))
            ruling = RS.adjudicate(board, state, action, opts)
            if ruling.legal:
                found = action, ruling
                break
        if found is None:
            event("no legal action found")
            return
        action, ruling = found
        before = state.model_dump(mode="json")
        new = RS.apply(board, state, action, ruling)
        handed = search._HANDED_ON.peek(new) is not None
        event(f"{action.kind}: handed on {handed}")
        if action.kind == "set_phase":
            assert not handed
        dumped = new.model_dump(mode="json")
        asks = _asks(board, new, opts)
        searches = [i for i, (name, _) in enumerate(asks) if name == "reachable"]
        others = [i for i in range(len(asks)) if i not in searches]
        picked = searches + data.draw(
            st.lists(st.sampled_from(others), max_size=10, unique=True), label="asks"
        )
        order = data.draw(st.permutations(picked), label="order")
        readings = (opts, other)
        alone = {
            (r, i): _ask(board, RS.load_state(json.loads(json.dumps(dumped))), o, *asks[i])
            for i in picked
            for r, o in enumerate(readings)
        }
        for i in [*order, *order]:  # on the handed-on look-ups, then again on them warm
            for r, o in enumerate(readings):
                assert _ask(board, new, o, *asks[i]) == alone[(r, i)], (action, asks[i])
        assert new.model_dump(mode="json") == dumped  # nothing changed the state
        index, fresh = search._INDEX_OF.peek(new), search._StateIndex(board, new)
        assert index is not None
        # each hex's units, in the unit list's order (handed on as layers: made flat here)
        assert _plain(index.units_at) == fresh.units_at
        assert _plain(index.units) == fresh.units and index.positions() == fresh.positions()
        # the enemy carrés the one-label search asks about, counted again by the move
        assert index.carres_by_side() == fresh.carres_by_side()
        # the state before, asked again after the new one's searches (the moved unit's side
        # shares its look-ups between the two states)
        for name, params in _asks(board, state, opts):
            if name == "reachable":
                fresh_before = RS.load_state(json.loads(json.dumps(before)))
                assert _ask(board, state, opts, name, params) == _ask(
                    board, fresh_before, opts, name, params
                ), (action, params)
        state = new


def _plain(table: dict[str, Any]) -> dict[str, Any]:
    return table.flat() if isinstance(table, layers.Layered) else table


def test_lookups_made_flat_again_answer_alike(monkeypatch: Any) -> None:
    """The units by hex, by id and the fronts are handed on as layers over the last state's
    (``app.rules.layers.Layered``), made flat every ``LAYERS_KEPT`` moves: with flattening
    every second move, the chains above reach it, and every answer is still the fresh
    look-ups'."""
    monkeypatch.setattr(layers, "LAYERS_KEPT", 2)
    test_handed_on_lookups_answer_as_fresh_ones()


def test_a_move_hands_the_lookups_on() -> None:
    """A move on a state already queried hands its look-ups on (nothing built afresh), and
    the handed-on index is that of the new state; a phase change does not hand them on."""
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(RS.example_scenario()), opts)
    query = RS.queries()["reachable"]
    query.run(board, state, opts, {"unit": "fr-4-2"})
    action = RS.parse_action(
        {"kind": "move", "unit": "fr-4-2", "steps": [{"do": "enter", "hex": "0607"}]}
    )
    ruling = RS.adjudicate(board, state, action, opts)
    assert ruling.legal, ruling.summary
    new = RS.apply(board, state, action, ruling)
    move = search._HANDED_ON.peek(new)
    assert move is not None and move.old is search._INDEX_OF.peek(state)
    # found in its place from the index (apply_move -> position_of -> moved_in_place)
    place = next(i for i, u in enumerate(state.units) if u.id == "fr-4-2")
    assert move.position == place
    assert move.old_unit is state.units[place] and move.new_unit is new.units[place]
    # the state made in place is the state made without an index (a copy never queried)
    unindexed = RS.load_state(json.loads(state.model_dump_json()))
    assert search._INDEX_OF.peek(unindexed) is None
    assert new == RS.apply(board, unindexed, action, ruling)
    moved_now = new.units[place]
    assert (moved_now.hex, moved_now.facing, new.moved) == ("0607", 0, ["fr-4-2"])
    # the new state's index is derived from the old one: a French unit moved, and zones,
    # carrés and steps are of enemy units only, so the French look-ups are kept whole
    before = search._INDEX_OF.peek(state)
    assert before is not None and before.steps and before.zones
    derived = search._index(board, new)
    assert derived is not before and search._HANDED_ON.peek(new) is None
    tables: list[tuple[dict[Any, Any], dict[Any, Any]]] = [
        (derived.zones, before.zones),
        (derived.steps, before.steps),
    ]
    for made, kept in tables:
        assert made.keys() == kept.keys() and all(key[0] == "french" for key in made)
        assert all(made[key] == kept[key] and made[key] for key in made)
    assert derived.carres.keys() == before.carres.keys()
    assert all(derived.carres[key] == before.carres[key] for key in derived.carres)
    query.run(board, new, opts, {"unit": "fr-4-2"})
    index = search._INDEX_OF.peek(new)
    assert index is derived
    moved = next(u for u in new.units if u.id == "fr-4-2")
    assert index.units["fr-4-2"] is moved
    assert moved in index.units_at[moved.hex]
    phase = RS.parse_action({"kind": "set_phase", "phase": "melee"})
    after = RS.apply(board, new, phase, RS.adjudicate(board, new, phase, opts))
    assert search._HANDED_ON.peek(after) is None


def _melee_game() -> tuple[Any, Any, Any]:
    """Open ground in the melee phase: aus-a (column facing south) exerts a zone over 0506 and
    0606; fr-a (two increments) stands in it, fr-b and fr-c well away from it."""
    units = [
        ("aus-a", "austrian", "0505", 6, 3),
        ("fr-a", "french", "0506", 2, 0),
        ("fr-b", "french", "0208", 6, 0),
        ("fr-c", "french", "0809", 6, 0),
    ]
    scenario = {
        "ruleset": "zoi",
        "name": "handed on",
        "map": {"columns": [1, 10], "rows": [1, 10], "default_terrain": "clear"},
        "sides": [{"id": "french", "label": "French"}, {"id": "austrian", "label": "Austrian"}],
        "units": [
            {
                "id": uid,
                "side": side,
                "type": "infantry",
                "subtype": "line",
                "hex": hx,
                "increments": inc,
                "ma": 6,
                "formation": "column",
                "facing": facing,
            }
            for uid, side, hx, inc, facing in units
        ],
        "turn": 1,
        "phase": "melee",
        "phasing": "french",
    }
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    return board, state, opts


def test_a_melee_retreat_hands_the_lookups_on() -> None:
    """A melee retreat on a state already queried hands its look-ups on (apply_melee_retreat
    -> moved_to): the change names the index of the state before, the unit as it was and as
    it is now, in the same place of the unit list; the new state's index is derived from it
    and answers as a fresh one."""
    board, state, opts = _melee_game()
    query = RS.queries()["reachable"]
    query.run(board, state, opts, {"unit": "aus-a"})
    action = RS.parse_action({"kind": "melee_retreat", "unit": "fr-b", "path": ["0209"]})
    ruling = RS.adjudicate(board, state, action, opts)
    assert ruling.legal, ruling.summary
    new = RS.apply(board, state, action, ruling)
    move = search._HANDED_ON.peek(new)
    assert move is not None and move.old is search._INDEX_OF.peek(state)
    assert move.old_unit is next(u for u in state.units if u.id == "fr-b")
    now = next(u for u in new.units if u.id == "fr-b")
    assert now.hex == "0209"
    assert move.new_unit is now
    fresh = RS.load_state(json.loads(new.model_dump_json()))
    for uid in ("aus-a", "fr-a", "fr-b"):
        asked = query.run(board, new, opts, {"unit": uid})
        assert asked == query.run(board, fresh, opts, {"unit": uid})
    index = search._INDEX_OF.peek(new)
    assert index is not None and search._HANDED_ON.peek(new) is None
    assert index.units["fr-b"] is now and index.units_at["0209"] == (now,)
    assert "0208" not in index.units_at


def test_an_eliminating_melee_retreat_hands_the_lookups_on() -> None:
    """fr-a, two increments, retreats through two zone hexes and is eliminated: the change
    still names the index before and the unit as it was, with no unit now; the new state's
    index has no fr-a and answers as a fresh one."""
    board, state, opts = _melee_game()
    query = RS.queries()["reachable"]
    query.run(board, state, opts, {"unit": "aus-a"})
    action = RS.parse_action({"kind": "melee_retreat", "unit": "fr-a", "path": ["0606", "0706"]})
    ruling = RS.adjudicate(board, state, action, opts)
    assert ruling.legal, ruling.summary
    new = RS.apply(board, state, action, ruling)
    assert "fr-a" in new.eliminated and all(u.id != "fr-a" for u in new.units)
    move = search._HANDED_ON.peek(new)
    assert move is not None and move.old is search._INDEX_OF.peek(state)
    assert move.old_unit is next(u for u in state.units if u.id == "fr-a")
    assert move.new_unit is None
    fresh = RS.load_state(json.loads(new.model_dump_json()))
    for uid in ("aus-a", "fr-b"):
        assert query.run(board, new, opts, {"unit": uid}) == query.run(
            board, fresh, opts, {"unit": uid}
        )
    index = search._INDEX_OF.peek(new)
    assert index is not None and "fr-a" not in index.units and "0506" not in index.units_at


def test_a_unit_that_turns_and_moves_projects_its_new_front_on_the_handed_on_index() -> None:
    """The fronts the enemy side's search found are per unit: a move hands them on without the
    moved unit's (its facing and hex changed), so the enemy's answer on the new state is the
    fresh one -- fr-b turns about and steps on, and aus-a's reach changes with it
    (``_StateIndex.handed_on`` 112: the moved unit's old front kept, issue 27)."""
    board, state, opts = _melee_game()
    state = state.model_copy(update={"phase": "movement"})
    query = RS.queries()["reachable"]
    before = query.run(board, state, opts, {"unit": "aus-a"})  # fr-b's front looked up
    front_before = search._INDEX_OF.peek(state).fronts[True]["fr-b"]  # type: ignore[union-attr]
    steps = [{"do": "face", "facing": 3}, {"do": "enter", "hex": "0308"}]
    action = RS.parse_action({"kind": "move", "unit": "fr-b", "steps": steps})
    ruling = RS.adjudicate(board, state, action, opts)
    assert ruling.legal, ruling.summary
    new = RS.apply(board, state, action, ruling)
    assert search._HANDED_ON.peek(new) is not None  # handed on, not indexed afresh
    fresh = RS.load_state(json.loads(new.model_dump_json()))
    after = query.run(board, new, opts, {"unit": "aus-a"})
    assert after == query.run(board, fresh, opts, {"unit": "aus-a"})
    turned = search._INDEX_OF.peek(new).fronts[True]["fr-b"]  # type: ignore[union-attr]
    assert turned != front_before and after != before


def test_an_action_of_an_unknown_unit_is_refused_before_the_judge_citing_its_procedure() -> None:
    """The kit's check before the judge (``Kind.names``) refuses a move or a melee retreat of a
    unit the game does not have, in its phase or not, with one violation citing the
    procedure of the kind: Movement for a move, 14's melee retreat for a retreat."""
    board, state, opts = _melee_game()
    for phase, kind, section in [
        ("movement", "move", "movement"),
        ("melee", "move", "movement"),
        ("melee", "melee_retreat", "14.melee-retreat"),
    ]:
        game = state.model_copy(update={"phase": phase})
        action = RS.parse_action({"kind": kind, "unit": "ghost", "path": ["0101"]})
        ruling = RS.adjudicate(board, game, action, opts)
        assert not ruling.legal and ruling.summary == "No unit 'ghost' in this game."
        assert [(v.code, v.unit, v.step, v.hex, v.details) for v in ruling.violations] == [
            ("zoi.unknown_unit", "ghost", None, None, {})
        ]
        assert [c.section for c in ruling.violations[0].citations] == [section]
        assert [c.section for c in ruling.citations] == [section]
