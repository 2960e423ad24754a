"""Issue 28 item 4: after a write the service keeps the state the ruleset made -- with what
the rules core kept for it, the index ``apply`` handed on from the state before -- so the
first ask after a write is not a cold parse, on PostgreSQL too (its state columns are ``json``
since migration 0014, so the kept state is the one a reader parses; before, it was parsed back
from ``jsonb`` and given the made state's index by ``app.rules.memo.adopt``). The kept state
equals a state parsed afresh, and every answer on it is the answer on that state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app import native
from app.db.engine import make_engine, make_session_factory
from app.db.uow import SqlAlchemyUnitOfWork
from app.rules import memo, registry
from app.service import actions, games, queries
from app.service.boards import BoardCache
from app.service.pipeline import IfMatch, WriteRequest
from tests.support.handoff import small_states_handed_on  # noqa: F401 -- autouse fixture

zoc_index = native.selected("app.rules.zoc.index")  # the build in use


SEED = Path(__file__).resolve().parents[2] / "scenarios/zoc/seed-example.json"
MOVE = {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]}


def test_adopt_keeps_what_every_memo_kept() -> None:
    class Thing:
        def __init__(self, n: int) -> None:
            self.n = n

    doubled = memo.ByIdentity(lambda t: t.n * 2)
    made, equal, other = Thing(3), Thing(3), Thing(4)
    assert doubled(made) == 6 and doubled.peek(equal) is None
    assert memo.adopt(made, equal) >= 1
    assert doubled.peek(equal) == 6 and doubled.peek(made) == 6
    assert memo.adopt(other, equal) == 0  # nothing kept for `other`: nothing changes
    assert doubled.peek(equal) == 6


def _kept(boards: BoardCache, game_id: str, version: int) -> Any:
    for key, (state, _) in boards.states._items.items():
        if key[0] == game_id and key[1] == version:
            return state
    raise AssertionError(f"no state kept for version {version}")


@pytest.mark.parametrize("db_kind", [pytest.param("postgresql", marks=pytest.mark.pg)])
def test_the_index_is_kept_for_the_state_parsed_back(db_url: str) -> None:
    engine = make_engine(db_url)
    uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
    boards = BoardCache()
    try:
        created = games.create_game(
            uow, ruleset_id="zoc", scenario=json.loads(SEED.read_text()), boards=boards
        )
        gid, umpire = created.id, created.seats["umpire"]
        # a front end's asks on version 1: its index is built
        assert actions.dry_run(uow, gid, MOVE, token=None, boards=boards).ruling.legal
        before = _kept(boards, gid, 1)
        assert zoc_index._INDEX_OF.peek(before) is not None
        req = WriteRequest(uow, gid, umpire, IfMatch(frozenset({1})), None, boards, None)
        outcome = actions.submit_action(req, actions.SubmitAction(MOVE))
        assert outcome.version == 2
        kept = _kept(boards, gid, 2)
        ruleset = registry.get("zoc")
        with uow.begin():  # as a reader in another process reads it
            found = uow.games.get(gid)
            assert found is not None
            fresh = ruleset.load_state(found[0].state)
        assert kept == fresh and kept.model_dump_json() == fresh.model_dump_json()
        # what apply handed on (or the index built from it) is there for the kept state
        assert (
            zoc_index._HANDED_ON.peek(kept) is not None
            or zoc_index._INDEX_OF.peek(kept) is not None
        )
        # and every answer on it is the answer on a state parsed afresh
        for unit in ("de-inf-2", "de-inf-1", "de-inf-y"):
            params = {"unit": unit}
            got = queries.run_query(uow, gid, "reachable", params, token=None, boards=boards)
            assert _kept(boards, gid, 2) is kept  # the query ran on the kept state
            cold = BoardCache()
            again = queries.run_query(uow, gid, "reachable", params, token=None, boards=cold)
            assert got.model_dump_json() == again.model_dump_json(), unit
    finally:
        engine.dispose()
