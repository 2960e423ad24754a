"""Garbage in never gets a 5xx: random JSON and bytes to every POST endpoint."""

from __future__ import annotations

from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.config import Settings
from app.main import create_app
from tests.support.server import running_server
from tests.support.tiny import TINY

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
actions = st.fixed_dictionaries(
    {"kind": st.sampled_from(["step", "reset", "note", "probe", "fly", ""])},
    optional={
        "pawn": st.sampled_from(["r1", "b1", "zz"]) | st.text(max_size=5) | st.integers(),
        "n": st.integers(-1000, 1000) | st.text(max_size=3) | st.none(),
        "text": st.text(max_size=20),
        "hex": st.text(max_size=8) | st.integers(),
        "extra": json_values,
    },
)
bodies = st.one_of(
    json_values.map(lambda v: ("json", v)),
    actions.map(lambda v: ("json", v)),
    st.fixed_dictionaries(
        {
            "ruleset": st.sampled_from(["tiny", "nope"]) | st.text(max_size=5),
            "scenario": json_values,
        },
        optional={"options": json_values, "public": json_values},
    ).map(lambda v: ("json", v)),
    st.binary(max_size=64).map(lambda v: ("bytes", v)),
    st.sampled_from(
        [
            b'{"kind": "step", "pawn": "r1", "n": Infinity}',
            b'{"kind": "note", "text": NaN}',
            b'{"ruleset": "tiny", "scenario": {"length": NaN}}',
            b'{"ruleset": "tiny", "scenario": {"length": 3, "pad": -Infinity}}',
            b'{"kind": "probe", "hex": "\\ud800"}',
            b'{"ruleset": "tiny", "scenario": {"length": 1e999}}',
            b'{"kind": "step", "pawn": "r1", "n": 1e400}',
            b"[" * 5000 + b"]" * 5000,
            b'{"kind": "note", "text": "\\u0000"}',
        ]
    ).map(lambda v: ("bytes", v)),
)


def test_garbage_never_causes_a_server_error(db_url: str) -> None:
    app = create_app(Settings(database_url=db_url, max_body_bytes=2048))
    with running_server(app) as base, httpx.Client(base_url=base, timeout=30) as c:
        created = c.post("/games", json={"ruleset": "tiny", "scenario": TINY.example_scenario()})
        gid, seats = created.json()["id"], created.json()["seats"]
        umpire = {"Authorization": f"Bearer {seats['umpire']}"}

        @settings(
            max_examples=60,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        )
        @given(body=bodies, if_match=st.sampled_from(["*", 'W/"1"', "x", ""]))
        def check(body: tuple[str, Any], if_match: str) -> None:
            form, value = body
            for path in ("/games", f"/games/{gid}/rulings", f"/games/{gid}/actions"):
                headers = {**umpire, "If-Match": if_match}
                if form == "json":
                    r = c.post(path, json=value, headers=headers)
                else:
                    r = c.post(
                        path, content=value, headers={**headers, "Content-Type": "application/json"}
                    )
                assert r.status_code < 500, (path, value, r.text)
                assert r.headers["content-type"].startswith(
                    ("application/json", "application/problem+json")
                )

        check()
