"""The asynchronous client: :class:`AsyncRefereeClient`, :class:`AsyncSeat` and
:class:`AsyncEventStream`. Same operations and behaviour as the sync client (both run the
generators of :mod:`app.client.operations`), awaited; see :mod:`app.client.sync` for what each
method does. Cancel a stream by cancelling its task, leaving its ``async with`` block or
:meth:`AsyncEventStream.aclose`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

import anyio
import httpx

from app.client import models as m
from app.client.calls import SeatCalls, ServiceCalls
from app.client.operations import Etags, Op
from app.client.problems import raise_for_problem
from app.client.sse import SseParser, StreamEvent
from app.client.streaming import (
    CallFactory,
    StreamPolicy,
    feed_stream,
    game_stream,
    messages_stream,
)

T = TypeVar("T")


class AsyncRefereeClient(ServiceCalls):
    """The async twin of :class:`app.client.RefereeClient`."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url = base_url
        self.http = http or httpx.AsyncClient(
            base_url=base_url, timeout=timeout, transport=transport
        )
        self.etags = Etags()

    async def __aenter__(self) -> AsyncRefereeClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def run(self, op: Op[T]) -> T:
        try:
            call = next(op)
            while True:
                response = await self.http.request(call.method, call.path, **call.request_kwargs())
                self.etags.note(call, response)
                call = op.send(response)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    async def healthz(self) -> dict[str, Any]:
        return await self.run(self._healthz())

    async def config(self) -> dict[str, Any]:
        return await self.run(self._config())

    async def rulesets(self) -> list[m.RulesetSummary]:
        return await self.run(self._rulesets())

    async def ruleset(self, ruleset_id: str) -> m.RulesetInfo:
        return await self.run(self._ruleset(ruleset_id))

    async def ruleset_openapi(self, ruleset_id: str) -> dict[str, Any]:
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
        return await self.run(self._create_game(ruleset, scenario, options, match, public))

    async def verify_export(self, file: Mapping[str, Any] | m.ExportFile) -> m.VerifyReport:
        """Re-adjudicate an export file with the server's rulesets (``POST /verify``)."""
        return await self.run(self._verify_export(file))

    async def import_game(self, file: Mapping[str, Any] | m.ExportFile) -> m.CreatedGame:
        """A new game continuing the umpire's verified export file; new tokens, shown once."""
        return await self.run(self._import_game(file))

    async def console_scenarios(self) -> list[m.ShippedScenario]:
        return await self.run(self._console_scenarios())

    async def games_page(
        self,
        *tokens: str,
        status: str | None = None,
        my_turn: bool | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> m.GameList:
        return await self.run(self._games_page(tokens, status, my_turn, after, limit))

    async def games(
        self, *tokens: str, status: str | None = None, my_turn: bool | None = None
    ) -> AsyncIterator[m.GameSummary]:
        after: str | None = None
        while True:
            page = await self.games_page(*tokens, status=status, my_turn=my_turn, after=after)
            for item in page.items:
                yield item
            if page.next is None:
                return
            after = page.next

    def feed(
        self,
        *tokens: str,
        last_event_id: str | None = None,
        policy: StreamPolicy = StreamPolicy(),
    ) -> AsyncEventStream:
        return AsyncEventStream(self, feed_stream(tokens), last_event_id, policy)

    def seat(self, game_id: str, token: str | None = None) -> AsyncSeat:
        return AsyncSeat(self, game_id, token)


class AsyncSeat(SeatCalls):
    """The async twin of :class:`app.client.Seat`."""

    def __init__(self, client: AsyncRefereeClient, game_id: str, token: str | None) -> None:
        self.client = client
        self.etags = client.etags
        self.game_id = game_id
        self.token = token

    @property
    def etag(self) -> str | None:
        return self.etags.get(self.game_id)

    async def game(self) -> m.GameView:
        return await self.client.run(self._game())

    async def game_if_changed(self) -> m.GameView | None:
        return await self.client.run(self._game_if_changed())

    async def scenario(self) -> m.ScenarioView:
        return await self.client.run(self._scenario())

    async def events_page(self, after: int = 0, limit: int = 100) -> m.EventPage:
        return await self.client.run(self._events_page(after, limit))

    async def events(self, after: int = 0, page: int = 100) -> AsyncIterator[m.EventView]:
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
        return await self.client.run(self._query(name, params))

    async def dice(self) -> m.DiceInfo:
        return await self.client.run(self._dice())

    async def verify_dice(self) -> m.DiceVerification:
        return await self.client.run(self._verify_dice())

    async def sealed(self) -> m.SealedListing:
        return await self.client.run(self._sealed())

    async def audit(self) -> m.AuditReport:
        return await self.client.run(self._audit())

    async def export(self) -> m.ExportFile:
        """The game as one portable file, as this seat may see it (umpire: complete)."""
        return await self.client.run(self._export())

    async def upgrade_preview(self) -> m.UpgradePreview:
        return await self.client.run(self._upgrade_preview())

    async def what_if(self, options: Mapping[str, Any]) -> m.WhatIfReport:
        return await self.client.run(self._what_if(options))

    async def available(self) -> m.AvailableView:
        return await self.client.run(self._available())

    async def mint_spectator(self, label: str | None = None) -> m.MintedToken:
        return await self.client.run(self._mint_spectator(label))

    async def tokens(self) -> m.TokenList:
        return await self.client.run(self._tokens())

    async def revoke_token(self, token_id: str) -> None:
        await self.client.run(self._revoke_token(token_id))

    async def rotate_token(self) -> m.IssuedSeatToken:
        return await self.client.run(self._rotate_token())

    async def reissue_token(self, seat: str) -> m.IssuedSeatToken:
        return await self.client.run(self._reissue_token(seat))

    async def register_webhook(
        self, url: str, events: Sequence[str] | None = None
    ) -> m.RegisteredWebhook:
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
        return await self.client.run(self._register_email(address, events))

    async def emails(self) -> m.EmailSubscriptionList:
        return await self.client.run(self._emails())

    async def delete_email(self, email_id: str) -> None:
        await self.client.run(self._delete_email(email_id))

    async def email_deliveries(self, email_id: str, limit: int = 50) -> m.DeliveryLog:
        return await self.client.run(self._email_deliveries(email_id, limit))

    async def email_invitation(self, seat: str, address: str, token: str) -> m.SentInvitation:
        return await self.client.run(self._email_invitation(seat, address, token))

    async def dry_run(self, action: Mapping[str, Any]) -> m.DryRun:
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
        op = self._submit_change(action, idempotency_key, retry_stale, client_seed, dice)
        return await self.client.run(op)

    async def end_phase(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        return await self.client.run(self._end_phase(idempotency_key))

    async def advance_phase(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        return await self.client.run(self._advance_phase(idempotency_key))

    async def finish(
        self, winner: str | None, *, idempotency_key: str | None = None
    ) -> m.ActionResult:
        return await self.client.run(self._finish(winner, idempotency_key))

    async def rollback(
        self, to_version: int, *, idempotency_key: str | None = None
    ) -> m.ActionResult:
        return await self.client.run(self._rollback(to_version, idempotency_key))

    async def takeback(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        return await self.client.run(self._takeback(idempotency_key))

    async def appeal(
        self, seq: int, note: str, *, idempotency_key: str | None = None
    ) -> m.ActionResult:
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
        return await self.client.run(
            self._decide_appeal(appeal, outcome, note, rollback_to, action, idempotency_key)
        )

    async def appeals(self) -> m.AppealList:
        return await self.client.run(self._appeals())

    async def upgrade(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        return await self.client.run(self._upgrade(idempotency_key))

    async def reveal_seed(self, *, idempotency_key: str | None = None) -> m.ActionResult:
        return await self.client.run(self._reveal_seed(idempotency_key))

    async def check_sealed(self, decision: str, order: Mapping[str, Any]) -> m.OrderCheck:
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
        op = self._submit_sealed(decision, order, idempotency_key, retry_stale, client_seed)
        return await self.client.run(op)

    async def open_sealed(
        self, decision: str, *, client_seed: str | None = None, dice: list[int] | None = None
    ) -> m.RevealView:
        return await self.client.run(self._open_sealed(decision, client_seed, dice))

    async def post_message(self, to: str, text: str) -> m.Message:
        return await self.client.run(self._post_message(to, text))

    async def messages_page(self, after: int = 0, limit: int = 50) -> m.MessagePage:
        return await self.client.run(self._messages_page(after, limit))

    def message_stream(
        self, last_event_id: str | None = None, policy: StreamPolicy = StreamPolicy()
    ) -> AsyncEventStream:
        factory = messages_stream(self.game_id, self.token)
        return AsyncEventStream(self.client, factory, last_event_id, policy)

    def stream(
        self, last_event_id: str | None = None, policy: StreamPolicy = StreamPolicy()
    ) -> AsyncEventStream:
        factory = game_stream(self.game_id, self.token)
        return AsyncEventStream(self.client, factory, last_event_id, policy)


class AsyncEventStream:
    """The async twin of :class:`app.client.EventStream`: ``async for event in stream``."""

    def __init__(
        self,
        client: AsyncRefereeClient,
        factory: CallFactory,
        last_event_id: str | None,
        policy: StreamPolicy,
    ) -> None:
        self.client = client
        self.factory = factory
        self.policy = policy
        self.parser = SseParser(last_event_id=last_event_id)
        self.reconnects = 0
        self._closed = False

    @property
    def last_event_id(self) -> str | None:
        return self.parser.last_event_id

    async def __aenter__(self) -> AsyncEventStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self._closed = True

    async def __aiter__(self) -> AsyncIterator[StreamEvent]:
        failures = 0
        while not self._closed:
            try:
                async for event in self._connection():
                    failures = 0
                    yield event
                    if self._closed:
                        return
            except httpx.TransportError:
                failures += 1
                if self._closed or not self.policy.may_retry(failures):
                    raise
            if self._closed or not self.policy.reconnect:
                return
            self.reconnects += 1
            await anyio.sleep(self.policy.delay(self.parser.retry_ms, failures))

    async def _connection(self) -> AsyncIterator[StreamEvent]:
        call = self.factory(self.parser.last_event_id)
        http = self.client.http
        timeout = httpx.Timeout(http.timeout.connect, read=self.policy.read_timeout)
        request = http.build_request(
            call.method, call.path, timeout=timeout, **call.request_kwargs()
        )
        response = await http.send(request, stream=True)
        try:
            if response.status_code >= 400:
                await response.aread()
                raise_for_problem(response)
            self.parser.reset()
            async for line in response.aiter_lines():
                event = self.parser.feed(line)
                if event is not None:
                    yield event
        finally:
            await response.aclose()
