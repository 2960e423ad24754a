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


class BoardCache:
    """Thread-safe LRU of parsed boards (and, in :attr:`states`, of parsed game states)."""

    def __init__(self, maxsize: int = 128, states: int | None = None) -> None:
        self.maxsize = maxsize
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self.states: BoardCache | None = (
            BoardCache(states if states is not None else 4 * maxsize, states=0)
            if states != 0
            else None
        )
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Any, load: Callable[[], Any]) -> Any:
        """The cached value for ``key``, or ``load()`` it and keep it."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.hits += 1
                return self._items[key]
            self.misses += 1
        board = load()
        self.put(key, board)
        return board

    def state(self, key: StateKey, load: Callable[[], Any]) -> Any:
        """The parsed state of a game at a version (kept in :attr:`states`)."""
        if self.states is None:
            return load()
        return self.states.get(key, load)

    def put(self, key: Any, board: Any) -> None:
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
        if self.states is not None:
            self.states.clear()
