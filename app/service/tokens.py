"""Seat tokens: 256 random bits, shown once, stored only as SHA-256."""

from __future__ import annotations

import hashlib
import hmac
import importlib
import secrets
import sys
from collections.abc import Callable
from typing import Any


def new_token() -> str:
    """A fresh bearer token (``secrets.token_urlsafe(32)``: 256 bits)."""
    return secrets.token_urlsafe(32)


def _small_sha256() -> tuple[Callable[[bytes], Any], str]:
    """SHA-256 for a token's few dozen bytes: CPython's own implementation (``_sha2`` from
    Python 3.12, ``_sha256`` before), else hashlib's. The same digest either way; hashlib's
    is OpenSSL's, whose way to a digest (the algorithm fetched by name, a context allocated
    and copied, engine and init checks) cost about 15 us of CPU a request in the server's
    flow -- a cold walk through OpenSSL on every request -- against 0.4 us in a tight loop
    (docs/PERFORMANCE.md, issue 28, session 20)."""
    if sys.implementation.name != "cpython":  # (PyPy's builtin is pure Python)
        return hashlib.sha256, "hashlib"
    for name in ("_sha2", "_sha256"):
        try:
            found: Callable[[bytes], Any] = importlib.import_module(name).sha256
        except (ImportError, AttributeError):
            continue
        return found, name
    return hashlib.sha256, "hashlib"


_SHA256, SHA256_SOURCE = _small_sha256()
"""The SHA-256 tokens are hashed with, and the module it comes from."""


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return str(_SHA256(token.encode("utf-8", "surrogatepass")).hexdigest())


def same_hash(stored: str, presented: str) -> bool:
    """Constant-time comparison of two token hashes."""
    return hmac.compare_digest(stored.encode(), presented.encode())
