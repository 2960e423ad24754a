"""The I/O of the asynchronous client, written by hand: the httpx client and its ``run``
(:class:`AsyncClientIO`), a seat's game and token (:class:`AsyncSeatIO`) and the live stream
(:class:`AsyncEventStream`). The methods of :class:`~app.client.aio.AsyncRefereeClient` and
:class:`~app.client.aio.AsyncSeat` are generated from the sync client's
(:mod:`app.client.twin`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import TracebackType
from typing import Self, TypeVar

import anyio
import httpx

from app.client.calls import SeatCalls, ServiceCalls
from app.client.operations import Etags, Op
from app.client.problems import raise_for_problem
from app.client.sse import StreamEvent
from app.client.streaming import CallFactory, StreamPolicy, StreamState

T = TypeVar("T")


class AsyncClientIO(ServiceCalls):
    """The I/O of :class:`~app.client.aio.AsyncRefereeClient`: its httpx client, the ETags it
    knows and :meth:`run`, which sends each call an operation yields and awaits the answer."""

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

    async def __aenter__(self) -> Self:
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


class AsyncSeatIO(SeatCalls[AsyncClientIO]):
    """The base of :class:`~app.client.aio.AsyncSeat`: a seat of an async client."""


class AsyncEventStream(StreamState[AsyncClientIO]):
    """The async twin of :class:`app.client.EventStream`: ``async for event in stream``;
    cancel it by cancelling its task, leaving its ``async with`` block or :meth:`aclose`."""

    def __init__(
        self,
        client: AsyncClientIO,
        factory: CallFactory,
        last_event_id: str | None,
        policy: StreamPolicy,
    ) -> None:
        super().__init__(client, factory, last_event_id, policy)
        self._closed = False

    async def __aenter__(self) -> Self:
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
