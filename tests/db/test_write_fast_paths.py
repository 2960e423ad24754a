"""Issue 11: the shortcuts of the write path give the answers of the long way.

* ``jsonsafe``: the quick check every write's documents go through never passes a document
  the full walk (which names locations) would refuse, and passes the documents games write;
* ``json_reuse``: inside the block a document stored in two columns is encoded once, to the
  same text; outside it nothing is remembered.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.db.engine import JSON_SERIALIZER, json_reuse
from app.service.jsonsafe import MAX_INT, _fine, _walk, unsafe_values

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),  # NUL and lone surrogates included
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=30,
)
storable_text = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"))
clean = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-MAX_INT, max_value=MAX_INT),
        st.floats(allow_nan=False, allow_infinity=False),
        storable_text,
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(storable_text, inner, max_size=4),
    ),
    max_leaves=30,
)


@given(documents)
def test_the_quick_check_never_passes_what_the_walk_refuses(doc: Any) -> None:
    if _fine(doc):
        assert _walk(doc, ()) == []
    assert unsafe_values(doc) == _walk(doc, ())


@given(clean)
def test_the_quick_check_passes_storable_documents(doc: Any) -> None:
    assert _fine(doc)


def test_deep_nesting_is_left_to_the_walk() -> None:
    doc: Any = 1
    for _ in range(70):
        doc = [doc]
    assert not _fine(doc)
    assert [e.type for e in unsafe_values(doc)] == ["json.too_deep"]


def test_a_document_stored_twice_is_encoded_once() -> None:
    state = {"units": {"a": {"hex": "0101", "steps": [1, 2.5]}}, "turn": 3}
    with json_reuse():
        first = JSON_SERIALIZER(state)
        again = JSON_SERIALIZER(state)
        other = JSON_SERIALIZER(dict(state))  # an equal but different object: encoded anew
    assert first is again and first == json.dumps(state) and other == first
    assert other is not first
    assert JSON_SERIALIZER(state) is not first  # outside the block nothing is kept
