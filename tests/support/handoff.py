"""A module-scoped fixture for the tests of the `zoc` index's hand-on: states of every size
handed on (small ones are otherwise indexed afresh, ``HAND_ON_FROM``;
tests/rules/zoc/test_small_states.py). Import it into a test module to use it there."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app import native

zoc_index = native.selected("app.rules.zoc.index")  # the build in use


@pytest.fixture(autouse=True, scope="module")
def small_states_handed_on() -> Iterator[None]:
    kept = zoc_index.HAND_ON_FROM
    setattr(zoc_index, "HAND_ON_FROM", 0)  # noqa: B010 -- a module (mypy: no such attribute)
    yield
    setattr(zoc_index, "HAND_ON_FROM", kept)  # noqa: B010
