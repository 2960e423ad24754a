"""In-process LRU caches: parsed boards keyed by ruleset and board digest, and parsed states
keyed by game and version.

Boards are immutable, so a request on a game whose board was parsed before skips reading
and validating the (possibly large) board JSON. A game's state changes only with its version
(every write bumps it with one conditional UPDATE), so the state parsed for (game, version)
serves every later request at that version; rulesets never mutate a state they are given
(``apply`` returns a new one), and the rules core keeps its per-state lookups (units by hex,
zones found so far) on that same object, so the next request starts warm.
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
StateKey = tuple[str, int, str, str]
"""(game id, game version, ruleset id, ruleset version)."""


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
        self.states = StateCache(4 * maxsize)
        """Parsed game states per (game, version), four per cached board."""
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

    def state(self, key: StateKey, load: Callable[[], Any]) -> Any:
        """The parsed state of a game at a version (kept in :attr:`states`)."""
        return self.states.get(key, load)

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
        self.states.clear()


class StateCache:
    """Thread-safe LRU of parsed game states, bounded in entries."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._items: OrderedDict[StateKey, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: StateKey, load: Callable[[], Any]) -> Any:
        """The cached state for ``key``, or ``load()`` it and keep it."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        state = load()
        with self._lock:
            self._items[key] = state
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)
        return state

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
