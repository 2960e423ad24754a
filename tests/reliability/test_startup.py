"""Issue 9 item 1: the first concurrent requests after a start are answered right.

A fresh server process gets eight simultaneous first requests (queued on its listening socket
before it even accepts): reading a game, creating a game of a built-in ruleset and listing the
rulesets. Every one must get the answer a warm server gives, not 503 ``ruleset.unavailable``,
422 ``ruleset.unknown`` or an empty list.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from app.db.engine import make_engine, make_session_factory
from app.db.uow import SqlAlchemyUnitOfWork
from app.service.games import create_game
from tests.support.process import server_process

BUILTINS = ["objective-zones", "terrain", "zoc", "zoi"]
SCENARIO = json.loads(
    (Path(__file__).parents[2] / "scenarios" / "zoc" / "seed-example.json").read_text()
)


def _zoc_game(db_url: str) -> str:
    engine = make_engine(db_url)
    try:
        uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
        return create_game(uow, ruleset_id="zoc", scenario=SCENARIO).id
    finally:
        engine.dispose()


def test_concurrent_first_requests_at_a_fresh_process(db_url: str, tmp_path: Path) -> None:
    game = _zoc_game(db_url)
    for _restart in range(2):
        with server_process(db_url, tmp_path) as server:

            def first(i: int, url: str = server.url) -> tuple[str, int, object]:
                with httpx.Client(base_url=url, timeout=60) as c:
                    if i % 3 == 0:
                        r = c.get(f"/games/{game}")
                        return ("get", r.status_code, r.json().get("ruleset"))
                    if i % 3 == 1:
                        r = c.post("/games", json={"ruleset": "zoc", "scenario": SCENARIO})
                        return ("create", r.status_code, r.json().get("ruleset"))
                    r = c.get("/rulesets")
                    ids = [x["id"] for x in r.json()] if r.status_code == 200 else None
                    return ("list", r.status_code, ids)

            with ThreadPoolExecutor(8) as pool:
                answers = list(pool.map(first, range(8)))
            for kind, status, what in answers:
                if kind == "get":
                    assert (status, what) == (200, "zoc"), answers
                elif kind == "create":
                    assert (status, what) == (201, "zoc"), answers
                else:
                    assert status == 200 and isinstance(what, list), answers
                    assert set(BUILTINS) <= set(what), answers
