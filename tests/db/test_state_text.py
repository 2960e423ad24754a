"""Issue 28 item 3: a write's new state's text put together from the state before's
(:mod:`app.service.statetext`) is byte for byte the whole encoding
(:func:`app.service.jsonsafe.encode_state`), for every ruleset's rule cases, for chains of
changes to a 526-unit state, and where the short way must not be taken. (The test suite's
``REFEREE_CHECK_KEPT_STATE`` also compares the two at every write of every test.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, computed_field

from app.rules import registry
from app.rules.copies import replaced
from app.service import statetext
from app.service.jsonsafe import encode_state
from app.service.statetext import state_text
from bench.scenarios import zoc_scenario
from tests.db.test_kept_state import RULESETS, _made
from tests.rules.rule_cases import _setup, load_cases


@pytest.fixture(autouse=True, scope="module")
def _small_states_put_together() -> Iterator[None]:
    """These tests put the texts of states of any size together: small ones are otherwise
    encoded whole (``statetext.WHOLE_BELOW``; the last tests here)."""
    kept = statetext.WHOLE_BELOW
    statetext.WHOLE_BELOW = 0
    yield
    statetext.WHOLE_BELOW = kept


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_rule_case_state_is_encoded_alike(ruleset_id: str) -> None:
    checked = 0
    for case in load_cases(ruleset_id):
        try:
            _rs, _options, _board, before = _setup(case)
        except Exception:  # a scenario the case expects refused
            continue
        assert state_text(before) == encode_state(before), case.id
        for what, _rs, made in _made(case):
            assert state_text(made, before) == encode_state(made), f"{case.id}: {what}"
            assert state_text(made, made) == encode_state(made), f"{case.id}: {what} again"
            checked += 1
    assert checked >= 50, f"only {checked} states of {ruleset_id} were checked"


_ZOC = registry.get("zoc")
_BOARD, _STATE = _ZOC.setup(_ZOC.parse_scenario(zoc_scenario(20, 40)), _ZOC.parse_options({}))
_HEXES = sorted({u.hex for u in _STATE.units if u.hex is not None})

_change = st.one_of(
    st.tuples(st.just("move"), st.integers(0, 10_000), st.sampled_from(_HEXES)),
    st.tuples(st.just("remove"), st.integers(0, 10_000), st.none()),
    st.tuples(st.just("copy"), st.integers(0, 10_000), st.none()),
    st.tuples(st.just("turn"), st.integers(1, 9), st.none()),
    st.tuples(st.just("same"), st.none(), st.none()),
)


def _changed(state: Any, change: tuple[str, Any, Any]) -> Any:
    what, n, value = change
    units = list(state.units)
    if what == "turn":
        return replaced(state, {"turn": n, "moved": [*state.moved, "x"]})
    if what == "same" or not units:
        return replaced(state, {})
    i = n % len(units)
    if what == "move":
        units[i] = replaced(units[i], {"hex": value})
    elif what == "remove":
        del units[i]
    else:  # a unit added: an equal copy (an object the state before does not hold)
        units.insert(i, units[i].model_copy())
    return replaced(state, {"units": units})


@given(st.lists(_change, min_size=1, max_size=12))
def test_a_chain_of_changes_is_encoded_as_whole(changes: list[tuple[str, Any, Any]]) -> None:
    before = _STATE
    state_text(before)
    for change in changes:
        after = _changed(before, change)
        assert state_text(after, before) == encode_state(after), change
        assert state_text(after) == encode_state(after), change  # from what was kept for it
        before = after


def test_the_texts_of_shared_units_are_reused() -> None:
    """Not encoded again: the kept text of each unit the new state shares is the very text
    kept for the state before; the moved unit's is new."""
    before = _changed(_STATE, ("same", None, None))
    state_text(before)
    after = _changed(before, ("move", 3, _HEXES[0]))
    assert state_text(after, before) == encode_state(after)
    kept_before = statetext._KEPT.peek(before)
    kept_after = statetext._KEPT.peek(after)
    assert kept_before is not None and kept_after is not None
    shared = [i for i, u in enumerate(after.units) if u is before.units[i]]
    assert len(shared) == len(after.units) - 1
    for i in shared:
        assert kept_after.texts[0][i] is kept_before.texts[0][i]
    assert kept_after.pieces is kept_before.pieces  # the other fields shared too


# -- where the short way is not taken -------------------------------------------------------


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    units: list[int] = Field(default_factory=list)


class _Wider(_Item):
    extra_field: int = 7


class _Nested(BaseModel):
    units: list[_Item] = Field(default_factory=list)


class _State(BaseModel):
    first: _Nested = Field(default_factory=_Nested)
    units: list[_Item] = Field(default_factory=list)
    tail: int = 0


class _Flat(BaseModel):
    units: list[_Item] = Field(default_factory=list)
    tail: int = 0


class _Aliased(BaseModel):
    units: list[_Item] = Field(default_factory=list, serialization_alias="pieces")


def test_an_item_of_a_subclass_is_encoded_as_the_list_does() -> None:
    """The list's serializer writes a subclass instance as the declared model (no
    ``extra_field``); encoded alone it would be written as itself."""
    before = _Flat(units=[_Item(name="a"), _Item(name="b")])
    state_text(before)
    assert statetext._KEPT.peek(before) is not None  # the short way is taken for this class
    after = replaced(before, {"units": [before.units[0], _Wider(name="c")]})
    assert state_text(after, before) == encode_state(after)
    assert b"extra_field" not in state_text(after, before)
    fresh = _Flat(units=[_Wider(name="d")])
    assert state_text(fresh) == encode_state(fresh)


def test_a_nested_key_of_the_same_name_is_not_taken_for_the_list() -> None:
    state = _State(first=_Nested(), units=[_Item(name="a", units=[1])], tail=1)
    assert state_text(state) == encode_state(state)
    after = replaced(state, {"units": [*state.units, _Item(name="b")]})
    assert state_text(after, state) == encode_state(after)


def test_an_aliased_list_is_encoded_whole() -> None:
    state = _Aliased(units=[_Item(name="a")])
    assert state_text(state) == encode_state(state)
    assert statetext._fields(_Aliased) == ()


class _Computed(BaseModel):
    units: list[_Item] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def count(self) -> int:
        return len(self.units)


class _ExcludedIf(BaseModel):
    turn: int = 1
    units: list[_Item] = Field(default_factory=list, exclude_if=lambda v: len(v) > 1)


class _Extra(BaseModel):
    model_config = ConfigDict(extra="allow")
    units: list[_Item] = Field(default_factory=list)


@pytest.mark.parametrize(
    "before",
    [
        _Computed(units=[_Item(name="a")]),
        _ExcludedIf(units=[_Item(name="a")]),
        _Extra(units=[_Item(name="a")], note="one"),
    ],
    ids=["computed field", "exclude_if", "extra allowed"],
)
def test_a_state_whose_text_is_not_its_fields_is_encoded_whole(before: Any) -> None:
    """A computed field (of the lists), a list left out by its value, an extra value: the
    text of the other fields cannot be kept apart from the lists."""
    state_text(before)
    units = [*before.units, _Item(name="b")]
    after = before.model_copy(update={"units": units, "note": "two"})
    assert state_text(after, before) == encode_state(after)


class _AliasedItem(BaseModel):
    from_: str = Field(alias="from")


class _HoldsAliased(BaseModel):
    units: list[_Item] = Field(default_factory=list)
    by_hex: dict[str, list[_AliasedItem]] = Field(default_factory=dict)


def test_a_state_with_an_alias_anywhere_is_not_viewed_from_its_text() -> None:
    """The view is the state's dump (no aliases), the text is written with them."""
    assert statetext.aliased(_Aliased)
    assert statetext.aliased(_HoldsAliased)
    assert not statetext.aliased(_Flat)
    assert not statetext.aliased(_State)
    state = _HoldsAliased(by_hex={"a": [_AliasedItem.model_validate({"from": "x"})]})
    assert b'"from"' in state_text(state)
    assert "from_" in json.dumps(state.model_dump(mode="json"))


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_no_ruleset_state_is_aliased(ruleset_id: str) -> None:
    """Each ruleset's state is viewed from its text (the short way is in use)."""
    case = next(c for c in load_cases(ruleset_id) if "invalid_scenario" not in c.data)
    _rs, _options, _board, state = _setup(case)
    assert not statetext.aliased(type(state))


def _units_state(units: int) -> tuple[Any, Any]:
    """A ``zoc`` state of ``units`` units (no markers) and the state after its first unit moved."""
    rs = registry.get("zoc")
    _board, state = rs.setup(rs.parse_scenario(zoc_scenario(20, units - 2)), rs.parse_options({}))
    assert len(state.units) == units and not state.markers
    first = state.units[0]
    new = replaced(state, {"units": [replaced(first, {"hex": None}), *state.units[1:]]})
    return state, new


def test_a_small_state_is_encoded_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(statetext, "WHOLE_BELOW", 16)
    state, new = _units_state(15)
    assert state_text(state) == encode_state(state)
    assert state_text(new, state) == encode_state(new)
    assert statetext._KEPT.peek(state) is None and statetext._KEPT.peek(new) is None


def test_a_state_of_whole_below_items_is_put_together(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(statetext, "WHOLE_BELOW", 16)
    state, new = _units_state(16)
    assert state_text(state) == encode_state(state)
    assert state_text(new, state) == encode_state(new)
    assert statetext._KEPT.peek(new) is not None
