"""Seat tokens: 256 random bits, shown once, stored only as SHA-256."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    """A fresh bearer token (``secrets.token_urlsafe(32)``: 256 bits)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same_hash(stored: str, presented: str) -> bool:
    """Constant-time comparison of two token hashes."""
    return hmac.compare_digest(stored.encode(), presented.encode())
