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
import re
import unicodedata
from typing import Any

import pydantic_core
from pydantic import BaseModel

from app.service.errors import FieldError, pointer

MAX_DEPTH = 64
MAX_INT = 2**53
"""Largest magnitude of a stored integer (exactly representable in every JSON reader)."""
MAX_TEXT = 10_000
"""Longest stored string, in characters (titles, ids, labels; nothing legitimate is longer)."""


def bad_line(text: str) -> str | None:
    """Why ``text`` may not be a single-line text field -- a label, a URL, an id, a name --
    (None when it may): a control character (the NUL character among them, which PostgreSQL
    cannot store), an unpaired surrogate (which UTF-8 cannot carry) or a line or paragraph
    separator. Such fields are refused on every database alike."""
    if text.isascii() and text.isprintable():
        return None
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if category == "Cc":
            return f"text may not contain control characters (U+{ord(ch):04X} at {i})"
        if category == "Cs":
            return f"text may not contain unpaired surrogates (U+{ord(ch):04X} at {i})"
        if category in ("Zl", "Zp"):
            return f"text may not contain line separators (U+{ord(ch):04X} at {i})"
    return None


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


_DIGITS = bytes(48 if 48 <= c <= 57 else 32 for c in range(256))  # digits -> 0, else space
_QUOTES = bytes(34 if c == 34 else 97 for c in range(256))  # quotes kept, else a
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_LONG_INT = b"0" * 16  # 2**53 has 16 digits
_EMPTY_PAIR = re.compile(rb"\[\]|\{\}")


def fine_text(text: str | bytes) -> bool:
    """True when the JSON text of a document can hold nothing :func:`unsafe_values` would
    refuse: the check of a large state, done on its text with a few C-speed passes instead of a
    Python walk of every value. The text is ``json.dumps`` output (``ensure_ascii``, as the
    engines write it) or :func:`encode_state` output (UTF-8 bytes, which cannot hold a lone
    surrogate). Conservative: anything that might be a problem (a NUL or surrogate escape, a
    ``NaN`` or ``Infinity`` token -- or those words in a string --, a run of 16 digits, an
    escaped quote in a long document, a run longer than :data:`MAX_TEXT` bytes between quotes,
    nesting deeper than :data:`MAX_DEPTH` counting brackets in strings too) answers False, and
    the caller walks the document to find out."""
    if isinstance(text, str):
        if not text.isascii():
            return False
        raw = text.encode("ascii")
    else:
        raw = text
    if b"NaN" in raw or b"Infinity" in raw:
        return False
    escapes = b"\\" in raw  # most states have no escape at all: one scan instead of three
    if escapes and (b"\\u0000" in raw or b"\\ud" in raw):
        return False
    if _LONG_INT in raw.translate(_DIGITS):
        return False
    if len(raw) > MAX_TEXT and (
        (escapes and b'\\"' in raw) or b"a" * (MAX_TEXT + 1) in raw.translate(_QUOTES)
    ):
        return False
    brackets = raw.translate(None, _NOT_BRACKETS)
    if len(brackets) <= 2 * MAX_DEPTH:  # too few brackets to nest deeper than MAX_DEPTH:
        return _balanced(brackets)  # only whether they pair up is left
    for _ in range(MAX_DEPTH):  # each pass removes the innermost level of nesting, one only:
        if not brackets:  # a single substitution, so `{[]}` loses `[]` now and `{}` next pass
            return True
        brackets = _EMPTY_PAIR.sub(b"", brackets)
    return not brackets


def _balanced(brackets: bytes) -> bool:
    """Whether ``brackets`` (only ``[]{}``) pair up: every adjacent ``[]`` and ``{}`` taken
    out until none is left -- the order does not matter, a sequence that pairs up reduces to
    nothing whichever pairs go first -- with two C-speed replaces a round instead of a
    regular expression's substitution (the common document, a ruling or a delta, has a few
    dozen brackets: docs/PERFORMANCE.md, issue 28, session 17)."""
    while brackets:
        fewer = brackets.replace(b"[]", b"").replace(b"{}", b"")
        if len(fewer) == len(brackets):
            return False
        brackets = fewer
    return True


UNENCODABLE = (ValueError, TypeError, RecursionError, pydantic_core.PydanticSerializationError)
"""What :func:`encode_state` raises for a value that is not JSON."""


def encode_state(data: Any) -> bytes:
    """The compact UTF-8 JSON of a (large) document, encoded by pydantic-core's serializer
    (several times faster than ``json.dumps``). Non-finite numbers in plain values (dicts,
    lists) come out as the ``NaN`` / ``Infinity`` tokens, which :func:`fine_text` refuses, so
    they are never stored; inside a pydantic model they come out as the model's serializer
    writes them (pydantic's default: ``null``, as ``model_dump_json()`` and
    ``model_dump(mode="json")`` give them for values typed ``Any``). A lone surrogate or a
    value that is not JSON raises."""
    return pydantic_core.to_json(data, inf_nan_mode="constants")


def _checked(value: Any) -> str | None:
    """:func:`encode_state` of ``value`` when :func:`fine_text` passes it, else None."""
    try:
        raw = encode_state(value)
    except UNENCODABLE:
        return None
    return raw.decode("utf-8") if fine_text(raw) else None


def checked_text(data: Any) -> str | None:
    """The JSON text a column stores for ``data`` when :func:`fine_text` passes it; None
    when it does not (or the encoder refuses a value): then walk it (:func:`unsafe_values`).
    The text parses back to ``data`` (it need not be the text ``json.dumps`` would give)."""
    if type(data) is not dict:
        return None  # documents only (a state is an object): anything else goes the long way
    return _checked(data)


def checked_state_text(state: Any) -> str | None:
    """The JSON text of a (pydantic) state or ruling, encoded from the model itself -- what
    ``model_dump_json()`` gives (non-finite numbers as :func:`encode_state` says) -- when
    :func:`fine_text` passes it; None otherwise (then dump and walk it)."""
    return _checked(state) if isinstance(state, BaseModel) else None


class StoredText:
    """A document already encoded: stands for its text where a JSON column is written inside
    :func:`app.db.engine.json_reuse` (which maps it to ``text``), so a large state is never
    turned into Python objects just to be written. Outside that block it cannot be encoded."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def json_text(doc: Any) -> str:
    """The JSON text of a document the walk found storable (no non-finite number in it)."""
    return pydantic_core.to_json(doc).decode("utf-8")


def fine(value: Any) -> bool:
    """True when nothing in ``value`` is unstorable (the quick walk; see :func:`_fine`)."""
    return _fine(value)


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
