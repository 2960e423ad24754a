"""Sending one email over SMTP (``REFEREE_SMTP_URL``), from the delivery worker's senders.

``smtp://user:password@host:587?starttls=true`` upgrades with STARTTLS (refused when the
server does not offer it), ``smtps://user:password@host`` speaks TLS from the start (port 465
by default), ``smtp://host`` is plain (port 25 by default: a relay on the same machine). User
and password are percent-decoded. Certificates are verified (the system's trust store).
"""

from __future__ import annotations

import smtplib
import ssl
from dataclasses import dataclass
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import parseaddr
from urllib.parse import parse_qs, unquote, urlsplit

TRUE = {"1", "true", "yes", "on"}


class BadSmtpURL(ValueError):
    """``REFEREE_SMTP_URL`` cannot be used (the message says why)."""


@dataclass(frozen=True)
class SmtpTarget:
    host: str
    port: int
    tls: bool
    """TLS from the start (``smtps``)."""
    starttls: bool
    user: str | None
    password: str | None

    def __repr__(self) -> str:  # never the password, in logs or tracebacks
        return f"SmtpTarget({self.host}:{self.port}, tls={self.tls}, starttls={self.starttls})"


def parse_url(url: str) -> SmtpTarget:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("smtp", "smtps"):
        raise BadSmtpURL("REFEREE_SMTP_URL must start with smtp:// or smtps://")
    if not parts.hostname:
        raise BadSmtpURL("REFEREE_SMTP_URL has no host")
    try:
        port = parts.port
    except ValueError:
        raise BadSmtpURL("REFEREE_SMTP_URL has a bad port") from None
    query = {k: v[-1].lower() for k, v in parse_qs(parts.query).items()}
    tls = parts.scheme == "smtps"
    starttls = query.get("starttls", "false") in TRUE
    if tls and starttls:
        raise BadSmtpURL("smtps:// is TLS already: drop starttls")
    return SmtpTarget(
        host=parts.hostname,
        port=port or (465 if tls else 25),
        tls=tls,
        starttls=starttls,
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


def check_from(value: str) -> str:
    """``REFEREE_SMTP_FROM`` as given, if it holds one address."""
    _, addr = parseaddr(value)
    if "@" not in addr or any(c in value for c in "\r\n"):
        raise BadSmtpURL("REFEREE_SMTP_FROM must be an address (`Referee <referee@example.org>`)")
    return value


def domain_of(sender: str) -> str:
    """The domain of the From address (for Message-ID)."""
    try:
        return Address(addr_spec=parseaddr(sender)[1]).domain or "referee.invalid"
    except (ValueError, IndexError):
        return "referee.invalid"


def send(target: SmtpTarget, message: EmailMessage, *, timeout: float) -> int:
    """Send ``message`` (its ``From`` and ``To`` headers are the envelope); 250 once the
    server has accepted the data. Raises ``smtplib.SMTPException`` or ``OSError``."""
    context = ssl.create_default_context()
    client: smtplib.SMTP
    if target.tls:
        client = smtplib.SMTP_SSL(target.host, target.port, timeout=timeout, context=context)
    else:
        client = smtplib.SMTP(target.host, target.port, timeout=timeout)
    with client:
        client.ehlo()
        if target.starttls:
            if not client.has_extn("starttls"):
                raise smtplib.SMTPNotSupportedError("the server does not offer STARTTLS")
            client.starttls(context=context)
            client.ehlo()
        if target.user is not None:
            client.login(target.user, target.password or "")
        refused = client.send_message(message)
        if refused:
            raise smtplib.SMTPRecipientsRefused(refused)
    return 250
