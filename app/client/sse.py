"""Server-Sent Events, parsed line by line (no I/O here): what the sync and async streams
share."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from app.service.messages import Message
from app.service.results import EventView


@dataclass(frozen=True)
class StreamEvent:
    """One event of ``/games/{id}/events/stream``: ``id`` is the event's seq, ``event`` its
    kind (``redacted`` when hidden from this reader), ``data`` the same JSON as an item of
    the events list."""

    id: str | None
    event: str
    data: dict[str, Any]

    @property
    def view(self) -> EventView:
        """``data`` as a typed event."""
        return EventView.model_validate(self.data)

    @property
    def message(self) -> Message:
        """``data`` as a typed table-talk message (``/games/{id}/messages/stream``)."""
        return Message.model_validate(self.data)


@dataclass
class SseParser:
    """Feed lines (without their line break); complete events come back from :meth:`feed`.

    Remembers the last event id (for ``Last-Event-ID`` on reconnect) and the server's
    ``retry:`` delay (milliseconds)."""

    last_event_id: str | None = None
    retry_ms: int | None = None
    _kind: str = "message"
    _data: list[str] = field(default_factory=list)
    _id: str | None = None

    def feed(self, line: str) -> StreamEvent | None:
        if line == "":
            if not self._data:
                self._kind, self._id = "message", None
                return None
            event = StreamEvent(self._id, self._kind, json.loads("\n".join(self._data)))
            if self._id is not None:
                self.last_event_id = self._id
            self._kind, self._data, self._id = "message", [], None
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "id":
            self._id = value
        elif name == "event":
            self._kind = value
        elif name == "data":
            self._data.append(value)
        elif name == "retry" and value.isdigit():
            self.retry_ms = int(value)
        return None

    def reset(self) -> None:
        """Forget a half-received event (the connection dropped in the middle of it)."""
        self._kind, self._data, self._id = "message", [], None
