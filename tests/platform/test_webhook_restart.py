"""The webhook outbox survives a restart: deliveries written while no worker runs (as when a
process dies right after the commit) are sent by the next process's worker."""

from __future__ import annotations

import httpx

from app.main import create_app
from tests.platform.conftest import new_game, platform_settings
from tests.platform.test_webhooks_api import deliveries, register, wait_delivered
from tests.support.receiver import webhook_receiver
from tests.support.server import running_server


def test_pending_deliveries_survive_a_restart(db_url: str) -> None:
    with webhook_receiver() as receiver:
        first = create_app(platform_settings(db_url, webhook_worker=False))
        with running_server(first) as url, httpx.Client(base_url=url, timeout=30) as http:
            game = new_game(http, sequence=True)
            hook = register(game, "blue", receiver.url)
            # an illegal action writes nothing, so it notifies nobody
            r = game.write("red", "/actions", {"kind": "step", "pawn": "r1", "n": 10})
            assert r.status_code == 422
            assert deliveries(game, "blue", hook) == []
            ended = game.end_phase("red")
            log = deliveries(game, "blue", hook)
            assert [(d["type"], d["status"], d["attempts"]) for d in log] == [
                ("your_turn", "pending", 0)
            ]
        assert receiver.received == []
        second = create_app(platform_settings(db_url))
        with running_server(second) as url, httpx.Client(base_url=url, timeout=30) as http:
            game.http = http
            wait_delivered(game, "blue", hook, receiver, 1)
            log = deliveries(game, "blue", hook)
    assert [(d["status"], d["attempts"]) for d in log] == [("delivered", 1)]
    payload = receiver.received[0].json()
    assert (payload["type"], payload["event"], payload["id"]) == (
        "your_turn",
        ended["event"],
        log[0]["id"],
    )
