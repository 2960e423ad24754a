"""Issue 28: a game row read straight on the driver hands its option documents on as their
stored JSON text (SQLite), decoded on first access only; the service validates the ruleset's
and the match's options once per text, shared by every request -- and every game -- whose
row holds the same text. PostgreSQL's driver decodes the documents itself: no text, the
same options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import text

from app.db.engine import make_engine, make_session_factory
from app.db.repository import GameRecord
from app.db.uow import SqlAlchemyUnitOfWork
from app.rules import registry
from app.service import games as uc
from app.service import match as mt
from app.service.boards import BoardCache
from app.service.pipeline import load_game
from tests.support.tiny import TINY

ZOC_SEED = json.loads((Path(__file__).parents[2] / "scenarios/zoc/seed-example.json").read_text())


def _create(
    url: str, options: dict[str, Any], match: dict[str, Any] | None, ruleset: str = TINY.id
) -> str:
    engine = make_engine(url)
    try:
        created = uc.create_game(
            SqlAlchemyUnitOfWork(make_session_factory(engine)),
            ruleset_id=ruleset,
            scenario=ZOC_SEED if ruleset == "zoc" else TINY.example_scenario() or {},
            options=options,
            match=match,
        )
    finally:
        engine.dispose()
    return created.id


def _records(url: str, ids: list[str]) -> list[GameRecord]:
    """Each game's record as a read's direct statement reads it (left undecoded)."""
    engine = make_engine(url)
    try:
        uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
        out = []
        with uow.begin(direct=True):
            for game_id in ids:
                found = uow.games.get(game_id)
                assert found is not None
                assert isinstance(found[0], GameRecord)
                out.append(found[0])
        return out
    finally:
        engine.dispose()


def test_option_documents_are_decoded_on_first_access(db_url: str) -> None:
    timed = {"clock": {"budget_seconds": 3600, "on_expiry": "notify_umpire"}}
    game_id = _create(db_url, {"wrap": True}, timed)
    (record,) = _records(db_url, [game_id])
    sqlite = db_url.startswith("sqlite")
    for name in ("options", "match"):
        stored = getattr(record, f"{name}_text")
        if not sqlite:
            assert stored is None  # psycopg hands the document on decoded
            continue
        assert isinstance(stored, str)
        decoded = getattr(record, name)
        assert decoded == json.loads(stored)
        assert getattr(record, f"{name}_text") == stored  # still the key of its options
        assert getattr(record, name) is decoded  # decoded once, kept
    assert record.options == {"wrap": True}
    assert mt.options_of(record).clock is not None
    assert mt.options_of(record).clock == mt.MatchOptions.model_validate(timed).clock


def test_games_with_the_same_option_texts_share_their_validated_options(db_url: str) -> None:
    timed = {"clock": {"budget_seconds": 60, "on_expiry": "notify_umpire"}}
    reading = {"reserve_negation": True}
    first = _create(db_url, reading, None, "zoc")
    same = _create(db_url, reading, None, "zoc")
    other = _create(db_url, {}, timed, "zoc")
    unfrozen = _create(db_url, {"wrap": True}, None)
    again_unfrozen = _create(db_url, {"wrap": True}, None)
    engine = make_engine(db_url)
    try:
        uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
        boards = BoardCache()
        with uow.begin(direct=True):
            loaded = {
                game_id: load_game(uow, game_id, boards)
                for game_id in (first, same, other, unfrozen, again_unfrozen)
            }
    finally:
        engine.dispose()
    ruleset = registry.get("zoc")
    assert loaded[first].options == ruleset.parse_options(reading)
    assert loaded[other].options == ruleset.parse_options({})
    tiny = registry.get(TINY.id)
    assert loaded[unfrozen].options == tiny.parse_options({"wrap": True})
    # an options model that can be changed in place is never shared between games
    assert not tiny.options_model.model_config.get("frozen")
    assert loaded[unfrozen].options is not loaded[again_unfrozen].options
    rows = _records(db_url, [first, same, other])
    matches = [mt.options_of(row) for row in rows]
    assert matches[0] == matches[1] == mt.MatchOptions()
    assert matches[2] == mt.MatchOptions.model_validate(timed)
    assert ruleset.options_model.model_config.get("frozen")  # shared only when frozen
    if db_url.startswith("sqlite"):  # one validation per text: the same options object
        assert loaded[first].options is loaded[same].options
        assert loaded[first].options is not loaded[other].options
        again = _records(db_url, [first, other])
        assert mt.options_of(again[0]) is matches[0]
        assert mt.options_of(again[1]) is matches[2]


def test_a_document_stored_as_a_json_string_is_decoded_once(db_url: str) -> None:
    """A match document that is itself a JSON string (no API stores one, a hand-edited row
    might) decodes to that string, and stays decoded: the record tells its text from its
    value by whether it was decoded, not by the value's type."""
    game_id = _create(db_url, {"wrap": True}, None)
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                text("UPDATE games SET match = :m WHERE id = :id"),
                {"m": json.dumps("odd"), "id": game_id},
            )
    finally:
        engine.dispose()
    (record,) = _records(db_url, [game_id])
    for _ in range(2):
        value: Any = record.match
        assert value == "odd"
