"""A real SMTP server on loopback (aiosmtpd) that keeps what it receives: the email tests
send through it as the service would through any SMTP relay."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller


@dataclass
class Mail:
    sender: str
    recipients: list[str]
    raw: bytes
    message: EmailMessage

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    @property
    def body(self) -> str:
        part = self.message.get_body(("plain",))
        assert part is not None
        return str(part.get_content())

    def header(self, name: str) -> str | None:
        value = self.message[name]
        return None if value is None else str(value)


@dataclass
class Mailbox:
    """What the server received, and how it answers: ``refuse`` messages get ``554``."""

    refuse: int = 0
    received: list[Mail] = field(default_factory=list)
    refused: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self._lock:
            if self.refuse > 0:
                self.refuse -= 1
                self.refused += 1
                return "554 5.7.1 refused by the test server"
            raw = bytes(envelope.content)
            message = message_from_bytes(raw, policy=policy.default)
            assert isinstance(message, EmailMessage)
            self.received.append(Mail(envelope.mail_from, list(envelope.rcpt_tos), raw, message))
        return "250 OK"

    def to(self, address: str) -> list[Mail]:
        with self._lock:
            return [m for m in self.received if address in m.recipients]

    def wait_for(self, address: str, n: int, timeout: float = 20.0) -> list[Mail]:
        """The first ``n`` emails to ``address`` once they arrived (bounded wait)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            mails = self.to(address)
            if len(mails) >= n:
                return mails
            time.sleep(0.02)
        raise AssertionError(f"{address} got {len(self.to(address))} emails, wanted {n}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def smtp_server(refuse: int = 0) -> Iterator[tuple[Mailbox, str]]:
    """A running SMTP server on loopback: its mailbox and the ``REFEREE_SMTP_URL``."""
    box = Mailbox(refuse=refuse)
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield box, f"smtp://127.0.0.1:{controller.port}"
    finally:
        controller.stop()
