"""Issue 28 item 3: the game row's state written at snapshots only (migration 0013).

A write whose event stores a delta leaves ``games.state`` as it is and names, in
``games.state_seq``, the event whose state the row holds; a reader rebuilds the current state
from it and the deltas after it. These tests run the writes as the server does
(``REFEREE_CHECK_KEPT_STATE`` off: the new state is encoded only when something asks for its
text) and read every version back as another process would, with a fresh cache, on both
databases."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Engine, text

from app.db.deltas import StoredChain, apply_to_model
from app.db.engine import make_engine, make_session_factory
from app.db.migrate import alembic_config
from app.db.repository import DirectReads, GameRecord
from app.db.uow import SqlAlchemyUnitOfWork
from app.rules import registry
from app.rules.ruling import Ruling
from app.service import actions, games
from app.service.boards import BoardCache
from app.service.errors import InvalidInput
from app.service.pipeline import IfMatch, WriteRequest, load_stored_state
from tests.support.tiny import Note, TinyRuleset

SEED = Path(__file__).resolve().parents[2] / "scenarios/zoc/seed-example.json"
EVERY = 4
# umpire placements that move a unit back and forth: each event's delta is one unit
HEXES = ("e3307", "e3207")


@pytest.fixture
def as_served(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Writes as the server runs them, with a snapshot every :data:`EVERY` events."""
    monkeypatch.delenv("REFEREE_CHECK_KEPT_STATE", raising=False)
    monkeypatch.setenv("REFEREE_SNAPSHOT_EVERY", str(EVERY))
    yield


def _row(engine: Engine, game_id: str) -> tuple[str, int | None, int]:
    """The game row's stored state (as JSON text, keys sorted), ``state_seq`` and version."""
    with engine.connect() as conn:
        state, seq, version = conn.execute(
            text("SELECT state, state_seq, version FROM games WHERE id = :id"), {"id": game_id}
        ).one()
    doc = json.loads(state) if isinstance(state, str) else state
    return json.dumps(doc, sort_keys=True), seq, version


def _read_fresh(engine: Engine, game_id: str) -> str:
    """The current state as another process reads it (a cold cache), dumped by the ruleset."""
    view = games.get_game(
        SqlAlchemyUnitOfWork(make_session_factory(engine)),
        game_id,
        token=None,
        boards=BoardCache(),
    )
    return json.dumps(view.state, sort_keys=True)


def _dumped(state: Any) -> str:
    return json.dumps(json.loads(state.model_dump_json()), sort_keys=True)


class _Table:
    """A zoc game and its umpire, placing one unit back and forth as the server would (one
    process, its cache); ``states``: each version's state as that process kept it, dumped
    (index 0: version 1)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.boards = BoardCache()
        self.uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
        created = games.create_game(
            self.uow, ruleset_id="zoc", scenario=json.loads(SEED.read_text()), boards=self.boards
        )
        self.id, self.umpire, self.version = created.id, created.seats["umpire"], created.version
        self.states = [_read_fresh(engine, self.id)]

    def place(self) -> None:
        action = {
            "kind": "place_unit",
            "unit": "de-inf-2",
            "hex": HEXES[(len(self.states) - 1) % 2],
        }
        req = WriteRequest(
            self.uow,
            self.id,
            self.umpire,
            IfMatch(frozenset({self.version})),
            None,
            self.boards,
            None,
        )
        self.version = actions.submit_action(req, actions.SubmitAction(action)).version
        kept = [
            s for k, (s, _) in self.boards.states._items.items() if k[:2] == (self.id, self.version)
        ]
        assert len(kept) == 1
        self.states.append(_dumped(kept[0]))


def _play(engine: Engine, n: int) -> tuple[str, list[str]]:
    table = _Table(engine)
    for _ in range(n):
        table.place()
    return table.id, table.states


def test_between_snapshots_the_row_keeps_its_state_and_readers_rebuild_the_current(
    db_url: str, as_served: None
) -> None:
    engine = make_engine(db_url)
    try:
        table = _Table(engine)
        rows = {0: _row(engine, table.id)}
        assert rows[0][1:] == (None, 1)
        for seq in range(1, 2 * EVERY + 2):
            table.place()
            assert table.version == seq + 1
            stored, at, version = _row(engine, table.id)
            assert version == table.version
            fresh = _read_fresh(engine, table.id)
            assert fresh == table.states[-1]  # what a reader rebuilds is what the writer kept
            if seq % EVERY == 0:  # a snapshot: the row holds the state whole again
                assert at is None
                assert stored == fresh
            else:  # a delta: the row keeps the last snapshot's state (or the initial one)
                last = seq - seq % EVERY
                assert at == last
                assert stored == rows[last][0] == table.states[last]
            rows[seq] = (stored, at, version)
    finally:
        engine.dispose()


def test_every_version_reads_back_from_the_row_or_the_log(db_url: str, as_served: None) -> None:
    """A reader that read the game at an older version (PostgreSQL's direct reads run each
    statement on its own snapshot, so a write may commit between the row and its state)
    gets that version's state: from the row's and the deltas after it while the row holds an
    older state, from the log's snapshots (or the initial state) once the row has moved past
    it."""
    engine = make_engine(db_url)
    try:
        game_id, states = _play(engine, 2 * EVERY + 3)
        _, at, version = _row(engine, game_id)
        assert (at, version) == (2 * EVERY, 2 * EVERY + 4)
        ruleset = registry.get("zoc")
        for v in range(1, version + 1):
            reads = DirectReads(engine)
            try:
                doc = reads.document(game_id, "state", v)
            finally:
                reads.close()
            assert _dumped(ruleset.load_state(doc)) == states[v - 1], v
            with SqlAlchemyUnitOfWork(make_session_factory(engine)) as uow:
                found = uow.games.get(game_id)
                assert found is not None
                doc = uow.games._document(game_id, "state", v)
            assert _dumped(ruleset.load_state(doc)) == states[v - 1], v
    finally:
        engine.dispose()


def test_the_downgrade_writes_the_current_state_back_into_the_row(
    db_url: str, as_served: None
) -> None:
    engine = make_engine(db_url)
    try:
        game_id, states = _play(engine, EVERY + 2)
        assert _row(engine, game_id)[1] == EVERY
        count = text("SELECT count(*) FROM events WHERE game_id = :id")
        with engine.connect() as conn:
            events = conn.execute(count, {"id": game_id}).scalar_one()
        assert events == EVERY + 2
        engine.dispose()
        command.downgrade(alembic_config(db_url), "0012")
        with engine.connect() as conn:
            state = conn.execute(
                text("SELECT state FROM games WHERE id = :id"), {"id": game_id}
            ).scalar_one()
            # the column goes without copying `games` (a copy's DROP would cascade)
            assert conn.execute(count, {"id": game_id}).scalar_one() == events
        doc = json.loads(state) if isinstance(state, str) else state
        assert _dumped(registry.get("zoc").load_state(doc)) == states[-1]
        command.upgrade(alembic_config(db_url), "head")
        assert _row(engine, game_id)[1] is None
        assert _read_fresh(engine, game_id) == states[-1]
    finally:
        engine.dispose()


class _LongNotes(TinyRuleset):
    """A ruleset with a bug: a note is stored 60 times over (past the longest text a
    document may hold)."""

    id = "tiny-long-notes"

    def apply(self, board: Any, state: Any, action: Any, ruling: Any) -> Any:
        if isinstance(action, Note):
            return state.model_copy(update={"notes": [*state.notes, action.text * 60]})
        return super().apply(board, state, action, ruling)


def _refused_note(engine: Engine, ruleset_id: str, location: str) -> tuple[str, Any]:
    """A note the buggy ruleset ``ruleset_id`` makes unstorable: refused (422
    ``result.unstorable``) naming ``location``, with nothing written. Returns the game's id
    and a function that submits another note (its text) at the game's next version."""
    boards = BoardCache()
    uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
    scenario = {"length": 10, "pawns": [{"id": "r1", "side": "red", "at": 1}]}
    created = games.create_game(uow, ruleset_id=ruleset_id, scenario=scenario, boards=boards)
    before = _row(engine, created.id)

    def note(note_text: str) -> Any:
        req = WriteRequest(
            uow, created.id, created.seats["red"], IfMatch(frozenset({1})), None, boards, None
        )
        return actions.submit_action(req, actions.SubmitAction({"kind": "note", "text": note_text}))

    with pytest.raises(InvalidInput) as refused:
        note("x" * 200)
    assert refused.value.code == "result.unstorable"
    assert [e.location for e in refused.value.errors] == [location]
    assert _row(engine, created.id) == before
    with engine.connect() as conn:
        n = conn.execute(
            text("SELECT count(*) FROM events WHERE game_id = :id"), {"id": created.id}
        ).scalar_one()
    assert n == 0
    return created.id, note


@pytest.mark.parametrize("every", ["1", str(EVERY)])
def test_a_state_the_ruleset_made_unstorable_is_refused_and_nothing_written(
    db_url: str, as_served: None, monkeypatch: pytest.MonkeyPatch, every: str
) -> None:
    """Snapshot or delta, a value the ruleset computed that cannot be stored is named (422
    ``result.unstorable``) and nothing is written: the delta's own check finds it without
    encoding the whole state."""
    monkeypatch.setenv("REFEREE_SNAPSHOT_EVERY", every)
    registry.register(_LongNotes())
    engine = make_engine(db_url)
    try:
        _refused_note(engine, "tiny-long-notes", "/state/notes/0")
    finally:
        registry.unregister("tiny-long-notes")
        engine.dispose()


class _LongRuling(TinyRuleset):
    """A ruleset with a bug: a note's ruling repeats the note 60 times in its summary (past
    the longest text a document may hold)."""

    id = "tiny-long-ruling"

    def adjudicate(
        self, board: Any, state: Any, action: Any, options: Any, dice: Any = ()
    ) -> Ruling:
        if isinstance(action, Note):
            return Ruling(legal=True, summary=action.text * 60)
        return super().adjudicate(board, state, action, options, dice)


@pytest.mark.parametrize("every", ["1", str(EVERY)])
def test_a_ruling_the_ruleset_made_unstorable_is_refused_and_nothing_written(
    db_url: str, as_served: None, monkeypatch: pytest.MonkeyPatch, every: str
) -> None:
    """The ruling is encoded from its model and checked on its text; one the check is wary
    of is walked as a document, its unstorable value named (422 ``result.unstorable``), and
    nothing is written."""
    monkeypatch.setenv("REFEREE_SNAPSHOT_EVERY", every)
    registry.register(_LongRuling())
    engine = make_engine(db_url)
    try:
        game_id, note = _refused_note(engine, "tiny-long-ruling", "/ruling/summary")
        # a note whose ruling can be stored is: the event holds the ruling's document
        note("short")
        with engine.connect() as conn:
            stored = conn.execute(
                text("SELECT ruling FROM events WHERE game_id = :id"), {"id": game_id}
            ).scalar_one()
        doc = json.loads(stored) if isinstance(stored, str) else stored
        assert doc == Ruling(legal=True, summary="short" * 60).model_dump(mode="json")
    finally:
        registry.unregister("tiny-long-ruling")
        engine.dispose()


def test_a_miss_validates_the_state_the_row_holds_from_its_stored_text(
    db_url: str, as_served: None
) -> None:
    """Where the game row holds the state asked for whole, a read hands its JSON text on as
    stored and the ruleset validates the state straight from it (no document made first);
    the state rebuilt from deltas is a document. Either gives the state the writer kept, and
    the cache weighs a text by its length."""
    engine = make_engine(db_url)
    try:
        table = _Table(engine)
        for _ in range(2 * EVERY):  # the last event is a snapshot: the row holds it whole
            table.place()
        table.place()  # a delta: the row keeps the snapshot's state
        ruleset = registry.get("zoc")
        with engine.connect() as conn:
            column = conn.execute(
                text("SELECT CAST(state AS TEXT) FROM games WHERE id = :id"), {"id": table.id}
            ).scalar_one()
        for version, whole in ((table.version - 1, True), (table.version, False)):
            reads = DirectReads(engine)
            try:
                doc = reads.document(table.id, "state", version)
            finally:
                reads.close()
            assert isinstance(doc, str) is whole, version
            if whole:
                assert doc == column
            assert _dumped(ruleset.load_state(doc)) == table.states[version - 1], version
        # the cache, cold, as another process: weighed by the stored text's length
        reads = DirectReads(engine)
        try:
            at_snapshot = reads.document(table.id, "state", table.version - 1)
        finally:
            reads.close()
        with SqlAlchemyUnitOfWork(make_session_factory(engine)) as uow:
            found = uow.games.get(table.id)
            assert found is not None
            record = found[0]
            assert isinstance(record, GameRecord)
            chain = record.stored_state()  # the current version: the row's text and a delta
            assert isinstance(chain, StoredChain)
            assert chain.text == column and len(chain.deltas) == 1
            assert record.state == chain.document()
            made = load_stored_state(ruleset, chain)  # on the snapshot's model
            assert _dumped(made) == table.states[-1]
            assert made.units[0] is not None
        boards = BoardCache()
        cache_key = (table.id, table.version - 1, "zoc", ruleset.version)
        parsed = boards.state(
            cache_key, lambda: ruleset.load_state(at_snapshot), lambda: at_snapshot
        )
        assert _dumped(parsed) == table.states[-2]
        assert boards.state_size(cache_key) == len(column)
    finally:
        engine.dispose()


def test_a_game_listed_first_on_a_cold_cache_is_read_at_its_current_state(
    db_url: str, as_served: None
) -> None:
    """``GET /games`` reads its games' rows with their seats (ORM rows, whose ``state``
    column is an older state between snapshots): a process whose cache is cold and lists the
    games first keeps, and then serves and writes on, the current state -- rebuilt from the
    deltas -- not the row's older one (found in review, session 15: the listing kept the
    row's state under the current version)."""
    from app.service import holdings

    engine = make_engine(db_url)
    try:
        table = _Table(engine)
        table.place()
        table.place()  # two deltas: the row keeps the initial state (state_seq 0)
        assert _row(engine, table.id)[1] == 0
        fresh = _read_fresh(engine, table.id)
        boards = BoardCache()  # another process, cold
        uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
        holdings.list_games(uow, [table.umpire], boards=boards, limit=10, max_tokens=10)
        view = games.get_game(uow, table.id, token=None, boards=boards)
        assert json.dumps(view.state, sort_keys=True) == fresh == table.states[-1]
        # a write of that process moves another unit: the unit placed before stays placed
        unit = next(u for u in json.loads(fresh)["units"] if u["id"] != "de-inf-2" and u.get("hex"))
        req = WriteRequest(
            uow,
            table.id,
            table.umpire,
            IfMatch(frozenset({table.version})),
            None,
            boards,
            None,
        )
        action = {"kind": "place_unit", "unit": unit["id"], "hex": unit["hex"]}
        actions.submit_action(req, actions.SubmitAction(action))
        after = json.loads(_read_fresh(engine, table.id))

        def placed(doc: dict[str, Any]) -> str:
            return str(next(u["hex"] for u in doc["units"] if u["id"] == "de-inf-2"))

        assert placed(after) == placed(json.loads(fresh)) == HEXES[1]
    finally:
        engine.dispose()


def test_a_miss_between_snapshots_rebuilds_the_state_on_its_snapshot_s_model(
    db_url: str, as_served: None
) -> None:
    """A miss on a version the row's state and the deltas after it make: the snapshot is
    validated from its stored text and the deltas applied to that model, only the changed
    units validated from their documents -- the unchanged ones are the snapshot's own
    objects. The state equals the writer's at every version of a run between snapshots, on
    both databases, and the cache weighs it by the text's and the deltas' lengths."""
    engine = make_engine(db_url)
    try:
        table = _Table(engine)
        for _ in range(EVERY + EVERY - 1):  # a snapshot, then deltas up to the next one
            table.place()
        ruleset = registry.get("zoc")
        for version in range(EVERY + 2, table.version + 1):  # versions after the snapshot
            reads = DirectReads(engine)
            try:
                stored = reads.document(table.id, "stored_state", version)
                whole = reads.document(table.id, "state", version)
            finally:
                reads.close()
            assert isinstance(stored, StoredChain), version
            assert len(stored.deltas) == version - EVERY - 1
            assert isinstance(whole, dict) and whole == stored.document()
            assert _dumped(load_stored_state(ruleset, stored)) == table.states[version - 1]
            snapshot = ruleset.load_state(stored.text)
            made = apply_to_model(snapshot, stored.deltas)
            assert made is not None and _dumped(made) == table.states[version - 1], version
            changed = {i for d in stored.deltas for i, _ in d["items"]["units"]}
            placed = [u.id for u in snapshot.units].index("de-inf-2")
            assert changed == {placed}  # de-inf-2, placed back and forth
            for i, unit in enumerate(made.__dict__["units"]):  # the others: the snapshot's
                assert (unit is snapshot.units[i]) is (i not in changed), (version, i)
        boards = BoardCache()
        cache_key = (table.id, table.version, "zoc", ruleset.version)
        reads = DirectReads(engine)
        try:
            stored = reads.document(table.id, "stored_state", table.version)
        finally:
            reads.close()
        assert isinstance(stored, StoredChain)
        boards.state(cache_key, lambda: load_stored_state(ruleset, stored), lambda: stored)
        assert boards.state_size(cache_key) == stored.size()
    finally:
        engine.dispose()
