"""``referee serve`` serves; a game whose ruleset is gone is 503, not 500."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app import native
from app.db.migrate import upgrade
from app.rules import registry
from tests.api.conftest import Game, new_game
from tests.api.test_games import assert_problem
from tests.support.postgres import free_port
from tests.support.tiny import TinyRuleset


def test_referee_serve(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'serve.db'}"
    upgrade(url)
    port = free_port()
    env = {**os.environ, "REFEREE_DATABASE_URL": url}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from app.cli import main; raise SystemExit(main())",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(proc.stderr.read() if proc.stderr else "") from None
                time.sleep(0.1)
        assert r.json() == {"status": "ok", "database": "ok"}
        assert httpx.get(f"http://127.0.0.1:{port}/openapi.json").status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    # the first line says which build of the zoc search serves (app/native.py)
    assert proc.stderr is not None
    first = proc.stderr.read().decode().splitlines()[0]
    assert first == f"referee: {native.describe()}", first


class Vanishing(TinyRuleset):
    id = "vanishing"


@pytest.mark.anyio
async def test_game_of_an_unregistered_ruleset_is_503(client: httpx.AsyncClient) -> None:
    registry.register(Vanishing())
    try:
        game: Game = await new_game(client, ruleset="vanishing")
    finally:
        registry.unregister("vanishing")
    r = await client.get(f"/games/{game.id}")
    body = assert_problem(r, 503, "ruleset.unavailable")
    assert body["ruleset"] == "vanishing"
