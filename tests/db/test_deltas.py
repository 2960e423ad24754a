"""Event states as deltas (app/db/deltas.py), without a database: a chain of states made the
ways the rulesets make them (an entry replaced and the rest shared, a deep copy edited, items
added, removed or reordered), stored as the writer stores it for a random snapshot interval,
rebuilt equal to every state's own dump -- value for value and in key order."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, computed_field

from app.db import deltas
from tests.support.props import examples


class Unit(BaseModel):
    id: str
    hex: str | None
    steps: int = 2


class State(BaseModel):
    turn: int = 1
    phase: str = "movement"
    units: list[Unit] = Field(default_factory=list)
    markers: list[str] = Field(default_factory=list)
    start: dict[str, str | None] = Field(default_factory=dict)
    weather: dict[str, str] = Field(default_factory=dict)
    ratio: float = 1.0


def _initial(n: int) -> State:
    units = [Unit(id=f"u{i}", hex=f"h{i}") for i in range(n)]
    return State(units=units, start={u.id: u.hex for u in units}, weather={"north": "clear"})


def _step(state: State, op: tuple[Any, ...]) -> State:
    """One change, made as a ruleset makes it (the old state is never changed)."""
    kind = op[0]
    n = len(state.units)
    if kind == "move" and n:  # one unit replaced, everything else shared (zoc moved_to)
        units = list(state.units)
        i = op[1] % n
        units[i] = units[i].model_copy(update={"hex": op[2]})
        return state.model_copy(update={"units": units})
    if kind == "deep":  # a deep copy edited in place (set_phase, markers)
        new = state.model_copy(deep=True)
        new.turn += 1
        new.phase = op[2]
        new.start = {u.id: u.hex for u in new.units}
        return new
    if kind == "add_unit":
        new = state.model_copy(deep=True)
        new.units.append(Unit(id=f"n{op[1]}-{len(new.units)}", hex=op[2]))
        return new
    if kind == "drop_unit" and n:
        new = state.model_copy(deep=True)
        del new.units[op[1] % n]
        return new
    if kind == "marker":
        return state.model_copy(update={"markers": [*state.markers, op[2]]})
    if kind == "unmark" and state.markers:
        return state.model_copy(update={"markers": state.markers[1:]})
    if kind == "put":  # a key changed or added
        return state.model_copy(update={"start": {**state.start, f"u{op[1]}": op[2]}})
    if kind == "pop" and state.start:
        start = dict(state.start)
        start.pop(next(iter(start)))
        return state.model_copy(update={"start": start})
    if kind == "reorder" and len(state.start) > 1:
        return state.model_copy(update={"start": dict(reversed(list(state.start.items())))})
    if kind == "weather":
        return state.model_copy(update={"weather": {**state.weather, "south": op[2]}})
    if kind == "ratio":
        return state.model_copy(update={"ratio": op[1] / 7})
    return state.model_copy()  # nothing changed (a seed reveal, a receipt)


ops = st.tuples(
    st.sampled_from(
        [
            "move",
            "deep",
            "add_unit",
            "drop_unit",
            "marker",
            "unmark",
            "put",
            "pop",
            "reorder",
            "weather",
            "ratio",
            "same",
        ]
    ),
    st.integers(0, 40),
    st.sampled_from(["h1", "h2", "h7", "x", "mud", "combat", None]).map(lambda v: v or "h0"),
)


def _stored(states: list[State], every: int) -> list[tuple[Any, Any]]:
    """What the writer stores for each event after the first state (app/service/pipeline.py
    ``_state_delta``: the snapshot rule, then the delta if one can be made and is small
    beside the state before it)."""
    out: list[tuple[Any, Any]] = []
    for seq in range(1, len(states)):
        old, new = states[seq - 1], states[seq]
        delta = None if deltas.wants_snapshot(seq, every) else deltas.make_delta(old, new)
        size = len(old.model_dump_json())  # the state before's, as the writer's cache weighs it
        if delta is not None and len(json.dumps(delta)) > deltas.DELTA_SHARE * size:
            delta = None
        if delta is None:
            out.append((json.loads(new.model_dump_json()), None))
        else:  # as a JSON column gives it back
            out.append((None, json.loads(json.dumps(delta))))
    return out


@given(
    every=st.integers(1, 9),
    units=st.integers(0, 12),
    chain=st.lists(ops, min_size=1, max_size=40),
)
@settings(max_examples=examples(300), deadline=None)
def test_rebuilt_states_equal_the_full_states(
    every: int, units: int, chain: list[tuple[Any, ...]]
) -> None:
    states = [_initial(units)]
    for op in chain:
        states.append(_step(states[-1], op))
    stored = _stored(states, every)
    rebuilt = deltas.rebuild(json.loads(states[0].model_dump_json()), stored)
    expected = [json.loads(s.model_dump_json()) for s in states[1:]]
    # equal, and equal as text: same key order, ints stay ints
    assert [json.dumps(r) for r in rebuilt] == [json.dumps(e) for e in expected]
    # every N-th event is a snapshot, whatever its delta would have been
    assert all(stored[seq - 1][0] is not None for seq in range(every, len(states), every))


def test_a_move_stores_the_one_unit_that_moved() -> None:
    old = _initial(500)
    new = _step(old, ("move", 123, "h9"))
    assert deltas.make_delta(old, new) == {
        "items": {"units": [[123, {"id": "u123", "hex": "h9", "steps": 2}]]}
    }
    assert deltas.make_delta(old, old.model_copy()) == {}


def test_changes_to_a_mapping_keep_its_order() -> None:
    old = _initial(4)
    grown = old.model_copy(update={"start": {**old.start, "u1": "z", "new": None}})
    delta = deltas.make_delta(old, grown)
    assert delta == {"keys": {"start": {"put": {"u1": "z", "new": None}}}}
    rebuilt = deltas.apply_delta(old.model_dump(mode="json"), delta)
    assert list(rebuilt["start"]) == ["u0", "u1", "u2", "u3", "new"]
    # the same entries in another order: the whole mapping, so the order is kept too
    turned = old.model_copy(update={"start": dict(reversed(list(old.start.items())))})
    assert deltas.make_delta(old, turned) == {"set": {"start": turned.model_dump()["start"]}}


class Computed(BaseModel):
    n: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def double(self) -> int:
        return 2 * self.n


def test_no_delta_where_the_model_alone_cannot_say_what_changed() -> None:
    assert deltas.make_delta(Computed(n=1), Computed(n=2)) is None  # computed fields
    assert deltas.make_delta(_initial(1), Unit(id="a", hex=None)) is None  # another class
    assert deltas.make_delta({"turn": 1}, {"turn": 2}) is None  # not a model


def test_rebuild_breaks_the_chain_where_no_state_was_kept() -> None:
    base = {"turn": 1, "units": []}
    d = {"set": {"turn": 2}}
    assert deltas.rebuild(base, [(None, d), (None, None), (None, d), ({"turn": 9}, None)]) == [
        {"turn": 2, "units": []},
        None,
        None,
        {"turn": 9},
    ]
    assert deltas.rebuild(None, [(None, d)]) == [None]


@pytest.mark.parametrize(("raw", "every"), [("1", 1), ("7", 7), ("0", 1), ("-3", 1), ("64", 64)])
def test_snapshot_every_setting(monkeypatch: pytest.MonkeyPatch, raw: str, every: int) -> None:
    """A number: a snapshot every N-th event, whatever the weights (known before the delta)."""
    monkeypatch.setenv("REFEREE_SNAPSHOT_EVERY", raw)
    assert deltas.snapshot_every() == every
    assert deltas.wants_snapshot(every) and (every == 1 or not deltas.wants_snapshot(every + 1))


@pytest.mark.parametrize("raw", [None, "", "auto", "x"])
def test_snapshots_by_weight_by_default(monkeypatch: pytest.MonkeyPatch, raw: str | None) -> None:
    """Unset (or not a number): no event is a snapshot before its chain is weighed, and the
    chain is weighed at every 32nd event only."""
    if raw is None:
        monkeypatch.delenv("REFEREE_SNAPSHOT_EVERY", raising=False)
    else:
        monkeypatch.setenv("REFEREE_SNAPSHOT_EVERY", raw)
    assert deltas.snapshot_every() is None
    assert not any(deltas.wants_snapshot(seq) for seq in (1, 32, 512, 1024))
    assert [s for s in range(1, 200) if deltas.weighed_at(s)] == [32, 64, 96, 128, 160, 192]


def test_a_checkpoint_stores_a_snapshot_once_the_chain_weighs_as_much_as_the_last() -> None:
    # the deltas since the snapshot, with this one, against the snapshot's text
    assert not deltas.snapshot_by_weight(32, 31 * 100, 100, 3_201)
    assert deltas.snapshot_by_weight(32, 31 * 100, 100, 3_200)
    assert deltas.snapshot_by_weight(64, 0, 10_000, 10_000)  # one large delta is enough
    # every 512th event whatever the weights
    assert deltas.snapshot_by_weight(512, 0, 1, 10**9)
    assert deltas.snapshot_by_weight(1024, 0, 1, 10**9)
    assert not deltas.snapshot_by_weight(544, 0, 1, 10**9)
    # the steady gap for deltas alike: the seed example's as with a fixed 32, the big board's
    # at the maximum
    assert deltas.steady_gap(1_019, 183) == 32
    assert deltas.steady_gap(82_460, 165) == 512
    assert deltas.steady_gap(10_000, 100) == 128  # 100 deltas weigh it: the next checkpoint
    assert deltas.steady_gap(12_800, 100) == 128
    assert deltas.steady_gap(12_801, 100) == 160
    assert deltas.steady_gap(0, 0) == 32


def test_snapshots_by_weight_never_leave_a_chain_longer_than_the_maximum() -> None:
    """Whatever the weights of the deltas between, event 512 (and each multiple) is a
    snapshot, and no other event but a checkpoint is: a chain is 31 to 511 deltas long."""
    rng = random.Random(28)
    last, chain = 0, 0
    for seq in range(1, 5_000):
        snapshot, delta = rng.randint(1_000, 200_000), rng.randint(1, 2_000)
        due = deltas.weighed_at(seq) and deltas.snapshot_by_weight(seq, chain, delta, snapshot)
        if due:
            assert seq - last >= deltas.SNAPSHOT_EVERY_MIN
            last, chain = seq, 0
        else:
            chain += delta
        assert seq - last < deltas.SNAPSHOT_EVERY_MAX
        if seq % deltas.SNAPSHOT_EVERY_MAX == 0:
            assert last == seq


def test_a_chain_applied_to_a_model_changes_neither_the_model_nor_the_deltas() -> None:
    """``apply_to_model`` copies an entry once and changes the copy in place for the deltas
    after: never the snapshot model's own lists and dicts, nor a list or dict a delta set
    (a chain's documents are read again: ``StoredChain.document``, the cache's weight)."""
    snapshot = _initial(3)
    before = snapshot.model_dump_json()
    chain: list[dict[str, Any]] = [
        {"items": {"units": [[0, {"id": "u0", "hex": "x0", "steps": 2}]]}},
        {"keys": {"start": {"put": {"u0": "x0"}, "del": ["u2"]}}},
        {"set": {"markers": ["m1"], "weather": {"north": "rain"}}},
        {"items": {"markers": [[0, "m2"]]}, "keys": {"weather": {"put": {"south": "snow"}}}},
        {"items": {"units": [[1, {"id": "u1", "hex": None, "steps": 1}]]}},
    ]
    kept = json.dumps(chain)
    made = deltas.apply_to_model(snapshot, chain)
    assert made is not None
    assert snapshot.model_dump_json() == before
    assert json.dumps(chain) == kept
    document = snapshot.model_dump(mode="json")
    for delta in chain:
        document = deltas.apply_delta(document, delta)
    assert made.model_dump_json() == State.model_validate(document).model_dump_json()
    assert isinstance(made, State)
    assert made.markers == ["m2"] and made.weather == {"north": "rain", "south": "snow"}
