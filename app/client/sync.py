"""The synchronous client: :class:`RefereeClient` for the service, :class:`Seat` for one game as
one seat (or an anonymous reader), :class:`EventStream` for the live events."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

import httpx

from app.client import models as m
from app.client.calls import SeatCalls, ServiceCalls
from app.client.operations import Etags, Op
from app.client.problems import raise_for_problem
from app.client.sse import StreamEvent
from app.client.streaming import (
    CallFactory,
    StreamPolicy,
    StreamState,
    feed_stream,
    game_stream,
    messages_stream,
)

T = TypeVar("T")


class RefereeClient(ServiceCalls):
    """A Referee service. ``transport``/``http`` let tests and apps bring their own httpx
    transport or client. Use as a context manager, or call :meth:`close`.

    One client keeps the newest ETag of every game it has seen (:attr:`etags`), shared by all
    its seats."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        http: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url
        self.http = http or httpx.Client(base_url=base_url, timeout=timeout, transport=transport)
        self.etags = Etags()

    def __enter__(self) -> RefereeClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def run(self, op: Op[T]) -> T:
        """Run an operation: send each call it yields, feed back the answer."""
        try:
            call = next(op)
            while True:
                response = self.http.request(call.method, call.path, **call.request_kwargs())
                self.etags.note(call, response)
                call = op.send(response)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    # -- the service --------------------------------------------------------------------------

    def healthz(self) -> dict[str, Any]:
        """``{"status": "ok", "database": "ok"}``; ServiceUnavailable when degraded."""
        return self.run(self._healthz())

    def config(self) -> dict[str, Any]:
        """``{"public_url", "api_version", "version"}``: the address to share links under."""
        return self.run(self._config())

    def rulesets(self) -> list[m.RulesetSummary]:
        return self.run(self._rulesets())

    def ruleset(self, ruleset_id: str) -> m.RulesetInfo:
        """Catalog, interpretations, schemas, queries and example scenario."""
        return self.run(self._ruleset(ruleset_id))

    def ruleset_openapi(self, ruleset_id: str) -> dict[str, Any]:
        """The OpenAPI document typed for one ruleset (actions, state, query results)."""
        return self.run(self._ruleset_openapi(ruleset_id))

    def create_game(
        self,
        ruleset: str,
        scenario: Mapping[str, Any],
        *,
        options: Mapping[str, Any] | None = None,
        match: Mapping[str, Any] | None = None,
        public: bool = True,
    ) -> m.CreatedGame:
        """A new game: its id and one token per seat (each side and ``umpire``), shown once."""
        return self.run(self._create_game(ruleset, scenario, options, match, public))

    def verify_export(self, file: Mapping[str, Any] | m.ExportFile) -> m.VerifyReport:
        """Re-adjudicate an export file with the server's rulesets (``POST /verify``)."""
        return self.run(self._verify_export(file))

    def import_game(self, file: Mapping[str, Any] | m.ExportFile) -> m.CreatedGame:
        """A new game continuing the umpire's verified export file; new tokens, shown once."""
        return self.run(self._import_game(file))

    def console_scenarios(self) -> list[m.ShippedScenario]:
        """The scenarios the server ships (the console's picker)."""
        return self.run(self._console_scenarios())

    def games_page(
        self,
        *tokens: str,
        status: str | None = None,
        my_turn: bool | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> m.GameList:
        """One page of the games the tokens hold a seat in (``next`` for the next page)."""
        return self.run(self._games_page(tokens, status, my_turn, after, limit))

    def games(
        self, *tokens: str, status: str | None = None, my_turn: bool | None = None
    ) -> Iterator[m.GameSummary]:
        """Every game the tokens hold a seat in (``status``: active/finished; ``my_turn``:
        only those waiting for you), following the pages."""
        after: str | None = None
        while True:
            page = self.games_page(*tokens, status=status, my_turn=my_turn, after=after)
            yield from page.items
            if page.next is None:
                return
            after = page.next

    def feed(
        self,
        *tokens: str,
        last_event_id: str | None = None,
        policy: StreamPolicy = StreamPolicy(),
    ) -> EventStream:
        """One live stream of every game the tokens hold (``data``: ``{game, seat, event}``),
        resumable like a game's stream."""
        return EventStream(self, feed_stream(tokens), last_event_id, policy)

    def seat(self, game_id: str, token: str | None = None) -> Seat:
        """One game as the seat of ``token`` (None: an anonymous reader)."""
        return Seat(self, game_id, token)


class Seat(SeatCalls["RefereeClient"]):
    """One game as one seat. Writes send If-Match with the newest ETag the client knows for
    the game and a fresh Idempotency-Key; a 412 refreshes the ETag and raises StaleVersion,
    unless ``retry_stale`` (actions and sealed orders only) allows re-sending."""

    # -- reading -----------------------------------------------------------------------------

    def game(self) -> m.GameView:
        """The game as this seat may see it (state, position, clock, dice commitment)."""
        return self.client.run(self._game())

    def game_if_changed(self) -> m.GameView | None:
        """The game, or None when unchanged since the ETag the client knows (304)."""
        return self.client.run(self._game_if_changed())

    def scenario(self) -> m.ScenarioView:
        return self.client.run(self._scenario())

    def events_page(self, after: int = 0, limit: int = 100) -> m.EventPage:
        return self.client.run(self._events_page(after, limit))

    def events(self, after: int = 0, page: int = 100) -> Iterator[m.EventView]:
        """Every event after ``after``, oldest first, following ``next``."""
        cursor: int | None = after
        while cursor is not None:
            listing = self.events_page(cursor, page)
            yield from listing.items
            cursor = listing.next

    def event(self, seq: int) -> m.EventView:
        return self.client.run(self._event(seq))

    def position(self, version: int) -> m.GameAtVersion:
        """The game as it stood at ``version``, as this seat may see it (for replays)."""
        return self.client.run(self._position(version))

    def query(self, name: str, **params: Any) -> m.QueryResult:
        """A ruleset query; a list value becomes a repeated parameter."""
        return self.client.run(self._query(name, params))

    def dice(self) -> m.DiceInfo:
        return self.client.run(self._dice())

    def verify_dice(self) -> m.DiceVerification:
        return self.client.run(self._verify_dice())

    def sealed(self) -> m.SealedListing:
        return self.client.run(self._sealed())

    def audit(self) -> m.AuditReport:
        """Umpire only: re-adjudicate the whole log."""
        return self.client.run(self._audit())

    def export(self) -> m.ExportFile:
        """The game as one portable file, as this seat may see it (umpire: complete)."""
        return self.client.run(self._export())

    def upgrade_preview(self) -> m.UpgradePreview:
        """Umpire only: what upgrading to the running ruleset version would change."""
        return self.client.run(self._upgrade_preview())

    def what_if(self, options: Mapping[str, Any]) -> m.WhatIfReport:
        """The log replayed under other option values (other readings); nothing written.
        The umpire at any time, a player once the game is over."""
        return self.client.run(self._what_if(options))

    def available(self) -> m.AvailableView:
        """What this seat can do now: units, action kinds, ending the phase, sealed orders."""
        return self.client.run(self._available())

    # -- tokens and webhooks -----------------------------------------------------------------

    def mint_spectator(self, label: str | None = None) -> m.MintedToken:
        """A read-only token for this game (shown once)."""
        return self.client.run(self._mint_spectator(label))

    def tokens(self) -> m.TokenList:
        return self.client.run(self._tokens())

    def revoke_token(self, token_id: str) -> None:
        self.client.run(self._revoke_token(token_id))

    def rotate_token(self) -> m.IssuedSeatToken:
        """A new token for this seat; this Seat uses it from now on (the old one is dead)."""
        return self.client.run(self._rotate_token())

    def reissue_token(self, seat: str) -> m.IssuedSeatToken:
        """Umpire only: replace a seat's token."""
        return self.client.run(self._reissue_token(seat))

    def register_webhook(
        self, url: str, events: Sequence[str] | None = None
    ) -> m.RegisteredWebhook:
        """Notifications for this seat POSTed to ``url``, signed with the ``secret`` shown
        once in the answer."""
        return self.client.run(self._register_webhook(url, events))

    def webhooks(self) -> m.WebhookList:
        return self.client.run(self._webhooks())

    def delete_webhook(self, webhook_id: str) -> None:
        self.client.run(self._delete_webhook(webhook_id))

    def webhook_deliveries(self, webhook_id: str, limit: int = 50) -> m.DeliveryLog:
        return self.client.run(self._webhook_deliveries(webhook_id, limit))

    def register_email(
        self, address: str, events: Sequence[str] | None = None
    ) -> m.EmailSubscription:
        """Email this seat's notifications to ``address`` once it is confirmed (a
        confirmation email with a single-use link is sent first)."""
        return self.client.run(self._register_email(address, events))

    def emails(self) -> m.EmailSubscriptionList:
        return self.client.run(self._emails())

    def delete_email(self, email_id: str) -> None:
        self.client.run(self._delete_email(email_id))

    def email_deliveries(self, email_id: str, limit: int = 50) -> m.DeliveryLog:
        return self.client.run(self._email_deliveries(email_id, limit))

    def email_invitation(self, seat: str, address: str, token: str) -> m.SentInvitation:
        """Umpire only: email ``seat``'s invitation link (it carries ``token``, the seat's
        current token: the email is a secret) to ``address``."""
        return self.client.run(self._email_invitation(seat, address, token))

    # -- judging and acting ------------------------------------------------------------------

    def dry_run(self, action: Mapping[str, Any]) -> m.DryRun:
        """The ruling on an action; nothing written."""
        return self.client.run(self._dry_run(action))

    def submit(
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
        return self.client.run(op)

    def submit_change(
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
        return self.client.run(op)

    def end_phase(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        """End the current phase (the acting side, or the umpire)."""
        return self.client.run(self._end_phase(idempotency_key))

    def advance_phase(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        """Umpire only: move to the next phase whoever's it is."""
        return self.client.run(self._advance_phase(idempotency_key))

    def finish(self, winner: str | None, *, idempotency_key: str | None = None) -> m.ActionResult:
        """Umpire only: the game is over; its dice seed becomes public."""
        return self.client.run(self._finish(winner, idempotency_key))

    def rollback(self, to_version: int, *, idempotency_key: str | None = None) -> m.ActionResult:
        """Umpire only: restore version ``to_version`` (a rollback event is appended)."""
        return self.client.run(self._rollback(to_version, idempotency_key))

    def takeback(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        """Take back this seat's last action (match option ``takeback``)."""
        return self.client.run(self._takeback(idempotency_key))

    def appeal(self, seq: int, note: str, *, idempotency_key: str | None = None) -> m.ActionResult:
        """A side appeals the ruling of action event ``seq`` (an ``appeal`` event)."""
        return self.client.run(self._appeal(seq, note, idempotency_key))

    def decide_appeal(
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
        return self.client.run(
            self._decide_appeal(appeal, outcome, note, rollback_to, action, idempotency_key)
        )

    def appeals(self) -> m.AppealList:
        """The appeals this seat may see, open or decided."""
        return self.client.run(self._appeals())

    def upgrade(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        """Umpire only: move the game to the running ruleset version."""
        return self.client.run(self._upgrade(idempotency_key))

    def reveal_seed(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        """Umpire only: the dice seed is shown to the umpire from now on."""
        return self.client.run(self._reveal_seed(idempotency_key))

    def check_sealed(self, decision: str, order: Mapping[str, Any]) -> m.OrderCheck:
        """The ruling a sealed order would get now; nothing stored or published."""
        return self.client.run(self._check_sealed(decision, order))

    def submit_sealed(
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
        return self.client.run(op)

    def open_sealed(
        self, decision: str, *, client_seed: str | None = None, dice: list[int] | None = None
    ) -> m.RevealView:
        """Umpire only: reveal the orders received so far and judge them."""
        return self.client.run(self._open_sealed(decision, client_seed, dice))

    # -- table talk --------------------------------------------------------------------------

    def post_message(self, to: str, text: str) -> m.Message:
        """Post table talk to ``all``, a side (privately) or ``umpire`` (privately)."""
        return self.client.run(self._post_message(to, text))

    def messages_page(self, after: int = 0, limit: int = 50) -> m.MessagePage:
        """The messages this seat may read after ``after``, oldest first."""
        return self.client.run(self._messages_page(after, limit))

    def message_stream(
        self, last_event_id: str | None = None, policy: StreamPolicy = StreamPolicy()
    ) -> EventStream:
        """The live table talk (``event: message``, ``id`` = the message's seq), resumed like
        :meth:`stream`."""
        factory = messages_stream(self.game_id, self.token)
        return EventStream(self.client, factory, last_event_id, policy)

    # -- live --------------------------------------------------------------------------------

    def stream(
        self, last_event_id: str | None = None, policy: StreamPolicy = StreamPolicy()
    ) -> EventStream:
        """The live events from ``last_event_id`` on (None: from the start). Iterate it; it
        reconnects with Last-Event-ID when the connection drops or the server ends it, so no
        event is lost or repeated. :meth:`EventStream.close` (from any thread) cancels it."""
        factory = game_stream(self.game_id, self.token)
        return EventStream(self.client, factory, last_event_id, policy)


class EventStream(StreamState[RefereeClient]):
    """An iterator over live events that survives drops (a game's, or the per-token feed).
    Cancel with :meth:`close` (safe from another thread) or by leaving its ``with`` block."""

    def __init__(
        self,
        client: RefereeClient,
        factory: CallFactory,
        last_event_id: str | None,
        policy: StreamPolicy,
    ) -> None:
        super().__init__(client, factory, last_event_id, policy)
        self._closed = threading.Event()
        self._response: httpx.Response | None = None

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._closed.set()
        response = self._response
        if response is not None:
            response.close()

    def __iter__(self) -> Iterator[StreamEvent]:
        failures = 0
        while not self._closed.is_set():
            try:
                for event in self._connection():
                    failures = 0
                    yield event
            except httpx.TransportError:
                if self._closed.is_set():
                    return
                failures += 1
                if not self.policy.may_retry(failures):
                    raise
            if self._closed.is_set() or not self.policy.reconnect:
                return
            self.reconnects += 1
            self._closed.wait(self.policy.delay(self.parser.retry_ms, failures))

    def _connection(self) -> Iterator[StreamEvent]:
        call = self.factory(self.parser.last_event_id)
        http = self.client.http
        timeout = httpx.Timeout(http.timeout.connect, read=self.policy.read_timeout)
        request = http.build_request(
            call.method, call.path, timeout=timeout, **call.request_kwargs()
        )
        response = http.send(request, stream=True)
        self._response = response
        try:
            if response.status_code >= 400:
                response.read()
                raise_for_problem(response)
            self.parser.reset()
            for line in response.iter_lines():
                event = self.parser.feed(line)
                if event is not None:
                    yield event
        finally:
            self._response = None
            response.close()
