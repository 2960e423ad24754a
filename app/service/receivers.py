"""Which webhook receivers the service will call: a strict URL check and the address policy.

:func:`check_url` runs at registration: an absolute ``http``/``https`` URL with a host, a port
in 1..65535 when one is given, no user information, no whitespace, control character or
backslash anywhere, and a host that is either a DNS name or a *canonical* literal address --
dotted-quad IPv4 (``127.0.0.1``, never the shorthand ``127.1``, ``2130706433``,
``0x7f000001`` or ``0177.0.0.1`` that some resolvers read as the same address) or a bracketed
IPv6 address without a zone. Each refusal names why; the caller reports it at ``/url``.

:func:`refusal` is the address policy, applied to a literal address at registration and to
every address a name resolves to before each delivery attempt: only globally routable
unicast addresses are allowed. An IPv6 address that carries an IPv4 address -- IPv4-mapped
(``::ffff:a.b.c.d``), IPv4-compatible (``::a.b.c.d``), NAT64 (``64:ff9b::/96``), 6to4
(``2002::/16``), Teredo (``2001::/32``) -- is judged by the IPv4 address too, so none of them
reaches a private IPv4 network; the local-use NAT64 prefix ``64:ff9b:1::/48`` is refused.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import SplitResult, urlsplit

import httpx

from app.service.jsonsafe import bad_line

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
_LABEL = re.compile(r"^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$")
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")


class BadURL(ValueError):
    """A receiver URL the service will not call; the message says why."""


def check_url(url: str) -> SplitResult:
    """The parts of a receiver URL the service will call; :class:`BadURL` otherwise. The
    address policy (:func:`refusal`) is the caller's to apply to a literal host."""
    problem = bad_line(url)
    if problem:
        raise BadURL(problem)
    if any(ch.isspace() for ch in url):
        raise BadURL("the URL contains whitespace (percent-encode it)")
    if "\\" in url:
        raise BadURL("the URL contains a backslash (percent-encode it)")
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # a malformed IPv6 literal
        raise BadURL(f"the URL cannot be parsed: {exc}") from None
    try:
        port = parts.port
    except ValueError:  # no number, or out of range
        raise BadURL("the port must be a number from 1 to 65535") from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BadURL("an absolute http:// or https:// URL is required")
    if "@" in parts.netloc:
        raise BadURL("credentials (user information) in the URL are not allowed")
    host = parts.hostname or ""
    if not host:
        raise BadURL("the URL has no host")
    if port is not None and not 1 <= port <= 65535:
        raise BadURL("the port must be a number from 1 to 65535")
    if parts.netloc.endswith(":"):
        raise BadURL("an empty port is not allowed")
    literal = _check_host(host, bracketed=parts.netloc.startswith("["))
    try:
        parsed = httpx.URL(url)
    except Exception as exc:  # what the delivery's client would refuse, refused now
        raise BadURL(f"the URL cannot be parsed: {exc}") from None
    if literal is not None:
        same = ipaddress.ip_address(parsed.host) == literal
    else:
        same = parsed.host.lower() == host.lower()
    if not same:  # the two parsers disagree: refuse rather than guess which one connects
        raise BadURL(f"the URL's host {host!r} is ambiguous")
    return parts


def _check_host(host: str, *, bracketed: bool) -> IPAddress | None:
    """The literal address of ``host`` (None for a name); :class:`BadURL` for a non-canonical
    literal or a malformed name."""
    if bracketed:
        if "%" in host:
            raise BadURL("an IPv6 zone identifier is not allowed")
        try:
            return ipaddress.IPv6Address(host)
        except ValueError:
            raise BadURL(f"[{host}] is not an IPv6 address") from None
    name = host[:-1] if host.endswith(".") else host
    labels = name.split(".")
    if _NUMERIC_LABEL.match(labels[-1]):  # read as an IPv4 address by URL parsers (WHATWG)
        try:
            address = ipaddress.IPv4Address(name)
        except ValueError:
            address = None
        if address is None or str(address) != host:
            raise BadURL(
                f"{host} is not a canonical IPv4 address: write it as four decimal numbers "
                "without leading zeros (a.b.c.d)"
            )
        return address
    if len(name) > 253:
        raise BadURL("the host name is longer than 253 characters")
    if not name.isascii():
        try:
            name = name.encode("idna").decode("ascii")
        except UnicodeError:
            raise BadURL(f"{host} is not a valid internationalised host name") from None
    if not all(_LABEL.match(label) for label in name.split(".")):
        raise BadURL(f"{host} is not a valid host name")
    return None


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (IPv4-mapped, IPv4-compatible, NAT64 well-known
    prefix, 6to4, Teredo client), if any."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64 or address in _IPV4_COMPATIBLE:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _public(address: IPAddress) -> bool:
    return (
        address.is_global
        and not address.is_multicast
        and not address.is_reserved
        and not address.is_unspecified
    )


def refusal(address: IPAddress) -> str | None:
    """None when the policy allows ``address``; else why not."""
    if isinstance(address, ipaddress.IPv6Address) and int(address) > 1:  # not :: or ::1
        if address in _NAT64_LOCAL:
            return f"{address} is a local-use NAT64 address"
        inner = embedded_ipv4(address)
        if inner is not None and not _public(inner):
            return f"{address} carries the non-public IPv4 address {inner}"
        if inner is not None and address.sixtofour is None and address.teredo is None:
            return None  # mapped, compatible, NAT64: the IPv4 address decides
    if not _public(address):
        return f"{address} is not a public address"
    return None


def host_refusal(host: str) -> str | None:
    """Registration: None when ``host`` may be called (a name is judged once resolved, at
    delivery); else why not. ``localhost`` and ``*.localhost`` are loopback by definition."""
    lowered = host.lower().rstrip(".")
    if lowered == "localhost" or lowered.endswith(".localhost"):
        return f"{host} is not a public address"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    return refusal(address)


def resolved_refusal(url: str) -> str | None:
    """Delivery: None when every address ``url``'s host resolves to is allowed; else why not
    (a URL the registration check would refuse -- a row stored before it existed -- too)."""
    try:
        parts = check_url(url)
    except BadURL as exc:
        return str(exc)
    host = parts.hostname or ""
    refused = host_refusal(host)
    if refused is not None:
        return refused
    try:
        infos = socket.getaddrinfo(
            host, parts.port or (443 if parts.scheme == "https" else 80), proto=socket.IPPROTO_TCP
        )
    except (OSError, UnicodeError) as exc:
        return f"cannot resolve {host}: {exc}"
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        why = refusal(address)
        if why is not None:
            return f"{host} resolves to a refused address: {why}"
    return None
