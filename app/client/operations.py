"""Every operation of the API, written once without I/O ("sans-IO"): an operation is a
generator that yields the :class:`Call` s it needs, receives each ``httpx.Response`` and
returns its typed result. :class:`~app.client.RefereeClient` (sync) and
:class:`~app.client.AsyncRefereeClient` run the same generators, so both behave alike: the
game's ETag, If-Match, Idempotency-Key, 412 refresh and retry live here only.

Adding an operation (say ``GET /games/{id}/options-now``) is one function here plus a one-line
method on each client (``Seat``/``AsyncSeat`` for per-game operations).
"""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter

from app.client.problems import raise_for_problem
from app.rules.ruling import Ruling
from app.service.results import DryRun, EventView

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

Op = Generator["Call", httpx.Response, T]
"""An operation: yields calls, receives their responses, returns ``T``."""

NO_BODY: Any = object()
"""Marks a call without a JSON body."""


@dataclass(frozen=True)
class Call:
    """One HTTP request of an operation. ``game``: the game whose ETag its answer carries."""

    method: str
    path: str
    token: str | None = None
    params: Mapping[str, Any] | None = None
    json: Any = NO_BODY
    headers: Mapping[str, str] = field(default_factory=dict)
    game: str | None = None

    def request_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``httpx.Client.request`` / ``AsyncClient.request``."""
        headers = dict(self.headers)
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        kwargs: dict[str, Any] = {"headers": headers}
        if self.params:
            kwargs["params"] = self.params
        if self.json is not NO_BODY:
            kwargs["json"] = self.json
        return kwargs


_ETAG = re.compile(r'^(?:W/)?"(\d+)"$')


class Etags:
    """The newest ETag seen per game, shared by every seat of one client: a bot holding two
    seats of a game sends the version its other seat just produced, not a stale one. Thread
    safe; an older version never replaces a newer one (versions only grow)."""

    def __init__(self) -> None:
        self._by_game: dict[str, tuple[int, str]] = {}
        self._lock = threading.Lock()

    def get(self, game: str) -> str | None:
        with self._lock:
            known = self._by_game.get(game)
        return known[1] if known else None

    def set(self, game: str, etag: str) -> None:
        match = _ETAG.match(etag.strip())
        if match is None:
            return
        version = int(match.group(1))
        with self._lock:
            known = self._by_game.get(game)
            if known is None or known[0] <= version:
                self._by_game[game] = (version, etag.strip())

    def forget(self, game: str) -> None:
        with self._lock:
            self._by_game.pop(game, None)

    def note(self, call: Call, response: httpx.Response) -> None:
        """Remember the ETag of an answer about ``call.game`` (successes, 304 and 412)."""
        etag = response.headers.get("etag")
        if call.game and etag and (response.status_code < 400 or response.status_code == 412):
            self.set(call.game, etag)


# -- building blocks --------------------------------------------------------------------------


def fetch(call: Call) -> Op[httpx.Response]:
    """One call; its answer, or the typed problem."""
    response = yield call
    return raise_for_problem(response)


def read(call: Call, model: type[M]) -> Op[M]:
    """One call whose JSON answer is a ``model``."""
    response = yield from fetch(call)
    return model.model_validate(response.json())


def read_as(call: Call, adapter: TypeAdapter[T]) -> Op[T]:
    """One call whose JSON answer ``adapter`` validates (lists, unions)."""
    response = yield from fetch(call)
    return adapter.validate_python(response.json())


def game_path(game: str, suffix: str = "") -> str:
    return f"/games/{game}{suffix}"


def refresh(etags: Etags, game: str, token: str | None) -> Op[str | None]:
    """Read the game to learn its current ETag."""
    yield from fetch(Call("GET", game_path(game), token, game=game))
    return etags.get(game)


@dataclass(frozen=True)
class WriteOptions:
    """How a write is sent. ``retry_stale``: how many times to re-send after a 412 (with the
    refreshed ETag and the same Idempotency-Key) -- only for commands whose meaning does not
    depend on the position they were decided on; 0 (default) raises StaleVersion."""

    idempotency_key: str | None = None
    retry_stale: int = 0
    headers: Mapping[str, str] = field(default_factory=dict)


def write(
    etags: Etags,
    game: str,
    suffix: str,
    token: str | None,
    body: Any = NO_BODY,
    options: WriteOptions = WriteOptions(),
) -> Op[httpx.Response]:
    """A write: If-Match with the game's newest known ETag (read first when none is known),
    a fresh Idempotency-Key (kept across retries, so a retry is never applied twice).
    On 412 the ETag is refreshed (from the answer, else by reading the game); the write is
    re-sent up to ``options.retry_stale`` times, then StaleVersion is raised."""
    if etags.get(game) is None:
        yield from refresh(etags, game, token)
    key = options.idempotency_key or str(uuid.uuid4())
    attempts = 0
    while True:
        sent = etags.get(game)
        headers = {**options.headers, "If-Match": sent or "*", "Idempotency-Key": key}
        call = Call("POST", game_path(game, suffix), token, json=body, headers=headers, game=game)
        response = yield call
        if response.status_code == 412:
            if etags.get(game) == sent:
                yield from refresh(etags, game, token)
            if attempts < options.retry_stale:
                attempts += 1
                continue
        return raise_for_problem(response)


# -- operations that need more than one model -----------------------------------------------


def dry_run(game: str, token: str | None, action: Mapping[str, Any]) -> Op[DryRun]:
    """The ruling on an action, with the version judged and the dice a submission would roll
    (``Referee-Dice-Needed``)."""
    call = Call("POST", game_path(game, "/rulings"), token, json=dict(action), game=game)
    response = yield from fetch(call)
    needed = response.headers.get("referee-dice-needed", "")
    match = _ETAG.match(response.headers.get("etag", ""))
    return DryRun(
        version=int(match.group(1)) if match else 0,
        ruling=Ruling.model_validate(response.json()),
        dice_needed=[int(s) for s in needed.split(",") if s.strip()],
    )


def game_if_changed(etags: Etags, game: str, token: str | None, model: type[M]) -> Op[M | None]:
    """The game, or None when it has not changed since the ETag this client knows (304)."""
    known = etags.get(game)
    headers = {"If-None-Match": known} if known else {}
    response = yield Call("GET", game_path(game), token, headers=headers, game=game)
    if response.status_code == 304:
        return None
    raise_for_problem(response)
    return model.model_validate(response.json())


EVENT = TypeAdapter(EventView)
