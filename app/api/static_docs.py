"""Documents that only change with a ruleset's version, built once and served with an ETag.

``GET /rulesets``, ``GET /rulesets/{id}`` and ``GET /rulesets/{id}/openapi.json`` answer the
same bytes for as long as the registered rulesets keep their ids and versions. Each body is
encoded once per key (the ruleset id and version, or every ruleset's for the list) with the
bytes FastAPI's ``JSONResponse`` would send, and served with a strong ``ETag`` (a digest of the
body); a request whose ``If-None-Match`` names it gets ``304 Not Modified`` with no body.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from fastapi import Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse


@dataclass(frozen=True)
class StaticDocument:
    body: bytes
    etag: str


_documents: dict[Hashable, StaticDocument] = {}
_lock = threading.Lock()


def encode(content: Any) -> StaticDocument:
    """The body FastAPI's default response would carry, and its strong ETag."""
    body = bytes(JSONResponse(jsonable_encoder(content)).body)
    return StaticDocument(body, f'"{hashlib.sha256(body).hexdigest()[:32]}"')


def document(key: Hashable, build: Callable[[], Any]) -> StaticDocument:
    """The document of ``key``, built (``build()``, then encoded) the first time only."""
    doc = _documents.get(key)
    if doc is None:
        doc = encode(build())
        with _lock:
            doc = _documents.setdefault(key, doc)
    return doc


def clear() -> None:
    """Forget every built document (tests)."""
    with _lock:
        _documents.clear()


def if_none_match(header: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (weak comparison, RFC 9110 13.1.2:
    a ``W/`` prefix is ignored; ``*`` matches any current document)."""
    if header is None:
        return False
    if header.strip() == "*":
        return True
    for part in header.split(","):
        tag = part.strip()
        if tag[:2].upper() == "W/":
            tag = tag[2:]
        if tag == etag:
            return True
    return False


def respond(request: Request, doc: StaticDocument) -> Response:
    """200 with the body and its ETag, or 304 when the client already holds it."""
    headers = {"ETag": doc.etag}
    if if_none_match(request.headers.get("if-none-match"), doc.etag):
        return Response(status_code=304, headers=headers)
    return Response(doc.body, media_type="application/json", headers=headers)
