"""The delivery worker's idle look at the outbox (issue 28, session 18): the cheap checks
agree with the claim's own query, and on SQLite the look runs on the event loop -- a delivery
nobody woke the worker for (written by another process) is still sent within the poll, while
the worker's thread sleeps until something is due."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy.orm import Session

from app.db.access import AccessRepository, loop_outbox_probe, outbox_probe
from app.db.engine import LoopConnections, make_engine, sqlite_file
from app.db.models import WebhookDeliveryRow
from app.main import create_app
from app.service.delivery import BACKSTOP_SECONDS
from tests.platform.conftest import new_game, platform_settings
from tests.platform.test_webhooks_api import deliveries, register, wait_delivered
from tests.support.receiver import webhook_receiver
from tests.support.server import running_server

T0 = datetime(2026, 12, 7, 12, 0, 0, 123456, tzinfo=UTC)


def _delivery(**kw: object) -> WebhookDeliveryRow:
    values: dict[str, object] = {
        "id": str(uuid.uuid4()),
        "channel": "email",
        "address": "someone@example.org",
        "notification": "your_turn",
        "payload": {"type": "your_turn"},
        "status": "pending",
        "attempts": 0,
        "next_attempt_at": T0,
        "locked_until": None,
        "attempts_log": [],
        **kw,
    }
    return WebhookDeliveryRow(**values)


CASES: dict[str, dict[str, object]] = {
    "due now": {},
    "due at a whole second": {"next_attempt_at": T0.replace(microsecond=0)},
    "lease ends at a whole second": {"locked_until": T0.replace(microsecond=0)},
    "due in a microsecond": {"next_attempt_at": T0 + timedelta(microseconds=1)},
    "due tomorrow": {"next_attempt_at": T0 + timedelta(days=1)},
    "claimed, lease running": {"locked_until": T0 + timedelta(seconds=30)},
    "claimed, lease over": {"locked_until": T0 - timedelta(seconds=1)},
    "claimed, lease ends now": {"locked_until": T0},
    "delivered": {"status": "delivered"},
    "failed": {"status": "failed"},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_idle_checks_agree_with_the_claims_query(db_url: str, case: str) -> None:
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            session.add(_delivery(**CASES[case]))
            session.commit()
        thread_probe = outbox_probe(engine)
        path = sqlite_file(engine.url)
        loop_probe = loop_outbox_probe(engine, LoopConnections(Path(path)) if path else None)
        assert (loop_probe is None) == (engine.dialect.name != "sqlite")
        whole = T0.replace(microsecond=0)
        for now in (T0 - timedelta(seconds=1), whole, T0, T0 + timedelta(microseconds=1)):
            with Session(engine) as session:
                claimable = bool(AccessRepository(session).due(now, limit=1))
            assert thread_probe(now) is claimable, (case, now)
            if loop_probe is not None:
                assert loop_probe(now) is claimable, (case, now)
    finally:
        engine.dispose()


def test_a_delivery_no_one_woke_the_worker_for_is_sent_within_the_poll(db_url: str) -> None:
    app = create_app(platform_settings(db_url))  # poll every 0.1 s
    with (
        webhook_receiver() as receiver,
        running_server(app) as url,
        httpx.Client(base_url=url, timeout=30) as http,
    ):
        game = new_game(http, sequence=True)
        hook = register(game, "blue", receiver.url)
        worker = app.state.webhook_worker
        on_loop = db_url.startswith("sqlite")
        # SQLite: the loop looks every poll; the thread only every BACKSTOP_SECONDS
        assert worker.idle_seconds == (BACKSTOP_SECONDS if on_loop else 0.1)
        # written past this process's commit hooks, as another process would write it
        engine = make_engine(db_url)
        try:
            with Session(engine) as session:
                session.add(
                    _delivery(
                        channel="webhook",
                        webhook_id=hook["id"],
                        address=None,
                        payload={"type": "your_turn", "game": game.id},
                        next_attempt_at=datetime.now(UTC),
                    )
                )
                session.commit()
        finally:
            engine.dispose()
        wait_delivered(game, "blue", hook, receiver, 1)
        log = deliveries(game, "blue", hook)
    assert [(d["status"], d["attempts"]) for d in log] == [("delivered", 1)]
    assert receiver.received[0].json()["game"] == game.id
