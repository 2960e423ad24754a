"""Capped page sizes: a `limit` above the server's maximum is lowered to it, and the answer
says so with ``Referee-Limit-Capped: <maximum>`` (the page still has ``next`` when more
items follow), so a client never mistakes a capped page for the whole list."""

from __future__ import annotations

LIMIT_CAPPED_HEADER = "Referee-Limit-Capped"


def capped(limit: int, maximum: int) -> tuple[int, dict[str, str]]:
    """The page size to use and the headers that signal a cap."""
    if limit > maximum:
        return maximum, {LIMIT_CAPPED_HEADER: str(maximum)}
    return limit, {}
