"""A small typed Python client for the Referee HTTP API.

It handles what every front end has to: bearer tokens, the game's ETag for ``If-Match``,
idempotency keys (generated per call, so a retried call is never applied twice), problem+json
errors as exceptions, paging through the event log and reading the live event stream.

>>> from app.client import RefereeClient
>>> with RefereeClient("http://127.0.0.1:8000") as referee:         # doctest: +SKIP
...     game = referee.create_game("zoc", scenario)
...     axis = referee.seat(game.id, game.seats["axis"])
...     ruling = axis.dry_run({"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]})
...     accepted = axis.submit({"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]})
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import httpx

__all__ = ["CreatedGame", "ProblemError", "RefereeClient", "SeatClient", "StreamEvent"]


class ProblemError(Exception):
    """An RFC 9457 problem answered by the service (4xx/5xx). ``code`` is stable."""

    def __init__(self, status: int, problem: Mapping[str, Any]) -> None:
        self.status = status
        self.problem = dict(problem)
        self.code = str(problem.get("code", "unknown"))
        self.ruling: dict[str, Any] | None = problem.get("ruling")
        super().__init__(f"{status} {self.code}: {problem.get('detail', '')}")


@dataclass(frozen=True)
class CreatedGame:
    """A new game: its id and one token per seat (shown once: keep them)."""

    id: str
    seats: dict[str, str]
    version: int


@dataclass(frozen=True)
class StreamEvent:
    """One Server-Sent Event of ``/games/{id}/events/stream``."""

    id: str | None
    event: str
    data: dict[str, Any]


@dataclass
class RefereeClient:
    """Anonymous access to a Referee service; :meth:`seat` gives an authenticated view."""

    base_url: str
    timeout: float = 30.0
    transport: httpx.BaseTransport | None = None
    _http: httpx.Client = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._http = httpx.Client(
            base_url=self.base_url, timeout=self.timeout, transport=self.transport
        )

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
        self._http.close()

    # -- plumbing -------------------------------------------------------------------------

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        response = self._http.request(method, path, **kwargs)
        if response.status_code >= 400:
            try:
                problem = response.json()
            except ValueError:
                problem = {"code": "http.error", "detail": response.text}
            raise ProblemError(response.status_code, problem)
        return response

    # -- rulesets and games -------------------------------------------------------------------

    def rulesets(self) -> list[dict[str, Any]]:
        data: list[dict[str, Any]] = self._request("GET", "/rulesets").json()
        return data

    def ruleset(self, ruleset_id: str) -> dict[str, Any]:
        data: dict[str, Any] = self._request("GET", f"/rulesets/{ruleset_id}").json()
        return data

    def create_game(
        self,
        ruleset: str,
        scenario: Mapping[str, Any],
        *,
        options: Mapping[str, Any] | None = None,
        match: Mapping[str, Any] | None = None,
        public: bool = True,
    ) -> CreatedGame:
        """Create a game; returns its id and the seat tokens (each side and ``umpire``)."""
        body: dict[str, Any] = {"ruleset": ruleset, "scenario": dict(scenario), "public": public}
        if options is not None:
            body["options"] = dict(options)
        if match is not None:
            body["match"] = dict(match)
        data = self._request("POST", "/games", json=body).json()
        return CreatedGame(id=data["id"], seats=dict(data["seats"]), version=data["version"])

    def seat(self, game_id: str, token: str | None) -> SeatClient:
        """A client acting at one game with one seat's token (None: an anonymous reader)."""
        return SeatClient(self, game_id, token)


@dataclass
class SeatClient:
    """One reader or seat at one game. Writes send the last seen ETag as ``If-Match`` (and
    fetch it first when none has been seen), plus a fresh ``Idempotency-Key``."""

    client: RefereeClient
    game_id: str
    token: str | None
    etag: str | None = None

    @property
    def _auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def _path(self, suffix: str = "") -> str:
        return f"/games/{self.game_id}{suffix}"

    def game(self) -> dict[str, Any]:
        """The game as this seat may see it; remembers its ETag for the next write."""
        response = self.client._request("GET", self._path(), headers=self._auth)
        self.etag = response.headers.get("etag")
        data: dict[str, Any] = response.json()
        return data

    def dry_run(self, action: Mapping[str, Any]) -> dict[str, Any]:
        """The ruling on an action, nothing written (legal or not)."""
        data: dict[str, Any] = self.client._request(
            "POST", self._path("/rulings"), json=dict(action), headers=self._auth
        ).json()
        return data

    def _write(
        self, suffix: str, body: Any = None, *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        if self.etag is None:
            self.game()
        headers = {
            **self._auth,
            "If-Match": self.etag or "*",
            "Idempotency-Key": idempotency_key or str(uuid.uuid4()),
        }
        kwargs: dict[str, Any] = {"headers": headers}
        if body is not None:
            kwargs["json"] = body
        response = self.client._request("POST", self._path(suffix), **kwargs)
        self.etag = response.headers.get("etag", self.etag)
        data: dict[str, Any] = response.json()
        return data

    def submit(
        self, action: Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """Submit an action for real. Raises :class:`ProblemError` (with ``.ruling`` for an
        illegal action, code ``action.illegal``; ``precondition.stale`` when someone wrote
        first: call :meth:`game` and decide again)."""
        return self._write("/actions", dict(action), idempotency_key=idempotency_key)

    def end_phase(self) -> dict[str, Any]:
        return self._write("/phase/end")

    def submit_sealed(self, decision: str, order: Mapping[str, Any]) -> dict[str, Any]:
        """Submit a sealed order; only its commitment is published until every side has."""
        return self._write(f"/sealed/{decision}", dict(order))

    def query(self, name: str, **params: Any) -> dict[str, Any]:
        data: dict[str, Any] = self.client._request(
            "GET", self._path(f"/queries/{name}"), params=params, headers=self._auth
        ).json()
        return data

    def events(self, after: int = 0, page: int = 100) -> Iterator[dict[str, Any]]:
        """Every event after ``after``, oldest first, following the pages."""
        cursor: int | None = after
        while cursor is not None:
            data = self.client._request(
                "GET",
                self._path("/events"),
                params={"after": cursor, "limit": page},
                headers=self._auth,
            ).json()
            yield from data["items"]
            cursor = data.get("next")

    def stream(self, last_event_id: str | None = None) -> Iterator[StreamEvent]:
        """The live event stream (Server-Sent Events); resumes after ``last_event_id``.
        Comments (keep-alives) are skipped. The iterator ends when the server closes."""
        headers = {**self._auth, "Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        with self.client._http.stream(
            "GET", self._path("/events/stream"), headers=headers, timeout=None
        ) as response:
            if response.status_code >= 400:
                response.read()
                raise ProblemError(response.status_code, response.json())
            event_id: str | None = None
            kind, data_lines = "message", list[str]()
            for line in response.iter_lines():
                if line == "":
                    if data_lines:
                        yield StreamEvent(event_id, kind, json.loads("\n".join(data_lines)))
                    kind, data_lines = "message", []
                    continue
                if line.startswith(":"):
                    continue
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "id":
                    event_id = value
                elif name == "event":
                    kind = value
                elif name == "data":
                    data_lines.append(value)
