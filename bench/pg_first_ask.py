"""The first ``reachable`` ask after a write on PostgreSQL, in process (service calls).

On a throwaway PostgreSQL cluster, six games on the 100x100 map with 500 enemies: three
units asked (the state's index built), the mover's move submitted, then the CPU time of the
first ``reachable`` of another unit of the side on the state the service kept for the new
version (parsed back from ``jsonb``; with ``app.rules.memo.adopt`` it has the index the move
handed on). ``ROOT`` is the checkout whose application is measured: alternate two of them to
compare (docs/PERFORMANCE.md, issue 28, session 9).

Run: ``python bench/pg_first_ask.py ROOT``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path


def main(root: str) -> None:
    sys.path.insert(0, root)
    sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
    from app.db.engine import make_engine, make_session_factory
    from app.db.migrate import upgrade
    from app.db.uow import SqlAlchemyUnitOfWork
    from app.runtime import tune_gc
    from app.service import actions, games, queries
    from app.service.boards import BoardCache
    from app.service.pipeline import IfMatch, WriteRequest
    from bench.scenarios import mover_step, zoc_scenario
    from tests.support.postgres import start_cluster

    cluster = start_cluster()
    try:
        url = cluster.url(cluster.create_database("first_ask"))
        upgrade(url)
        engine = make_engine(url)
        uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
        boards = BoardCache()
        tune_gc()  # as the server runs
        doc = zoc_scenario(100, 500)
        move = {"kind": "move", "unit": "mover", "path": mover_step(doc)}
        out = []
        for _ in range(6):
            game = games.create_game(uow, ruleset_id="zoc", scenario=doc, boards=boards)
            gid = game.id
            for unit in ("ax-0", "ax-1", "mover"):
                queries.run_query(uow, gid, "reachable", {"unit": unit}, token=None, boards=boards)
            req = WriteRequest(
                uow, gid, game.seats["umpire"], IfMatch(frozenset({1})), None, boards, None
            )
            actions.submit_action(req, actions.SubmitAction(move))
            started = time.process_time()
            queries.run_query(uow, gid, "reachable", {"unit": "ax-0"}, token=None, boards=boards)
            out.append((time.process_time() - started) * 1000)
        print(
            f"{root}: first reachable after a write "
            + " ".join(f"{x:.2f}" for x in out)
            + f" ms; median of the last five {statistics.median(out[1:]):.2f} ms"
        )
    finally:
        cluster.stop()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parents[1]))
