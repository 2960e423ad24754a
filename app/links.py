"""The service's public address (``REFEREE_PUBLIC_URL``) and the links built from it.

Every link the service hands out -- the console and API addresses of a game in the answer of
``POST /games`` and in webhook payloads, and (through ``GET /config``) the invitation links
the console builds -- starts with the public URL: the address players reach the service at,
which is not the address it binds (``127.0.0.1``, or ``0.0.0.0`` behind a reverse proxy).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import quote, urlsplit, urlunsplit

OPERATIONS_DOC = "docs/OPERATIONS.md"


def normalise_public_url(value: str) -> str:
    """``value`` as a public URL: absolute, ``http`` or ``https``, with a host, no query,
    fragment or credentials; without its trailing slash. Raises ValueError saying why not."""
    text = value.strip()
    example = "e.g. https://referee.example.org or http://192.168.1.20:8000"
    try:
        parts = urlsplit(text)
        port = parts.port  # raises on a port that is not a number or out of range
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a URL ({exc}); {example}") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{text!r} is not an absolute http(s) URL; {example}")
    if not parts.hostname:
        raise ValueError(f"{text!r} has no host; {example}")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"{text!r} must not carry credentials")
    if parts.query or parts.fragment or text.endswith(("?", "#")):
        raise ValueError(f"{text!r} must not have a query or fragment; {example}")
    host = parts.hostname
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc = f"{netloc}:{port}"
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def is_loopback_host(host: str) -> bool:
    """Whether binding ``host`` keeps the service on this machine (``localhost``,
    ``127.0.0.0/8``, ``::1``)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def clear_text_warning(host: str, public_url: str | None) -> str | None:
    """The warning ``referee serve`` prints when it binds a non-loopback address and no
    TLS is in front (the public URL is not ``https``); None when there is nothing to say."""
    if is_loopback_host(host) or (public_url or "").startswith("https://"):
        return None
    where = f"REFEREE_PUBLIC_URL is {public_url}" if public_url else "REFEREE_PUBLIC_URL is unset"
    return (
        f"WARNING: referee serve listens on {host}, reachable from other machines, and "
        f"{where} (no HTTPS in front): seat tokens would travel in clear text over the "
        "network, and anyone on the way can read them and play those seats. Put a TLS "
        "reverse proxy in front and set REFEREE_PUBLIC_URL=https://...; see "
        f'"Deploying for remote players" in {OPERATIONS_DOC}.'
    )


def game_links(base: str, game_id: str) -> dict[str, str]:
    """The console page and the API resource of a game under ``base`` (no trailing slash)."""
    gid = quote(game_id, safe="")
    return {"console": f"{base}/#game={gid}", "api": f"{base}/v1/games/{gid}"}


def invitation_link(base: str, game_id: str, seat: str, token: str) -> str:
    """A seat's invitation: the console opened on the game with the token in the fragment
    (which browsers never send to a server)."""
    gid, s, t = (quote(v, safe="") for v in (game_id, seat, token))
    return f"{base}/#game={gid}&seat={s}&token={t}"


def spectator_link(base: str, game_id: str) -> str:
    """The console opened read-only on a public game."""
    return f"{base}/#game={quote(game_id, safe='')}&as=spectator"
