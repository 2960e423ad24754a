"""The parsed-state cache drops a game's other versions by that game's own keys
(``boards.StateLru.drop_versions``), and answers exactly as the look at every key it
replaces (``WeighedLru.drop`` with ``k[0] == game and k != key``), through puts, evictions by
count and by bytes, entries too large to keep, drops and clears."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.service.boards import BoardCache, StateLru, WeighedLru

keys = st.tuples(st.sampled_from("abcdef"), st.integers(1, 4), st.just("zoc"), st.just("1"))
operations = st.lists(
    st.one_of(
        st.tuples(st.just("put"), keys, st.integers(1, 40)),
        st.tuples(st.just("drop_versions"), keys),
        st.tuples(st.just("get"), keys),
        st.tuples(st.just("clear")),
    ),
    max_size=60,
)


def _other_versions(key: tuple[Any, ...]) -> Any:
    return lambda k: k[0] == key[0] and k != key


def _run(cache: WeighedLru, ops: list[tuple[Any, ...]], indexed: bool) -> list[Any]:
    seen = []
    for op in ops:
        if op[0] == "put":
            cache.put(op[1], object(), op[2])
        elif op[0] == "drop_versions":
            key = op[1]
            if indexed:
                assert isinstance(cache, StateLru)
                cache.drop_versions(key)
            else:
                cache.drop(_other_versions(key))
        elif op[0] == "get":
            cache.get(op[1], lambda: (None, 5))
        else:
            cache.clear()
        seen.append((list(cache._items), cache.bytes))
    return seen


@given(operations, st.integers(1, 8), st.integers(20, 120))
def test_dropping_by_the_games_keys_answers_as_a_look_at_every_key(
    ops: list[tuple[Any, ...]], maxsize: int, max_bytes: int
) -> None:
    indexed = StateLru(maxsize, max_bytes)
    plain = WeighedLru(maxsize, max_bytes)
    assert _run(indexed, ops, True) == _run(plain, ops, False)
    # the index holds exactly the keys kept, by game: nothing left behind by an eviction
    by_game: dict[str, set[Any]] = {}
    for key in indexed._items:
        by_game.setdefault(key[0], set()).add(key)
    assert indexed._games == by_game


def test_the_board_caches_states_are_indexed_by_game() -> None:
    cache = BoardCache()
    for game in ("g1", "g2"):
        for version in (1, 2):
            cache.states.put((game, version, "zoc", "1"), object(), 10)
    cache.keep_state(("g1", 3, "zoc", "1"), object(), 10)
    assert sorted(k[:2] for k in cache.states._items) == [("g1", 3), ("g2", 1), ("g2", 2)]
    cache.state(("g2", 2, "zoc", "1"), lambda: object(), lambda: "{}")  # a hit: nothing dropped
    assert len(cache.states) == 3
    cache.state(("g2", 3, "zoc", "1"), lambda: object(), lambda: "{}")  # a miss drops the rest
    assert sorted(k[:2] for k in cache.states._items) == [("g1", 3), ("g2", 3)]
