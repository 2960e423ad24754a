"""The client's export, verify and import (issue 26), sync and async, against a real server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.client import AsyncRefereeClient, RefereeClient, Unprocessable
from app.client import models as m
from app.config import Settings
from app.main import create_app
from tests.support.server import running_server

ROOT = Path(__file__).resolve().parents[1]
TERRAIN = json.loads((ROOT / "scenarios" / "terrain" / "example.json").read_text())
SKIRMISH = {"kind": "move", "unit": "fr-skirm", "path": [[150, 200]]}
WAGON = {"kind": "move", "unit": "fr-wagon", "path": [[200, 590]]}


@pytest.fixture
def base_url(db_url: str) -> Iterator[str]:
    app = create_app(Settings(database_url=db_url))
    with running_server(app) as url:
        yield url
    app.state.engine.dispose()


def test_export_verify_import_through_the_client(base_url: str) -> None:
    with RefereeClient(base_url) as referee:
        game = referee.create_game("terrain", TERRAIN)
        french = referee.seat(game.id, game.seats["french"])
        umpire = referee.seat(game.id, game.seats["umpire"])
        french.submit(SKIRMISH)
        french.submit(WAGON)
        mine = french.export()
        assert isinstance(mine, m.ExportFile) and mine.dice.seed is None
        partial = referee.verify_export(mine)
        assert isinstance(partial, m.VerifyReport)
        assert partial.ok and not partial.verified_all and partial.seed == "absent"
        with pytest.raises(Unprocessable) as refused:
            referee.import_game(umpire.export())  # the seed is not revealed yet
        assert refused.value.code == "import.unverifiable"
        umpire.reveal_seed()
        file = umpire.export()
        assert file.complete and file.dice.seed is not None
        assert referee.verify_export(file.model_dump(mode="json")).verified_all
        created = referee.import_game(file)
        assert set(created.seats) == {"french", "british", "umpire"}
        moved = referee.seat(created.id, created.seats["french"])
        assert [e.kind for e in moved.events()][-1] == "imported"
        assert moved.game().state == umpire.game().state


def test_the_async_client_exports_and_verifies(base_url: str) -> None:
    async def run() -> None:
        async with AsyncRefereeClient(base_url) as referee:
            game = await referee.create_game("terrain", TERRAIN)
            french = referee.seat(game.id, game.seats["french"])
            await french.submit(SKIRMISH)
            umpire = referee.seat(game.id, game.seats["umpire"])
            file = await umpire.export()
            report = await referee.verify_export(file)
            assert report.ok and report.verified_all  # no dice rolled yet
            created = await referee.import_game(file)
            assert created.ruleset == "terrain" and created.version == 3

    asyncio.run(run())
