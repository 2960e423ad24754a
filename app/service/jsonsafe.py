"""Reject JSON values that a database cannot store faithfully, or that no game needs.

PostgreSQL's ``jsonb`` refuses the NUL character, UTF-8 cannot carry lone surrogates, and
``NaN``/``Infinity`` (which Python's JSON parser accepts) are not JSON. Such values are client
errors, named by location, on every database alike. Every stored document is also bounded:
integers within the exact range of a JSON number (|n| <= 2**53, what every JSON client reads
back unchanged), text at most :data:`MAX_TEXT` characters (a 4,000-digit turn or a 900 KB
title is refused), nesting at most :data:`MAX_DEPTH` deep. The database engines refuse
non-finite numbers too (``allow_nan=False``, see ``app.db.engine``): this is the check that
names the field first.
"""

from __future__ import annotations

import math
from typing import Any

from app.service.errors import FieldError, pointer

MAX_DEPTH = 64
MAX_INT = 2**53
"""Largest magnitude of a stored integer (exactly representable in every JSON reader)."""
MAX_TEXT = 10_000
"""Longest stored string, in characters (titles, ids, labels; nothing legitimate is longer)."""


def _bad_text(value: str) -> str | None:
    if len(value) > MAX_TEXT:
        return f"text may be at most {MAX_TEXT} characters long"
    if "\x00" in value:
        return "text may not contain the NUL character (\\u0000)"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "text may not contain unpaired surrogates"
    return None


def _fine(value: Any, depth: int = 0) -> bool:
    """True when nothing in ``value`` is unstorable: the quick walk of every write's documents
    (no locations kept; :func:`unsafe_values` walks again to name them only when it fails)."""
    kind = type(value)
    if kind is str:
        return (
            len(value) <= MAX_TEXT
            and "\x00" not in value
            and (value.isascii() or _bad_text(value) is None)
        )
    if kind is bool or value is None:
        return True
    if kind is int:
        return bool(-MAX_INT <= value <= MAX_INT)
    if kind is float:
        return math.isfinite(value)
    if depth >= MAX_DEPTH:
        return False
    if kind is dict:
        return all(type(k) is str and _fine(k) for k in value) and all(
            _fine(v, depth + 1) for v in value.values()
        )
    if kind is list:
        return all(_fine(v, depth + 1) for v in value)
    return False  # anything else (subclasses too): let the full walk judge it


def unsafe_values(data: Any, prefix: tuple[Any, ...] = ()) -> list[FieldError]:
    """Every location in ``data`` holding an unstorable value (empty when all is well)."""
    return [] if _fine(data) else _walk(data, prefix)


def _walk(data: Any, prefix: tuple[Any, ...]) -> list[FieldError]:
    out: list[FieldError] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [(prefix, data)]
    while stack:
        path, value = stack.pop()
        if len(path) - len(prefix) > MAX_DEPTH:
            out.append(FieldError(pointer(path), "nested too deeply", "json.too_deep"))
            continue
        if isinstance(value, str):
            problem = _bad_text(value)
            if problem:
                out.append(FieldError(pointer(path), problem, "json.unsupported_text"))
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int):
            if abs(value) > MAX_INT:
                out.append(
                    FieldError(
                        pointer(path),
                        f"integers must lie between -2**53 and 2**53 ({MAX_INT})",
                        "json.number_too_large",
                    )
                )
        elif isinstance(value, float):
            if not math.isfinite(value):
                out.append(FieldError(pointer(path), "numbers must be finite", "json.not_finite"))
        elif isinstance(value, dict):
            for key, item in value.items():
                key_problem = _bad_text(str(key))
                if key_problem:
                    out.append(
                        FieldError(pointer(path), f"a key: {key_problem}", "json.unsupported_text")
                    )
                    continue
                stack.append(((*path, key), item))
        elif isinstance(value, list):
            stack.extend(((*path, i), item) for i, item in enumerate(value))
    return sorted(out, key=lambda e: e.location)
