"""Issue 28: a game view's JSON with the state's text put in as it is
(:func:`app.service.games.put_state`); the test suite's ``REFEREE_CHECK_KEPT_STATE``
compares every view made so with the long way's (``_view_head``)."""

from __future__ import annotations

import json

from app.service.games import put_state


def test_the_state_text_goes_where_the_empty_state_was() -> None:
    view = json.dumps({"id": "g", "state": {}, "version": 3, "clock": None}, separators=(",", ":"))
    text = b'{"units":[{"id":"a"}],"turn":2}'
    head = put_state(view.encode(), text)
    assert head is not None
    assert json.loads(head + b"}") == {
        "id": "g",
        "state": {"units": [{"id": "a"}], "turn": 2},
        "version": 3,
        "clock": None,
    }


def test_a_second_empty_state_key_is_not_guessed_at() -> None:
    view = b'{"options":{"state":{}},"state":{},"version":3}'
    assert put_state(view, b'{"turn":1}') is None
    assert put_state(b'{"version":3}', b'{"turn":1}') is None
