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


DEFAULT_MAX_BYTES = 16 * 1024 * 1024
"""Default byte bound: 16 MiB of board JSON, about 130 MiB of parsed boards (a parsed board
takes about 8 times its JSON: 2.8 MB -> 23 MiB for a 40,000-hex zoc map)."""


class BoardCache:
    """Thread-safe LRU of parsed boards, bounded in entries and in bytes.

    Each entry is weighed by the size of its board's JSON (``size`` given by whoever parsed
    it); the least recently used boards are dropped while the total is over ``max_bytes``. A
    board larger than ``max_bytes`` on its own is served but not kept."""

    def __init__(self, maxsize: int = 128, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self._items: OrderedDict[BoardKey, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def get(self, key: BoardKey, load: Callable[[], tuple[Any, int]]) -> Any:
        """The cached board for ``key``, or ``load()`` it (board, JSON bytes) and keep it."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.hits += 1
                return self._items[key][0]
            self.misses += 1
        board, size = load()
        self.put(key, board, size)
        return board

    def put(self, key: BoardKey, board: Any, size: int) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            if size > self.max_bytes:
                return
            self._items[key] = (board, size)
            self.bytes += size
            while len(self._items) > self.maxsize or self.bytes > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self.bytes -= dropped

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.bytes = 0
