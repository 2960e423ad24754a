"""ETags are game versions: ``W/"<version>"``. If-Match accepts ``"7"``, ``W/"7"`` or ``*``."""

from __future__ import annotations

from app.service.pipeline import IfMatch


def format_etag(version: int) -> str:
    return f'W/"{version}"'


def parse_etags(value: str | None) -> IfMatch | None:
    """Parse an If-Match / If-None-Match header; None when the header is absent.

    Comparison is weak (the ``W/`` prefix is ignored): a game's version names its state,
    whatever seat views it. Entity tags that are not versions never match.
    """
    if value is None:
        return None
    if value.strip() == "*":
        return IfMatch(any=True)
    versions: set[int] = set()
    for part in value.split(","):
        tag = part.strip()
        if tag[:2].upper() == "W/":
            tag = tag[2:]
        tag = tag.strip('"')
        if tag.isascii() and tag.isdigit() and len(tag) <= 18:
            versions.add(int(tag))
    return IfMatch(versions=frozenset(versions))
