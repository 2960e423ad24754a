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

import pydantic_core

from app.db.deltas import StoredChain

BoardKey = tuple[str, str, str]
"""(ruleset id, ruleset version, board digest)."""
StateKey = tuple[str, int, str, str]
"""(game id, game version, ruleset id, ruleset version)."""


def canonical_json(data: Any) -> bytes:
    """Stable bytes for hashing: sorted keys, no whitespace, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def json_size(doc: Any) -> int:
    """How many bytes ``doc``'s compact JSON takes, as pydantic-core writes it (the text a
    write stores a state as): what the caches weigh a parsed document by. The length of its
    :func:`canonical_json` too (sorting the keys changes no length) but for how a float is
    written (``1e-5``, not ``1e-05``), made 3-5x faster: 0.26 against 0.86 ms for a
    526-unit state, 1.6 against 8 ms for a 100x100 board -- more than parsing either
    (docs/PERFORMANCE.md, issue 28 session 13)."""
    return len(pydantic_core.to_json(doc))


def digest(data: Any) -> str:
    """SHA-256 hex digest of the canonical JSON of ``data``."""
    return hashlib.sha256(canonical_json(data)).hexdigest()


DEFAULT_MAX_BYTES = 16 * 1024 * 1024
"""Default byte bound: 16 MiB of board JSON, about 130 MiB of parsed boards (a parsed board
takes about 8 times its JSON: 2.8 MB -> 23 MiB for a 40,000-hex zoc map)."""


class WeighedLru:
    """Thread-safe LRU bounded in entries and in bytes.

    Each entry is weighed by the size of the JSON it was parsed from (given by whoever parsed
    it); the least recently used entries are dropped while either bound is exceeded. An entry
    larger than ``max_bytes`` on its own is served but not kept."""

    def __init__(self, maxsize: int, max_bytes: int) -> None:
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self._items: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def get(self, key: Any, load: Callable[[], tuple[Any, int]]) -> Any:
        """The cached value for ``key``, or ``load()`` it (value, JSON bytes) and keep it."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.hits += 1
                return self._items[key][0]
            self.misses += 1
        value, size = load()
        self.put(key, value, size)
        return value

    def put(self, key: Any, value: Any, size: int) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            if size > self.max_bytes:
                if old is not None:
                    self._gone(key)
                return
            self._items[key] = (value, size)
            self.bytes += size
            if old is None:
                self._kept(key)
            while len(self._items) > self.maxsize or self.bytes > self.max_bytes:
                evicted, (_, dropped) = self._items.popitem(last=False)
                self.bytes -= dropped
                self._gone(evicted)

    def _kept(self, key: Any) -> None:
        """``key`` is now kept (the lock held): for a subclass's index of the keys."""

    def _gone(self, key: Any) -> None:
        """``key`` is no longer kept (the lock held): for a subclass's index of the keys."""

    def size_of(self, key: Any) -> int | None:
        """The weight ``key``'s value was kept with (None: not kept)."""
        with self._lock:
            item = self._items.get(key)
        return None if item is None else item[1]

    def drop(self, which: Callable[[Any], bool]) -> None:
        """Forget the entries whose key ``which`` selects."""
        with self._lock:
            for key in [k for k in self._items if which(k)]:
                self.bytes -= self._items.pop(key)[1]
                self._gone(key)

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._clear_locked()

    def _clear_locked(self) -> None:
        self._items.clear()
        self.bytes = 0


class StateLru(WeighedLru):
    """:class:`WeighedLru` of parsed states, keyed by :data:`StateKey`, with the keys kept
    per game: a game's other versions are dropped by its own keys (:meth:`drop_versions`),
    not by a look at every key kept -- a write and every cache miss drop them, and with a
    thousand games kept the look at every key cost more than the rest of a small write
    (docs/PERFORMANCE.md, issue 28, session 17)."""

    def __init__(self, maxsize: int, max_bytes: int) -> None:
        super().__init__(maxsize, max_bytes)
        self._games: dict[Any, set[Any]] = {}

    def _kept(self, key: Any) -> None:
        self._games.setdefault(key[0], set()).add(key)

    def _gone(self, key: Any) -> None:
        keys = self._games.get(key[0])
        if keys is not None:
            keys.discard(key)
            if not keys:
                del self._games[key[0]]

    def drop_versions(self, key: StateKey) -> None:
        """Forget the game of ``key``'s entries other than ``key``'s own (as
        ``drop(lambda k: k[0] == key[0] and k != key)``)."""
        with self._lock:
            keys = self._games.get(key[0])
            if not keys or (len(keys) == 1 and key in keys):
                return
            for other in [k for k in keys if k != key]:
                self.bytes -= self._items.pop(other)[1]
                self._gone(other)

    def clear(self) -> None:
        with self._lock:
            self._clear_locked()
            self._games.clear()


class BoardCache(WeighedLru):
    """Parsed boards per (ruleset, version, digest), bounded in entries and in bytes of board
    JSON; :attr:`states` keeps parsed game states per (game, version) and :attr:`views` the
    serialised game views per (game, version, seat), each under the same byte bound (and four
    entries per board)."""

    def __init__(self, maxsize: int = 128, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        super().__init__(maxsize, max_bytes)
        self.states = StateLru(4 * maxsize, max_bytes)
        self.views = WeighedLru(4 * maxsize, max_bytes)
        """Serialised game views per (game, version, seat): bytes (``games.read_game``)."""

    def state(self, key: StateKey, load: Callable[[], Any], raw: Callable[[], Any]) -> Any:
        """The parsed state of a game at a version; ``raw()`` gives the stored state (its
        document, its JSON text as stored, or a snapshot's text and the deltas after it), read
        and weighed only when the state is parsed (on a miss, which also drops the game's
        other versions: see :meth:`keep_state`): a text by its length (the compact text a
        write stores; a game's first state, written spaced by the JSON column's serializer,
        weighs a tenth more), a chain by its text's and its deltas', a document by
        :func:`json_size` -- the length of the text a write stores and weighs a kept state
        by."""

        def parse() -> tuple[Any, int]:
            self.states.drop_versions(key)
            stored = raw()
            if isinstance(stored, str):
                size = len(stored)
            elif isinstance(stored, StoredChain):
                size = stored.size()
            else:
                size = json_size(stored)
            return load(), size

        return self.states.get(key, parse)

    def state_size(self, key: StateKey) -> int | None:
        """The JSON size a kept state of (game, version) was weighed with (None: not kept)."""
        return self.states.size_of(key)

    def keep_state(self, key: StateKey, state: Any, size: int) -> None:
        """Keep ``state`` as the parsed state of (game, version) and drop the game's other
        versions. Every request reads the game's version from the database and asks for that
        one, so once a write has moved a game on, its older states are never asked for again
        (a rollback writes a new version); kept, they would weigh on memory and on the
        garbage collector (a 500-unit state is some 5,000 objects)."""
        self.states.drop_versions(key)
        self.states.put(key, state, size)

    def clear(self) -> None:
        super().clear()
        self.states.clear()
        self.views.clear()
