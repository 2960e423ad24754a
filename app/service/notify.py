"""Notifications to per-seat webhooks and email addresses, written to an outbox in the
writing transaction.

:func:`enqueue` is called for every appended event (``pipeline.append_event``), inside the write
transaction: if any webhook is registered for the game, it works out which notifications
the event causes and stages one ``webhook_deliveries`` row per (webhook, notification) --
and per (confirmed email subscription, notification): channel ``email``. The
rows commit or roll back with the event, so a notification is never sent for a write that
did not happen, and never lost for one that did (they survive a restart). The delivery worker
(:mod:`app.service.delivery`) sends them after the commit.

Notifications (``type``):

* ``your_turn`` -- the seat is now waited for and was not before the event (its phase
  began, or a sealed decision it takes part in opened);
* ``sealed_revealed`` -- a sealed decision's orders were revealed (to every seat);
* ``game_finished`` -- the game ended (to every seat);
* ``ruleset_upgraded`` -- the umpire moved the game to another ruleset version (to every
  seat; the payload names ``from`` and ``to``);
* ``appeal`` -- a side appealed a ruling (to the umpire; the payload names the ``appeal``
  and the appealed ``appealed_event``);
* ``appeal_decided`` -- the umpire decided an appeal (to the appellant; the payload names
  the ``appeal`` and its ``outcome``).

A payload names the game, the event's sequence number and version and the position; never
any content the seat could not read: the receiver fetches details with its own token. When
the public URL is set (``REFEREE_PUBLIC_URL``), the payload sent carries ``links``: the game's
console page and API resource (:func:`with_links`, added when sent, so a changed public URL
applies to retries too).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.db.access import access
from app.db.models import EventRow, NewEvent, WebhookDeliveryRow
from app.db.uow import AbstractUnitOfWork
from app.links import game_links
from app.rules.base import UMPIRE, Ruleset
from app.service import match as mt
from app.service.turns import awaited

AnyRuleset = Ruleset[Any, Any, Any, Any]

YOUR_TURN = "your_turn"
SEALED_REVEALED = "sealed_revealed"
GAME_FINISHED = "game_finished"
RULESET_UPGRADED = "ruleset_upgraded"
APPEAL = "appeal"
APPEAL_DECIDED = "appeal_decided"
NOTIFICATIONS = (
    YOUR_TURN,
    SEALED_REVEALED,
    GAME_FINISHED,
    RULESET_UPGRADED,
    APPEAL,
    APPEAL_DECIDED,
)
SEALED_DECISION = "sealed_decision"
EMAIL_EVENTS = (
    YOUR_TURN,
    SEALED_DECISION,
    SEALED_REVEALED,
    GAME_FINISHED,
    APPEAL,
    APPEAL_DECIDED,
)
"""The notifications a person may choose by email: a sealed decision that opens for the seat
is ``sealed_decision`` ("you were asked to decide", naming the decisions) rather than
``your_turn``."""


@dataclass(frozen=True)
class Change:
    """One appended event and the states around it."""

    ruleset: AnyRuleset
    board: Any
    event: EventRow | NewEvent
    before: Any
    after: Any
    was_active: bool
    active: bool
    webhooks: bool | None = None
    """False when the game is known to have no webhook and no confirmed email subscription
    (read with its row): nothing to do."""


def with_links(payload: dict[str, Any], public_url: str | None) -> dict[str, Any]:
    """``payload`` as sent: with ``links`` to its game under ``public_url`` when it is set."""
    game = payload.get("game")
    if not public_url or not isinstance(game, str):
        return payload
    return {**payload, "links": game_links(public_url, game)}


def notifications(change: Change) -> dict[str, set[str]]:
    """Seat -> the notifications an appended event causes for it. Pure."""
    ruleset, board, before, after = change.ruleset, change.board, change.before, change.after
    seats = [*ruleset.sides(board).names, UMPIRE]
    out: dict[str, set[str]] = {seat: set() for seat in seats}
    if change.active:
        now = awaited(ruleset, board, after)
        then = awaited(ruleset, board, before, active=change.was_active)
        opened_before = set(ruleset.sealed_decisions(board, before)) if change.was_active else set()
        for decision in ruleset.sealed_decisions(board, after).values():
            if decision.id not in opened_before:
                for seat in decision.sides:
                    out[seat].add(YOUR_TURN)
        for seat in now - then:
            if seat in out:
                out[seat].add(YOUR_TURN)
    if change.event.kind == "sealed_revealed":
        for seat in seats:
            out[seat].add(SEALED_REVEALED)
    if change.event.kind == RULESET_UPGRADED:
        for seat in seats:
            out[seat].add(RULESET_UPGRADED)
    payload = change.event.payload or {}
    if change.event.kind == APPEAL:
        out[UMPIRE].add(APPEAL)
    if change.event.kind == APPEAL_DECIDED and payload.get("appellant") in out:
        out[str(payload["appellant"])].add(APPEAL_DECIDED)
    if change.was_active and not change.active:
        for seat in seats:
            out[seat].add(GAME_FINISHED)
    return {seat: kinds for seat, kinds in out.items() if kinds}


def opened_decisions(change: Change) -> dict[str, list[str]]:
    """Seat -> the sealed decisions the event opened for it (sorted ids). Pure."""
    if not change.active:
        return {}
    ruleset, board = change.ruleset, change.board
    before = set(ruleset.sealed_decisions(board, change.before)) if change.was_active else set()
    out: dict[str, list[str]] = {}
    for decision in ruleset.sealed_decisions(board, change.after).values():
        if decision.id not in before:
            for seat in decision.sides:
                out.setdefault(seat, []).append(decision.id)
    return {seat: sorted(ids) for seat, ids in out.items()}


def email_notifications(change: Change, due: dict[str, set[str]]) -> dict[str, dict[str, Any]]:
    """Seat -> the email notifications an event causes, each with what its payload adds
    (``sealed_decision``: the decisions). Pure."""
    opened = opened_decisions(change)
    out: dict[str, dict[str, Any]] = {}
    for seat, kinds in due.items():
        chosen: dict[str, Any] = {}
        if seat in opened:
            chosen[SEALED_DECISION] = {"decisions": opened[seat]}
        elif YOUR_TURN in kinds:
            chosen[YOUR_TURN] = {}
        for kind in (SEALED_REVEALED, GAME_FINISHED, APPEAL, APPEAL_DECIDED):
            if kind in kinds:
                chosen[kind] = {}
        if chosen:
            out[seat] = chosen
    return out


def _payload(
    change: Change, kind: str, seat: str, delivery_id: str, turn: Any, now: datetime
) -> dict[str, Any]:
    event = change.event
    payload: dict[str, Any] = {
        "id": delivery_id,
        "type": kind,
        "game": event.game_id,
        "seat": seat,
        "event": event.seq,
        "version": event.version,
        "position": mt.position_json(turn),
        "created_at": now.isoformat(),
    }
    if kind == SEALED_REVEALED and event.payload:
        payload["decision"] = event.payload.get("decision")
    if kind == APPEAL and event.payload:
        payload["appeal"] = event.seq
        payload["appealed_event"] = event.payload.get("event")
    if kind == APPEAL_DECIDED and event.payload:
        payload["appeal"] = event.payload.get("appeal")
        payload["outcome"] = event.payload.get("outcome")
    if kind == RULESET_UPGRADED and event.payload:
        payload["from"] = event.payload.get("from")
        payload["to"] = event.payload.get("to")
    return payload


def enqueue(uow: AbstractUnitOfWork, change: Change) -> int:
    """Stage the deliveries an appended event causes (in its transaction); how many."""
    if change.webhooks is False:
        return 0
    repo = access(uow)
    event = change.event
    hooks = repo.webhooks(event.game_id)
    emails = repo.email_subscriptions(event.game_id, status="confirmed")
    if not hooks and not emails:
        return 0
    due = notifications(change)
    turn = mt.where(change.ruleset, change.board, change.after)
    now = datetime.now(UTC)
    staged = 0
    for hook in hooks:
        for kind in sorted(due.get(hook.seat, ())):
            if kind not in hook.events:
                continue
            delivery_id = str(uuid.uuid4())
            repo.add(
                WebhookDeliveryRow(
                    id=delivery_id,
                    webhook_id=hook.id,
                    channel="webhook",
                    notification=kind,
                    payload=_payload(change, kind, hook.seat, delivery_id, turn, now),
                    status="pending",
                    attempts=0,
                    next_attempt_at=now,
                    attempts_log=[],
                    created_at=now,
                )
            )
            staged += 1
    by_seat = email_notifications(change, due) if emails else {}
    for sub in emails:
        for kind, extra in sorted(by_seat.get(sub.seat, {}).items()):
            if kind not in sub.events:
                continue
            delivery_id = str(uuid.uuid4())
            repo.add(
                WebhookDeliveryRow(
                    id=delivery_id,
                    webhook_id=None,
                    channel="email",
                    subscription_id=sub.id,
                    game_id=event.game_id,
                    address=sub.address,
                    notification=kind,
                    payload={
                        **_payload(change, kind, sub.seat, delivery_id, turn, now),
                        **extra,
                    },
                    status="pending",
                    attempts=0,
                    next_attempt_at=now,
                    attempts_log=[],
                    created_at=now,
                )
            )
            staged += 1
    return staged
