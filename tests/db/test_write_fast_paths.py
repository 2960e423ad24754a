"""Issue 11: the shortcuts of the write path give the answers of the long way.

* ``jsonsafe``: the quick check every write's documents go through never passes a document
  the full walk (which names locations) would refuse, and passes the documents games write;
* ``json_reuse``: inside the block a document stored in two columns is encoded once, to the
  same text; outside it nothing is remembered;
* ``fine_text``: the check of a large state on its JSON text never passes a document the walk
  would refuse, and passes a 500-unit game state;
* the state a write keeps for the next request is the state a reader would parse from the
  database (both databases hand a state document back as written: PostgreSQL's state columns
  are ``json`` since migration 0014), only the latest version of a game is kept, and nothing
  is kept of a write that did not commit.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sqlalchemy.exc import IntegrityError

from app.db.engine import JSON_SERIALIZER, json_reuse, make_engine, make_session_factory
from app.db.models import EventRow, GameRow, NewEvent
from app.db.uow import SqlAlchemyUnitOfWork
from app.rules import registry
from app.service import actions, games, jsonsafe
from app.service.boards import BoardCache
from app.service.errors import PreconditionFailed
from app.service.jsonsafe import MAX_INT, _fine, _walk, checked_text, fine_text, unsafe_values
from app.service.pipeline import IfMatch, WriteRequest

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),  # NUL and lone surrogates included
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=30,
)
storable_text = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"))
clean = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-MAX_INT, max_value=MAX_INT),
        st.floats(allow_nan=False, allow_infinity=False),
        storable_text,
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(storable_text, inner, max_size=4),
    ),
    max_leaves=30,
)


@given(documents)
def test_the_quick_check_never_passes_what_the_walk_refuses(doc: Any) -> None:
    if _fine(doc):
        assert _walk(doc, ()) == []
    assert unsafe_values(doc) == _walk(doc, ())


@given(clean)
def test_the_quick_check_passes_storable_documents(doc: Any) -> None:
    assert _fine(doc)


def test_deep_nesting_is_left_to_the_walk() -> None:
    doc: Any = 1
    for _ in range(70):
        doc = [doc]
    assert not _fine(doc)
    assert [e.type for e in unsafe_values(doc)] == ["json.too_deep"]


def test_a_document_stored_twice_is_encoded_once() -> None:
    state = {"units": {"a": {"hex": "0101", "steps": [1, 2.5]}}, "turn": 3}
    with json_reuse():
        first = JSON_SERIALIZER(state)
        again = JSON_SERIALIZER(state)
        other = JSON_SERIALIZER(dict(state))  # an equal but different object: encoded anew
    assert first is again and first == json.dumps(state) and other == first
    assert other is not first
    assert JSON_SERIALIZER(state) is not first  # outside the block nothing is kept


@given(documents)
def test_the_text_check_never_passes_what_the_walk_refuses(doc: Any) -> None:
    text = checked_text(doc)
    if text is not None:
        assert _walk(doc, ()) == []
        assert json.loads(text) == doc  # the stored text gives the document back


plain_text = st.text("abcxyz éÉßœ漢字🙂-_ ", max_size=20)
plain = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**15) + 1, max_value=10**15 - 1),
        st.integers(min_value=-8000, max_value=8000).map(lambda n: n / 8),  # short decimals
        plain_text,
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(plain_text, inner, max_size=4)
    ),
    max_leaves=30,
)


@given(st.dictionaries(plain_text, plain, max_size=6))
def test_the_text_check_passes_plain_documents(doc: dict[str, Any]) -> None:
    """Nothing the quick check is wary of (short texts in any script, numbers well inside
    2**53, shallow): it passes, and the text gives the document back."""
    text = checked_text(doc)
    assert text is not None and json.loads(text) == doc


@given(st.lists(st.text("abc", min_size=1, max_size=3), min_size=1, max_size=80))
@example(["a"] * 32)  # 64 levels: the deepest the text check passes
@example(["a"] * 33)  # 66 levels: one pass used to drop `[]` and then `{}`, two levels at once
def test_deep_or_long_documents_go_to_the_walk(keys: list[str]) -> None:
    deep: Any = "x"
    for key in keys:
        deep = {key: [deep]}  # two levels of nesting per key
    shallow = len(keys) <= 32
    assert fine_text(JSON_SERIALIZER(deep)) == shallow and (_walk(deep, ()) == []) == shallow
    long = {"k": ["y" * 10_001]}
    assert checked_text(long) is None and unsafe_values(long)[0].location == "/k/0"


@pytest.mark.parametrize("value", [None, [], {}, [None], 0, "", {"a": None}, [[]]])
def test_the_json_columns_write_what_json_dumps_writes(value: Any) -> None:
    """The engine's serializer's short ways (null, an empty list) give json.dumps' text."""
    assert JSON_SERIALIZER(value) == json.dumps(value, allow_nan=False)
    with json_reuse():
        assert JSON_SERIALIZER(value) == json.dumps(value, allow_nan=False)


def _nests_within(brackets: bytes, depth: int) -> bool:
    """The text check's reading of brackets, made the slow way: pairs taken out one level a
    pass (one substitution of every adjacent pair), ``depth`` passes at most."""
    for _ in range(depth):
        if not brackets:
            return True
        brackets = re.sub(rb"\[\]|\{\}", b"", brackets)
    return not brackets


brackets = st.text("[]{}", max_size=200).map(str.encode)


@given(brackets | st.builds(lambda n, kind: kind[:1] * n + kind[1:] * n, st.integers(60, 70),
                            st.sampled_from([b"[]", b"{}"])))  # fmt: skip
@example(b"[" * 64 + b"]" * 64)  # 64 levels, 128 brackets: passed
@example(b"[" * 65 + b"]" * 65)  # 65 levels: refused
@example(b"{[]}" * 3 + b"[{]}")  # paired by count, not by kind
def test_the_text_check_reads_brackets_as_the_passes_do(text: bytes) -> None:
    """Few brackets are only checked to pair up (two replaces a round): the same answer as
    the passes one level at a time, at every length, the deepest passed 64 levels."""
    assert jsonsafe._balanced(text) == _nests_within(text, len(text))
    assert fine_text(b'{"a":' + text + b"}") == _nests_within(b"{" + text + b"}", 64)


def _units(n: int) -> dict[str, Any]:
    return {
        "turn": 3,
        "weather": {"axis": "clear", "soviet": "mud"},
        "units": [
            {"id": f"su-{i}", "side": "soviet", "steps": 2, "hex": f"{i % 100:02d}{i // 100:02d}"}
            for i in range(n)
        ],
    }


def test_the_text_check_passes_a_large_game_state() -> None:
    doc = _units(500)
    text = checked_text(doc)
    assert text is not None and json.loads(text) == doc
    doc["units"][7]["name"] = "Général Étienne"  # UTF-8 text passes the check too
    assert json.loads(checked_text(doc) or "null") == doc
    doc["units"][8]["strength"] = float("inf")
    assert checked_text(doc) is None
    assert [e.location for e in unsafe_values(doc)] == ["/units/8/strength"]
    del doc["units"][8]["strength"]
    doc["units"][250]["name"] = "bad\x00name"
    assert checked_text(doc) is None
    assert [e.location for e in unsafe_values(doc)] == ["/units/250/name"]


ZOC = registry.get("zoc")


def _zoc_game(db_url: str, boards: BoardCache) -> tuple[Any, Any]:
    engine = make_engine(db_url)
    created = games.create_game(
        SqlAlchemyUnitOfWork(make_session_factory(engine)),
        ruleset_id="zoc",
        scenario=ZOC.example_scenario() or {},
        boards=boards,
    )
    return engine, created


def _umpire_submits(
    factory: Any, created: Any, action: dict[str, Any], version: int, boards: BoardCache
) -> Any:
    return actions.submit_action(
        WriteRequest(
            SqlAlchemyUnitOfWork(factory),
            created.id,
            token=created.seats["umpire"],
            if_match=IfMatch(versions=frozenset({version})),
            idempotency_key=None,
            boards=boards,
            now=None,
        ),
        actions.SubmitAction(action),
    )


def test_the_database_hands_a_state_back_as_it_was_written(db_url: str) -> None:
    """Key order, number types and text as written, on both databases (migration 0014: not
    ``jsonb``, which orders keys shorter first and prints 1e16 as an integer)."""
    engine, created = _zoc_game(db_url, BoardCache())
    factory = make_session_factory(engine)
    try:
        doc = {
            "zz": 1,
            "a": {"bbb": [{"é": 1, "e": 2, "ab": 3, "b": 4}], "aa": None, "c": True},
            "é": "x",
            "b": 2,
            "ä": 0,
            "n": [2.5, 1e16, -3e20, 1e-07, 2.0, 7],
        }
        uow = SqlAlchemyUnitOfWork(factory)
        with uow.begin(write=True):
            assert uow.games.advance(created.id, expected_version=1, state=doc, status="active")
            uow.commit()
        with SqlAlchemyUnitOfWork(factory) as uow:
            back = uow.session.get_one(GameRow, created.id).state
        assert json.dumps(back) == json.dumps(doc) and back == doc
    finally:
        engine.dispose()


def test_the_statements_a_write_runs_on_the_driver_write_what_the_orm_reads(
    db_url: str,
) -> None:
    """The game row's conditional UPDATE and the event's INSERT run straight on the driver
    (session 10): what they write is what the ORM reads back, every column; a stale version
    matches no row; a second event of one seq is SQLAlchemy's ``IntegrityError`` (what the
    write frame catches to answer a lost race) and leaves nothing written."""
    engine, created = _zoc_game(db_url, BoardCache())
    factory = make_session_factory(engine)
    try:
        uow = SqlAlchemyUnitOfWork(factory)
        clock: dict[str, Any] = {"running": None, "expired": [], "remaining": {"axis": 12.5}}
        when = datetime(2026, 12, 6, 6, 30, 1, 250000, tzinfo=UTC)
        event = NewEvent(
            game_id=created.id,
            seq=1,
            seat="umpire",
            kind="place_unit",
            action={"kind": "place_unit", "unit": "é"},
            ruling={"legal": True, "summary": "ä", "n": 2.5},
            dice=[],
            version=2,
            idempotency_key="k-1",
            request_digest="d" * 64,
            response=None,
            created_at=when,
            payload=None,
            state_after=None,
            state_delta={"units": {"x": 1}},
            visible_to=None,
            ruleset_version="9.9.9",
        )
        with uow.begin(write=True):
            found = uow.games.get(created.id, lock=True)
            assert found is not None and found[0].version == 1
            assert not uow.games.advance(
                created.id, expected_version=7, state={"a": 1}, status="active"
            )
            assert uow.games.advance(
                created.id,
                expected_version=1,
                state={"a": [1, "é"]},
                status="active",
                extra={"clock": clock, "dice_counter": 3},
            )
            uow.games.append_event(event)
            uow.commit()
        with SqlAlchemyUnitOfWork(factory) as uow:
            row = uow.session.get_one(GameRow, created.id)
            assert (row.version, row.state, row.clock, row.dice_counter) == (
                2,
                {"a": [1, "é"]},
                clock,
                3,
            )
            stored = uow.games.event(created.id, 1)
            assert stored is not None
            got = {c.key: getattr(stored, c.key) for c in EventRow.__table__.columns}
            got.pop("id")
            assert got["created_at"].replace(tzinfo=UTC) == when
            got["created_at"] = when
            assert got == event.values()
            assert stored.state_delta == {"units": {"x": 1}} and stored.payload is None
        with uow.begin(write=True), pytest.raises(IntegrityError):
            assert uow.games.advance(created.id, expected_version=2, state={}, status="active")
            uow.games.append_event(event)  # seq 1 again
        with SqlAlchemyUnitOfWork(factory) as uow:
            assert uow.session.get_one(GameRow, created.id).version == 2
    finally:
        engine.dispose()


def test_a_write_keeps_the_state_a_reader_parses_and_only_the_latest(db_url: str) -> None:
    boards = BoardCache()
    engine, created = _zoc_game(db_url, boards)
    factory = make_session_factory(engine)
    try:
        version = created.version
        for action in (
            # a new phase records start positions in the order of the units (not by length)
            {"kind": "set_phase", "phase": "operational_movement", "phasing_side": "axis"},
            {"kind": "place_unit", "unit": "de-inf-2", "hex": "e3307"},
        ):
            version = _umpire_submits(factory, created, action, version, boards).version
            kept = [k for k in boards.states._items if k[0] == created.id]
            assert [k[1] for k in kept] == [version]
            with SqlAlchemyUnitOfWork(factory) as uow:  # as a reader elsewhere reads it
                found = uow.games.get(created.id)
                assert found is not None
                parsed = ZOC.load_state(found[0].state)
            cached = boards.states._items[kept[0]][0]
            assert cached.model_dump_json() == parsed.model_dump_json()
            assert len({len(k) for k in parsed.start_positions}) > 1  # kept in the units' order
    finally:
        engine.dispose()


def test_nothing_is_kept_of_a_write_that_does_not_commit(db_url: str) -> None:
    boards = BoardCache()
    engine, created = _zoc_game(db_url, boards)
    factory = make_session_factory(engine)
    try:
        with pytest.raises(PreconditionFailed):  # a stale If-Match: nothing is written
            place = {"kind": "place_unit", "unit": "de-inf-2", "hex": "e3307"}
            _umpire_submits(factory, created, place, created.version + 5, boards)
        assert [k[1] for k in boards.states._items if k[0] == created.id] == [created.version]
        called: list[int] = []
        uow = SqlAlchemyUnitOfWork(factory)
        with uow.begin(write=True):
            uow.after_commit(lambda: called.append(1))
            uow.rollback()
            uow.after_commit(lambda: called.append(2))
        with uow.begin(write=True):
            uow.commit()
        with uow.begin(write=True):
            uow.after_commit(lambda: called.append(3))
            uow.commit()
        assert called == [3]
    finally:
        engine.dispose()
