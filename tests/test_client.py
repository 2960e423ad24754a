"""The Python client against the real server over a socket, on both databases."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.client import ProblemError, RefereeClient, StreamEvent
from app.config import Settings
from app.main import create_app
from tests.support.server import running_server

SEED_EXAMPLE = Path(__file__).resolve().parents[1] / "scenarios" / "zoc" / "seed-example.json"
MOVE = {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]}


@pytest.fixture
def base_url(db_url: str) -> Iterator[str]:
    app = create_app(Settings(database_url=db_url, sse_keepalive_seconds=0.2))
    with running_server(app) as url:
        yield url
    app.state.engine.dispose()


def test_client_plays_the_seed_example(base_url: str) -> None:
    with RefereeClient(base_url) as referee:
        assert "zoc" in {r["id"] for r in referee.rulesets()}
        game = referee.create_game("zoc", json.loads(SEED_EXAMPLE.read_text()))
        axis = referee.seat(game.id, game.seats["axis"])

        ruling = axis.dry_run(MOVE)
        assert ruling["legal"] is True
        assert [e["hex"] for e in ruling["effects"] if e["kind"] == "zoc.must_stop"] == ["e3307"]

        accepted = axis.submit(MOVE)
        assert accepted["version"] == 2 and axis.etag == 'W/"2"'

        # de-inf-1 now stands in e3307 and negates the EZOC there for de-inf-2 (8.1)
        follow = {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307", "e3408"]}
        assert axis.dry_run(follow)["legal"] is True

        # an illegal action raises with the ruling attached, nothing written
        with pytest.raises(ProblemError) as err:
            axis.submit({"kind": "move", "unit": "de-inf-2", "path": ["e3306"]})
        assert err.value.status == 422 and err.value.ruling is not None
        assert err.value.ruling["legal"] is False

        # a stale ETag is a 412 problem
        stale = referee.seat(game.id, game.seats["axis"])
        stale.etag = 'W/"1"'
        with pytest.raises(ProblemError) as err:
            stale.submit(follow)
        assert (err.value.status, err.value.code) == (412, "precondition.stale")

        zmap = referee.seat(game.id, None).query("ezoc-map", side="axis")
        result = zmap.get("result", zmap)
        assert "e3206" not in result["hexes"]
        assert [e["kind"] for e in axis.events()] == ["move"]


def test_client_reads_the_live_stream(base_url: str) -> None:
    with RefereeClient(base_url) as referee:
        game = referee.create_game("zoc", json.loads(SEED_EXAMPLE.read_text()))
        axis = referee.seat(game.id, game.seats["axis"])
        seen: list[StreamEvent] = []
        done = threading.Event()

        def read() -> None:
            for event in referee.seat(game.id, None).stream():
                seen.append(event)
                if len(seen) == 2:
                    done.set()
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        axis.submit(MOVE)
        axis.submit({"kind": "move", "unit": "de-inf-2", "path": ["e3207"]})
        assert done.wait(15), f"stream delivered {seen!r}"
        assert [(e.id, e.event) for e in seen] == [("1", "move"), ("2", "move")]
        assert seen[0].data["ruling"]["legal"] is True
