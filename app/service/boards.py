"""An in-process LRU cache of parsed boards, keyed by ruleset and board digest.

Boards are immutable, so a request on a game whose board was parsed before skips reading
and validating the (possibly large) board JSON.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

BoardKey = tuple[str, str, str]
"""(ruleset id, ruleset version, board digest)."""


def canonical_json(data: Any) -> bytes:
    """Stable bytes for hashing: sorted keys, no whitespace, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def digest(data: Any) -> str:
    """SHA-256 hex digest of the canonical JSON of ``data``."""
    return hashlib.sha256(canonical_json(data)).hexdigest()


class BoardCache:
    """Thread-safe LRU of parsed boards."""

    def __init__(self, maxsize: int = 128) -> None:
        self.maxsize = maxsize
        self._items: OrderedDict[BoardKey, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: BoardKey, load: Callable[[], Any]) -> Any:
        """The cached board for ``key``, or ``load()`` it and keep it."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.hits += 1
                return self._items[key]
            self.misses += 1
        board = load()
        self.put(key, board)
        return board

    def put(self, key: BoardKey, board: Any) -> None:
        with self._lock:
            self._items[key] = board
            self._items.move_to_end(key)
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
