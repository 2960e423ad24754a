"""The asynchronous client: :class:`AsyncRefereeClient`, :class:`AsyncSeat` and
:class:`AsyncEventStream`: the sync client's operations and behaviour, awaited.

GENERATED from :mod:`app.client.sync` by ``python -m app.client.twin`` (then ``ruff format``):
do not edit; change the sync client (or the I/O in :mod:`app.client.aio_io`) instead."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from app.client import models as m
from app.client.aio_io import AsyncClientIO, AsyncEventStream, AsyncSeatIO
from app.client.streaming import StreamPolicy, feed_stream, game_stream, messages_stream

__all__ = ["AsyncEventStream", "AsyncRefereeClient", "AsyncSeat"]


class AsyncRefereeClient(AsyncClientIO):
    """The async twin of :class:`app.client.RefereeClient`: the same methods, awaited."""

    async def healthz(self) -> dict[str, Any]:
        """``{"status": "ok", "database": "ok"}``; ServiceUnavailable when degraded."""
        return await self.run(self._healthz())

    async def config(self) -> dict[str, Any]:
        """``{"public_url", "api_version", "version"}``: the address to share links under."""
        return await self.run(self._config())

    async def rulesets(self) -> list[m.RulesetSummary]:
        return await self.run(self._rulesets())

    async def ruleset(self, ruleset_id: str) -> m.RulesetInfo:
        """Catalog, interpretations, schemas, queries and example scenario."""
        return await self.run(self._ruleset(ruleset_id))

    async def ruleset_openapi(self, ruleset_id: str) -> dict[str, Any]:
        """The OpenAPI document typed for one ruleset (actions, state, query results)."""
        return await self.run(self._ruleset_openapi(ruleset_id))

    async def create_game(
        self,
        ruleset: str,
        scenario: Mapping[str, Any],
        *,
        options: Mapping[str, Any] | None = None,
        match: Mapping[str, Any] | None = None,
        public: bool = True,
    ) -> m.CreatedGame:
        """A new game: its id and one token per seat (each side and ``umpire``), shown once."""
        return await self.run(self._create_game(ruleset, scenario, options, match, public))

    async def verify_export(self, file: Mapping[str, Any] | m.ExportFile) -> m.VerifyReport:
        """Re-adjudicate an export file with the server's rulesets (``POST /verify``)."""
        return await self.run(self._verify_export(file))

    async def import_game(self, file: Mapping[str, Any] | m.ExportFile) -> m.CreatedGame:
        """A new game continuing the umpire's verified export file; new tokens, shown once."""
        return await self.run(self._import_game(file))

    async def console_scenarios(self) -> list[m.ShippedScenario]:
        """The scenarios the server ships (the console's picker)."""
        return await self.run(self._console_scenarios())

    async def games_page(
        self,
        *tokens: str,
        status: str | None = None,
        my_turn: bool | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> m.GameList:
        """One page of the games the tokens hold a seat in (``next`` for the next page)."""
        return await self.run(self._games_page(tokens, status, my_turn, after, limit))

    async def games(
        self, *tokens: str, status: str | None = None, my_turn: bool | None = None
    ) -> AsyncIterator[m.GameSummary]:
        """Every game the tokens hold a seat in (``status``: active/finished; ``my_turn``:
        only those waiting for you), following the pages."""
        after: str | None = None
        while True:
            page = await self.games_page(*tokens, status=status, my_turn=my_turn, after=after)
            for item in page.items:
                yield item
            if page.next is None:
                return
            after = page.next

    def feed(
        self, *tokens: str, last_event_id: str | None = None, policy: StreamPolicy = StreamPolicy()
    ) -> AsyncEventStream:
        """One live stream of every game the tokens hold (``data``: ``{game, seat, event}``),
        resumable like a game's stream."""
        return AsyncEventStream(self, feed_stream(tokens), last_event_id, policy)

    def seat(self, game_id: str, token: str | None = None) -> AsyncSeat:
        """One game as the seat of ``token`` (None: an anonymous reader)."""
        return AsyncSeat(self, game_id, token)


class AsyncSeat(AsyncSeatIO):
    """The async twin of :class:`app.client.Seat`: the same methods, awaited."""

    async def game(self) -> m.GameView:
        """The game as this seat may see it (state, position, clock, dice commitment)."""
        return await self.client.run(self._game())

    async def game_if_changed(self) -> m.GameView | None:
        """The game, or None when unchanged since the ETag the client knows (304)."""
        return await self.client.run(self._game_if_changed())

    async def scenario(self) -> m.ScenarioView:
        return await self.client.run(self._scenario())

    async def events_page(self, after: int = 0, limit: int = 100) -> m.EventPage:
        return await self.client.run(self._events_page(after, limit))

    async def events(self, after: int = 0, page: int = 100) -> AsyncIterator[m.EventView]:
        """Every event after ``after``, oldest first, following ``next``."""
        cursor: int | None = after
        while cursor is not None:
            listing = await self.events_page(cursor, page)
            for item in listing.items:
                yield item
            cursor = listing.next

    async def event(self, seq: int) -> m.EventView:
        return await self.client.run(self._event(seq))

    async def position(self, version: int) -> m.GameAtVersion:
        """The game as it stood at ``version``, as this seat may see it (for replays)."""
        return await self.client.run(self._position(version))

    async def query(self, name: str, **params: Any) -> m.QueryResult:
        """A ruleset query; a list value becomes a repeated parameter."""
        return await self.client.run(self._query(name, params))

    async def dice(self) -> m.DiceInfo:
        return await self.client.run(self._dice())

    async def verify_dice(self) -> m.DiceVerification:
        return await self.client.run(self._verify_dice())

    async def sealed(self) -> m.SealedListing:
        return await self.client.run(self._sealed())

    async def audit(self) -> m.AuditReport:
        """Umpire only: re-adjudicate the whole log."""
        return await self.client.run(self._audit())

    async def export(self) -> m.ExportFile:
        """The game as one portable file, as this seat may see it (umpire: complete)."""
        return await self.client.run(self._export())

    async def upgrade_preview(self) -> m.UpgradePreview:
        """Umpire only: what upgrading to the running ruleset version would change."""
        return await self.client.run(self._upgrade_preview())

    async def what_if(self, options: Mapping[str, Any]) -> m.WhatIfReport:
        """The log replayed under other option values (other readings); nothing written.
        The umpire at any time, a player once the game is over."""
        return await self.client.run(self._what_if(options))

    async def available(self) -> m.AvailableView:
        """What this seat can do now: units, action kinds, ending the phase, sealed orders."""
        return await self.client.run(self._available())

    async def mint_spectator(self, label: str | None = None) -> m.MintedToken:
        """A read-only token for this game (shown once)."""
        return await self.client.run(self._mint_spectator(label))

    async def tokens(self) -> m.TokenList:
        return await self.client.run(self._tokens())

    async def revoke_token(self, token_id: str) -> None:
        await self.client.run(self._revoke_token(token_id))

    async def rotate_token(self) -> m.IssuedSeatToken:
        """A new token for this seat; this Seat uses it from now on (the old one is dead)."""
        return await self.client.run(self._rotate_token())

    async def reissue_token(self, seat: str) -> m.IssuedSeatToken:
        """Umpire only: replace a seat's token."""
        return await self.client.run(self._reissue_token(seat))

    async def register_webhook(
        self, url: str, events: Sequence[str] | None = None
    ) -> m.RegisteredWebhook:
        """Notifications for this seat POSTed to ``url``, signed with the ``secret`` shown
        once in the answer."""
        return await self.client.run(self._register_webhook(url, events))

    async def webhooks(self) -> m.WebhookList:
        return await self.client.run(self._webhooks())

    async def delete_webhook(self, webhook_id: str) -> None:
        await self.client.run(self._delete_webhook(webhook_id))

    async def webhook_deliveries(self, webhook_id: str, limit: int = 50) -> m.DeliveryLog:
        return await self.client.run(self._webhook_deliveries(webhook_id, limit))

    async def register_email(
        self, address: str, events: Sequence[str] | None = None
    ) -> m.EmailSubscription:
        """Email this seat's notifications to ``address`` once it is confirmed (a
        confirmation email with a single-use link is sent first)."""
        return await self.client.run(self._register_email(address, events))

    async def emails(self) -> m.EmailSubscriptionList:
        return await self.client.run(self._emails())

    async def delete_email(self, email_id: str) -> None:
        await self.client.run(self._delete_email(email_id))

    async def email_deliveries(self, email_id: str, limit: int = 50) -> m.DeliveryLog:
        return await self.client.run(self._email_deliveries(email_id, limit))

    async def email_invitation(self, seat: str, address: str, token: str) -> m.SentInvitation:
        """Umpire only: email ``seat``'s invitation link (it carries ``token``, the seat's
        current token: the email is a secret) to ``address``."""
        return await self.client.run(self._email_invitation(seat, address, token))

    async def dry_run(self, action: Mapping[str, Any]) -> m.DryRun:
        """The ruling on an action; nothing written."""
        return await self.client.run(self._dry_run(action))

    async def submit(
        self,
        action: Mapping[str, Any],
        *,
        idempotency_key: str | None = None,
        retry_stale: int = 0,
        client_seed: str | None = None,
        dice: list[int] | None = None,
    ) -> m.ActionResult:
        """Submit an action. IllegalAction (with ``ruling``) when the rules refuse it.
        ``retry_stale=n``: after a 412 re-send up to n times on the refreshed version (the
        server judges it again on the position it now has). ``dice``: physical dice the
        umpire enters (``Referee-Dice``); ``client_seed`` is mixed into derived dice."""
        op = self._submit(action, idempotency_key, retry_stale, client_seed, dice)
        return await self.client.run(op)

    async def submit_change(
        self,
        action: Mapping[str, Any],
        *,
        idempotency_key: str | None = None,
        retry_stale: int = 0,
        client_seed: str | None = None,
        dice: list[int] | None = None,
    ) -> m.ActionChange:
        """:meth:`submit`, answered without the new state (``Prefer: return=minimal``): the
        event, version, ruling (its effects are the change), position and clock. For a
        client that keeps its own copy of the state or reads it when it needs it."""
        op = self._submit_change(action, idempotency_key, retry_stale, client_seed, dice)
        return await self.client.run(op)

    async def end_phase(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        """End the current phase (the acting side, or the umpire)."""
        return await self.client.run(self._end_phase(idempotency_key))

    async def advance_phase(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        """Umpire only: move to the next phase whoever's it is."""
        return await self.client.run(self._advance_phase(idempotency_key))

    async def finish(
        self, winner: str | None, *, idempotency_key: str | None = None
    ) -> m.ActionResult:
        """Umpire only: the game is over; its dice seed becomes public."""
        return await self.client.run(self._finish(winner, idempotency_key))

    async def rollback(
        self, to_version: int, *, idempotency_key: str | None = None
    ) -> m.ActionResult:
        """Umpire only: restore version ``to_version`` (a rollback event is appended)."""
        return await self.client.run(self._rollback(to_version, idempotency_key))

    async def takeback(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        """Take back this seat's last action (match option ``takeback``)."""
        return await self.client.run(self._takeback(idempotency_key))

    async def appeal(
        self, seq: int, note: str, *, idempotency_key: str | None = None
    ) -> m.ActionResult:
        """A side appeals the ruling of action event ``seq`` (an ``appeal`` event)."""
        return await self.client.run(self._appeal(seq, note, idempotency_key))

    async def decide_appeal(
        self,
        appeal: int,
        outcome: str,
        *,
        note: str = "",
        rollback_to: int | None = None,
        action: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> m.ActionResult:
        """Umpire only: ``upheld``, or ``overridden`` by ``rollback_to`` or a corrected
        ``action`` (an ``appeal_decided`` event)."""
        return await self.client.run(
            self._decide_appeal(appeal, outcome, note, rollback_to, action, idempotency_key)
        )

    async def appeals(self) -> m.AppealList:
        """The appeals this seat may see, open or decided."""
        return await self.client.run(self._appeals())

    async def upgrade(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        """Umpire only: move the game to the running ruleset version."""
        return await self.client.run(self._upgrade(idempotency_key))

    async def reveal_seed(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        """Umpire only: the dice seed is shown to the umpire from now on."""
        return await self.client.run(self._reveal_seed(idempotency_key))

    async def check_sealed(self, decision: str, order: Mapping[str, Any]) -> m.OrderCheck:
        """The ruling a sealed order would get now; nothing stored or published."""
        return await self.client.run(self._check_sealed(decision, order))

    async def submit_sealed(
        self,
        decision: str,
        order: Mapping[str, Any],
        *,
        idempotency_key: str | None = None,
        retry_stale: int = 0,
        client_seed: str | None = None,
    ) -> m.SubmitResult:
        """A sealed order: only its commitment is published until every side has sent one."""
        op = self._submit_sealed(decision, order, idempotency_key, retry_stale, client_seed)
        return await self.client.run(op)

    async def open_sealed(
        self, decision: str, *, client_seed: str | None = None, dice: list[int] | None = None
    ) -> m.RevealView:
        """Umpire only: reveal the orders received so far and judge them."""
        return await self.client.run(self._open_sealed(decision, client_seed, dice))

    async def post_message(self, to: str, text: str) -> m.Message:
        """Post table talk to ``all``, a side (privately) or ``umpire`` (privately)."""
        return await self.client.run(self._post_message(to, text))

    async def messages_page(self, after: int = 0, limit: int = 50) -> m.MessagePage:
        """The messages this seat may read after ``after``, oldest first."""
        return await self.client.run(self._messages_page(after, limit))

    def message_stream(
        self, last_event_id: str | None = None, policy: StreamPolicy = StreamPolicy()
    ) -> AsyncEventStream:
        """The live table talk (``event: message``, ``id`` = the message's seq), resumed like
        :meth:`stream`."""
        factory = messages_stream(self.game_id, self.token)
        return AsyncEventStream(self.client, factory, last_event_id, policy)

    def stream(
        self, last_event_id: str | None = None, policy: StreamPolicy = StreamPolicy()
    ) -> AsyncEventStream:
        """The live events from ``last_event_id`` on (None: from the start). Iterate it; it
        reconnects with Last-Event-ID when the connection drops or the server ends it, so no
        event is lost or repeated. :meth:`AsyncEventStream.aclose` cancels it."""
        factory = game_stream(self.game_id, self.token)
        return AsyncEventStream(self.client, factory, last_event_id, policy)
