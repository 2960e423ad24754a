"""The mailer's decisions before anything is sent (cancelled, skipped over the cap), the
message it builds, and REFEREE_SMTP_URL -- without a running worker (both databases)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import Settings
from app.db.models import EmailSubscriptionRow, WebhookDeliveryRow
from app.db.uow import SqlAlchemyUnitOfWork
from app.main import create_app
from app.service import mailer, smtp
from tests.support.tiny import TINY

PUBLIC = "https://referee.example"


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    settings = Settings(
        database_url=db_url,
        webhook_worker=False,
        smtp_url="smtp://127.0.0.1:1",
        smtp_from="Referee <referee@referee.example>",
        public_url=PUBLIC,
    )
    app = create_app(settings)
    with TestClient(app) as c:
        yield c
    app.state.engine.dispose()


def _game(client: TestClient) -> dict[str, Any]:
    r = client.post("/games", json={"ruleset": "tiny", "scenario": TINY.example_scenario()})
    assert r.status_code == 201, r.text
    game: dict[str, Any] = r.json()
    return game


def _register(client: TestClient, game: dict[str, Any], seat: str, address: str) -> str:
    r = client.post(
        f"/games/{game['id']}/emails",
        json={"address": address},
        headers={"Authorization": f"Bearer {game['seats'][seat]}"},
    )
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def _uow(client: TestClient) -> SqlAlchemyUnitOfWork:
    return SqlAlchemyUnitOfWork(client.app.state.session_factory)  # type: ignore[attr-defined]


def _confirm_row(client: TestClient, sub_id: str) -> str:
    uow = _uow(client)
    with uow.begin():
        stmt = select(WebhookDeliveryRow.id).where(WebhookDeliveryRow.subscription_id == sub_id)
        return str(uow.games.session.execute(stmt).scalar_one())


def _config(per_hour: int = 6) -> mailer.MailConfig:
    return mailer.MailConfig(
        smtp_url="smtp://127.0.0.1:1",
        sender="Referee <referee@referee.example>",
        public_url=PUBLIC,
        timeout=1,
        per_hour=per_hour,
    )


def test_a_confirmation_of_an_unsubscribed_address_is_cancelled(client: TestClient) -> None:
    game = _game(client)
    sub_id = _register(client, game, "red", "red@example.org")
    uow = _uow(client)
    with uow.begin(write=True):
        row = uow.games.session.get(EmailSubscriptionRow, sub_id)
        assert row is not None
        row.status = "unsubscribed"
        uow.commit()
    outcome = mailer.attempt(lambda: _uow(client), _config(), _confirm_row(client, sub_id))
    assert (outcome.final, outcome.status) == ("cancelled", None)


def test_the_cap_counts_the_emails_written_before(client: TestClient) -> None:
    first = _register(client, _game(client), "red", "same@example.org")
    second = _register(client, _game(client), "blue", "same@example.org")
    factory = lambda: _uow(client)  # noqa: E731
    outcome = mailer.attempt(factory, _config(per_hour=1), _confirm_row(client, second))
    assert outcome.final == "skipped" and "already had 1 emails" in str(outcome.error)
    # the first was written first: it goes (and fails here, nothing listens on port 1)
    outcome = mailer.attempt(factory, _config(per_hour=1), _confirm_row(client, first))
    assert outcome.final is None and outcome.error is not None and outcome.status is None


def test_the_confirmation_message_and_its_token(client: TestClient) -> None:
    game = _game(client)
    sub_id = _register(client, game, "red", "red@example.org")
    uow = _uow(client)
    with uow.begin():
        session = uow.games.session
        sub = session.get(EmailSubscriptionRow, sub_id)
        row = session.get(WebhookDeliveryRow, _confirm_row(client, sub_id))
        assert sub is not None and row is not None
        message = mailer.compose(row, sub, _config(), confirm_token="TOKEN123")
        unsubscribe = sub.unsubscribe_token
    assert message["To"] == "red@example.org"
    assert message["List-Unsubscribe"] == f"<{PUBLIC}/v1/email/unsubscribe/{unsubscribe}>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    body = message.get_content()
    assert f"{PUBLIC}/v1/email/confirm/TOKEN123" in body
    assert game["seats"]["red"] not in message.as_string()


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
def test_smtp_urls(db_url: str) -> None:
    plain = smtp.parse_url("smtp://relay.example")
    assert (plain.host, plain.port, plain.tls, plain.starttls, plain.user) == (
        "relay.example",
        25,
        False,
        False,
        None,
    )
    submission = smtp.parse_url("smtp://us%40er:p%3Ass@mail.example:587?starttls=true")
    assert (submission.port, submission.starttls, submission.user, submission.password) == (
        587,
        True,
        "us@er",
        "p:ss",
    )
    assert "p:ss" not in repr(submission)
    implicit = smtp.parse_url("smtps://u:p@mail.example")
    assert (implicit.port, implicit.tls) == (465, True)
    for bad in ("http://mail.example", "smtp://", "smtps://h?starttls=true", "smtp://h:99999"):
        with pytest.raises(smtp.BadSmtpURL):
            smtp.parse_url(bad)
    with pytest.raises(ValueError, match="REFEREE_SMTP_URL"):
        Settings(database_url=db_url, smtp_url="http://mail.example")
    with pytest.raises(ValueError, match="REFEREE_SMTP_FROM"):
        Settings(database_url=db_url, smtp_from="not an address")


def test_the_appeal_messages(client: TestClient) -> None:
    """An appeal's email tells the umpire which event is appealed; a decision's tells the
    appellant the outcome; neither carries the note."""
    game = _game(client)
    sub_id = _register(client, game, "blue", "blue@example.org")
    uow = _uow(client)
    with uow.begin():
        sub = uow.games.session.get(EmailSubscriptionRow, sub_id)
        assert sub is not None
        base = {"game": game["id"], "seat": "blue", "event": 2, "version": 3, "position": None}
        appealed = WebhookDeliveryRow(
            channel="email",
            notification="appeal",
            created_at=datetime.now(UTC),
            payload={**base, "type": "appeal", "appeal": 2, "appealed_event": 1},
        )
        decided = WebhookDeliveryRow(
            channel="email",
            notification="appeal_decided",
            created_at=datetime.now(UTC),
            payload={**base, "type": "appeal_decided", "appeal": 2, "outcome": "overridden"},
        )
        to_umpire = mailer.compose(appealed, sub, _config())
        to_appellant = mailer.compose(decided, sub, _config())
    assert to_umpire["Subject"].startswith("A ruling is appealed in game")
    assert "the ruling of event 1" in to_umpire.get_content()
    assert to_appellant["Subject"].startswith("Your appeal was decided in game")
    assert "decided appeal 2" in to_appellant.get_content()
    assert "overridden" in to_appellant.get_content()
