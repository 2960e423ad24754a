"""Event states stored as deltas with a snapshot every N events (issue 28 item 3, migration
0012), over HTTP on both databases: a game played past several snapshots answers its old
positions, audit, export, rollback and takeback exactly as the same game stored with a
snapshot at every event (N=1, as before the migration); and a database made at revision 0011
reads, plays on and audits after the upgrade."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from app.config import Settings
from app.db.engine import make_engine
from app.main import create_app
from tests.match.flowkit import FakeClock, Game, tiny_scenario

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]
ZOC = json.loads((ROOT / "scenarios/zoc/seed-example.json").read_text(encoding="utf-8"))

# umpire actions on the zoc seed example: units moved one at a time (a delta of one unit),
# markers placed and removed (the list grows and shrinks), a unit off the map and back, a
# phase set (every start position and the weather at once)
SCRIPT: list[dict[str, Any]] = [
    {"kind": "place_unit", "unit": "su-18a", "hex": "e3405"},
    {"kind": "place_unit", "unit": "de-inf-1", "hex": "e3209"},
    {
        "kind": "place_marker",
        "marker": {"id": "m1", "kind": "airdrop", "hex": "e3506", "side": "axis"},
    },
    {"kind": "place_unit", "unit": "su-1uk-hq", "hex": "e3604"},
    {
        "kind": "set_phase",
        "phase": "combat",
        "phasing_side": "soviet",
        "weather": {"south": "mud"},
        "turn": 2,
    },
    {"kind": "place_unit", "unit": "de-inf-2", "hex": None},
    {"kind": "place_unit", "unit": "de-inf-2", "hex": "e3103"},
    {
        "kind": "place_marker",
        "marker": {"id": "m2", "kind": "partisan_base", "hex": "e3008", "side": "soviet"},
    },
    {"kind": "remove_marker", "marker": "m1"},
    {"kind": "place_unit", "unit": "su-18a", "hex": "e3306"},
    {"kind": "place_unit", "unit": "de-inf-y", "hex": "e3010"},
]


async def _zoc_game(client: httpx.AsyncClient) -> Game:
    r = await client.post("/games", json={"ruleset": "zoc", "scenario": ZOC})
    assert r.status_code == 201, r.text
    body = r.json()
    return Game(client=client, id=body["id"], seats=body["seats"], body=body)


async def _played(client: httpx.AsyncClient, script: list[dict[str, Any]]) -> Game:
    g = await _zoc_game(client)
    for action in script:
        r = await g.act("umpire", action)
        assert r.status_code == 201, (action, r.text)
    return g


async def _positions(g: Game, last: int) -> list[Any]:
    out = []
    for version in range(1, last + 1):
        r = await g.client.get(f"/games/{g.id}/positions/{version}", headers=g.auth("umpire"))
        assert r.status_code == 200, r.text
        out.append(r.json()["state"])
    return out


async def _export(g: Game, seat: str = "umpire") -> dict[str, Any]:
    r = await g.client.get(f"/games/{g.id}/export", headers=g.auth(seat))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _log(export: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What an export says of each event, without what differs between two games (ids,
    times)."""
    return [
        (e["seq"], e["kind"], e["action"], e["ruling"], e["payload"], e["state_after"])
        for e in export["events"]
    ]


async def _audit(g: Game) -> dict[str, Any]:
    r = await g.client.get(f"/games/{g.id}/audit", headers=g.auth("umpire"))
    assert r.status_code == 200, r.text
    report: dict[str, Any] = r.json()
    report.pop("game", None)
    return report


def _lengths(db_url: str, game_id: str, column: str) -> list[int | None]:
    """The length of each stored event's ``column`` as JSON text (None where SQL NULL)."""
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    f"SELECT length(CAST({column} AS TEXT)) FROM events"
                    " WHERE game_id = :g ORDER BY seq"
                ),
                {"g": game_id},
            ).all()
    finally:
        engine.dispose()
    return [r[0] for r in rows]


def _stored(db_url: str, game_id: str) -> list[tuple[int, bool, bool]]:
    """(seq, has a snapshot, has a delta) of each stored event."""
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT seq, state_after, state_delta IS NOT NULL FROM events "
                    "WHERE game_id = :g ORDER BY seq"
                ),
                {"g": game_id},
            ).all()
    finally:
        engine.dispose()
    snap = [r[1] if not isinstance(r[1], str) else json.loads(r[1]) for r in rows]
    return [(r[0], s is not None, bool(r[2])) for r, s in zip(rows, snap, strict=True)]


async def test_a_game_past_several_snapshots_reads_as_one_stored_whole(
    client: httpx.AsyncClient, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFEREE_SNAPSHOT_EVERY", "1")
    whole = await _played(client, SCRIPT)
    monkeypatch.setenv("REFEREE_SNAPSHOT_EVERY", "4")
    delta = await _played(client, SCRIPT)
    last = len(SCRIPT) + 1

    # stored: N=1 every event whole; N=4 a snapshot at seq 4 and 8, deltas between (the
    # phase set at seq 5 changes most of the state: small enough still on this example)
    assert all(snap and not d for _, snap, d in _stored(db_url, whole.id))
    stored = _stored(db_url, delta.id)
    assert [seq for seq, snap, _ in stored if snap] == [4, 8]
    assert all(d for seq, snap, d in stored if not snap)

    # every old position, the export (as the umpire and as a side) and the audit alike
    assert await _positions(delta, last) == await _positions(whole, last)
    assert _log(await _export(delta)) == _log(await _export(whole))
    assert (await _export(delta))["withheld"] == (await _export(whole))["withheld"]
    assert _log(await _export(delta, "axis")) == _log(await _export(whole, "axis"))
    audit = await _audit(delta)
    assert audit == await _audit(whole)
    assert audit["ok"] is True and audit["events"] == len(SCRIPT)

    # rollbacks to a version between snapshots, to one that is a snapshot, to the start
    for to in (7, 5, 9, 1, 3):
        for g in (whole, delta):
            r = await g.post("/rollback", "umpire", json={"to_version": to})
            assert r.status_code == 201, r.text
        a, b = await whole.view(), await delta.view()
        assert a["state"] == b["state"] and a["version"] == b["version"]
    # played on after the rollbacks; the log (now past snapshot 12 and 16) still audits
    for action in SCRIPT[:4]:
        for g in (whole, delta):
            assert (await g.act("umpire", action)).status_code == 201
    last = await delta.version()
    assert await _positions(delta, last) == await _positions(whole, last)
    assert _log(await _export(delta)) == _log(await _export(whole))
    audit = await _audit(delta)
    assert audit == await _audit(whole) and audit["ok"] is True


async def test_a_takeback_restores_a_state_rebuilt_from_deltas(
    client: httpx.AsyncClient, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The umpire moves units away and back (seq 1-4: a snapshot at 3 with N=3, deltas at 1,
    2 and 4), axis moves, and takes the move back: the state restored is version 5's, which
    with N=3 is rebuilt from snapshot 3 and the delta of event 4."""
    away_and_back = [
        {"kind": "place_unit", "unit": "su-1uk-hq", "hex": "e3309"},
        {"kind": "place_unit", "unit": "su-1uk-hq", "hex": "e3308"},
        {"kind": "place_unit", "unit": "de-inf-2", "hex": "e3108"},
        {"kind": "place_unit", "unit": "de-inf-2", "hex": "e3107"},
    ]
    games = []
    for every in ("1", "3"):
        monkeypatch.setenv("REFEREE_SNAPSHOT_EVERY", every)
        r = await client.post(
            "/games", json={"ruleset": "zoc", "scenario": ZOC, "match": {"takeback": True}}
        )
        assert r.status_code == 201, r.text
        g = Game(client=client, id=r.json()["id"], seats=r.json()["seats"])
        for action in away_and_back:
            assert (await g.act("umpire", action)).status_code == 201
        move = {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]}
        r = await g.act("axis", move)
        assert r.status_code == 201, r.text
        r = await g.post("/takeback", "axis")
        assert r.status_code == 201, r.text
        games.append(g)
    whole, delta = games
    assert [(s, snap) for s, snap, _ in _stored(db_url, delta.id)] == [
        (1, False),
        (2, False),
        (3, True),
        (4, False),
        (5, False),
        (6, True),
    ]
    before_move = (await _positions(delta, 5))[-1]
    assert (await delta.view("umpire"))["state"] == before_move
    assert (await whole.view("umpire"))["state"] == before_move
    assert await _positions(delta, 7) == await _positions(whole, 7)
    assert await _audit(delta) == await _audit(whole)


@pytest.fixture
async def fresh_client(empty_db_url: str) -> AsyncIterator[tuple[str, FakeClock]]:
    yield empty_db_url, FakeClock()


async def _serve(url: str, clock: FakeClock) -> tuple[Any, httpx.AsyncClient]:
    app = create_app(Settings(database_url=url), clock=clock)
    transport = httpx.ASGITransport(app=app)
    return app, httpx.AsyncClient(transport=transport, base_url="http://referee.test")


async def test_a_database_made_at_0011_reads_plays_on_and_audits(
    fresh_client: tuple[str, FakeClock], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Made at head with deltas (N=3), taken down to 0011 (the downgrade writes every delta
    event's whole state, as the release before 0012 stored it), a game is played on there as
    that release's rows are (every event a snapshot), then the database goes up to head again."""
    from alembic import command

    from app.db.migrate import alembic_config, upgrade

    url, clock = fresh_client
    upgrade(url)
    monkeypatch.setenv("REFEREE_SNAPSHOT_EVERY", "3")
    app, client = await _serve(url, clock)
    async with client:
        g = await _played(client, SCRIPT[:7])
        truth = _log(await _export(g))
        positions = await _positions(g, 8)
    app.state.engine.dispose()

    command.downgrade(alembic_config(url), "0011")
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            columns = {
                c["name"] for c in __import__("sqlalchemy").inspect(conn).get_columns("events")
            }
            assert "state_delta" not in columns
            rows = conn.execute(
                text("SELECT seq, state_after FROM events WHERE game_id = :g ORDER BY seq"),
                {"g": g.id},
            ).all()
    finally:
        engine.dispose()
    states = [r[1] if not isinstance(r[1], str) else json.loads(r[1]) for r in rows]
    assert states == [t[-1] for t in truth]  # every event whole again, as 0011 kept them

    upgrade(url)
    app, client = await _serve(url, clock)
    async with client:
        g = Game(client=client, id=g.id, seats=g.seats)
        assert await _positions(g, 8) == positions
        assert _log(await _export(g)) == truth
        for action in SCRIPT[7:]:  # played on: seq 8 to 11, deltas again between snapshots
            assert (await g.act("umpire", action)).status_code == 201
        audit = await _audit(g)
        assert audit["ok"] is True and audit["events"] == len(SCRIPT)
        r = await g.post("/rollback", "umpire", json={"to_version": 2})
        assert r.status_code == 201, r.text
        assert (await g.view())["state"] == positions[1]
    app.state.engine.dispose()
    assert [s for s, snap, _ in _stored(url, g.id) if snap] == [1, 2, 3, 4, 5, 6, 7, 9, 12]


async def test_the_repository_rebuilds_from_the_nearest_snapshot_and_stops_where_none_was_kept(
    client: httpx.AsyncClient, db_url: str
) -> None:
    """``GameRepository.state_after`` / ``states_after`` on a log written row by row: deltas
    from the initial state, a snapshot, a delta adding a key (appended, as both databases keep
    a state document's text since migration 0014), an event that kept no state (as before
    migration 0002: the chain is broken until the next snapshot), a delta removing a key."""
    from sqlalchemy import insert

    from app.db.engine import make_session_factory
    from app.db.models import EventRow
    from app.db.repository import GameRepository

    r = await client.post("/games", json={"ruleset": "tiny", "scenario": tiny_scenario()})
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    view = await client.get(f"/games/{game_id}/positions/1")
    assert view.status_code == 200, view.text
    initial = view.json()["state"]
    assert initial["positions"] == {"r1": 0, "b1": 9}  # the tiny example's set-up

    def at(positions: dict[str, int]) -> dict[str, Any]:
        return {**initial, "positions": positions}

    put = {"keys": {"positions": {"put": {"r1": 1}}}}
    stored: list[tuple[Any, Any]] = [
        (None, put),  # 1: from the initial state
        (None, {"keys": {"positions": {"put": {"b1": 4}}}}),  # 2
        (at({"r1": 5, "b1": 9}), None),  # 3: a snapshot
        (None, {"keys": {"positions": {"put": {"a9": 3}}}}),  # 4: a new key
        (None, None),  # 5: not kept
        (None, put),  # 6: after a break: not known
        (at({"r1": 7, "b1": 1}), None),  # 7: a snapshot again
        (None, {"keys": {"positions": {"del": ["r1"]}}}),  # 8
    ]
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                insert(EventRow),
                [
                    {
                        "game_id": game_id,
                        "seq": seq,
                        "seat": "umpire",
                        "kind": "step",
                        "action": {},
                        "ruling": {},
                        "dice": [],
                        "version": seq + 1,
                        "state_after": snapshot,
                        "state_delta": delta,
                    }
                    for seq, (snapshot, delta) in enumerate(stored, start=1)
                ],
            )
        with make_session_factory(engine)() as session:
            repo = GameRepository(session)
            got = [repo.state_after(game_id, seq, initial) for seq in range(0, 10)]
            rows = repo.events(game_id, after=0, limit=100)
            whole = repo.states_after(game_id, rows, initial)
            tail = repo.states_after(game_id, rows[4:], initial)
    finally:
        engine.dispose()
    expected = [
        initial,
        at({"r1": 1, "b1": 9}),
        at({"r1": 1, "b1": 4}),
        at({"r1": 5, "b1": 9}),
        at({"r1": 5, "b1": 9, "a9": 3}),
        None,
        None,
        at({"r1": 7, "b1": 1}),
        at({"b1": 1}),
        None,  # no event 9
    ]
    assert got == expected
    assert whole == expected[1:9] and tail == expected[5:9]
    # the new key appended, on both databases (the state documents' text is kept as written:
    # the order the snapshot of that state would have come back in)
    order = ["r1", "b1", "a9"]
    fourth, again = got[4], whole[3]
    assert fourth is not None and again is not None
    assert list(fourth["positions"]) == order and list(again["positions"]) == order


async def test_by_weight_a_larger_state_is_stored_whole_less_often_and_reads_the_same(
    client: httpx.AsyncClient, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default snapshot cadence is by weight (``deltas.snapshot_by_weight``): on a board
    whose state weighs more than 64 of its one-unit deltas, events 32 and 64 store deltas
    and the first snapshot comes at the checkpoint where the chain weighs as much as the
    state (the chain weighed in the database, so the same with ``Prefer: return=minimal``,
    which never encodes the state); every position, the audit and a rollback into the longer
    chain read as the same game stored whole at every event."""
    from app.db import deltas
    from bench.scenarios import hex_id, zoc_scenario

    scenario = zoc_scenario(40, 80)
    toggles = [hex_id(1, 1, 40), hex_id(1, 2, 40)]
    script = [{"kind": "place_unit", "unit": "mover", "hex": toggles[n % 2]} for n in range(100)]
    games = []
    for every in ("1", None):
        if every is None:
            monkeypatch.delenv("REFEREE_SNAPSHOT_EVERY", raising=False)
        else:
            monkeypatch.setenv("REFEREE_SNAPSHOT_EVERY", every)
        r = await client.post("/games", json={"ruleset": "zoc", "scenario": scenario})
        assert r.status_code == 201, r.text
        g = Game(client=client, id=r.json()["id"], seats=r.json()["seats"])
        for n, action in enumerate(script):
            prefer = {"Prefer": "return=minimal"} if n % 2 else {}
            assert (await g.act("umpire", action, **prefer)).status_code == 201
        games.append(g)
    whole, weighed = games

    # the weights the policy met: the state's text (every event of the N=1 game stores it,
    # the same length whichever hex the mover is on) and the deltas' (all alike)
    states = {n for n in _lengths(db_url, whole.id, "state_after") if n is not None}
    delta_sizes = {n for n in _lengths(db_url, weighed.id, "state_delta") if n is not None}
    assert len(states) == 1 and len(delta_sizes) == 1, (states, delta_sizes)
    gap = deltas.steady_gap(states.pop(), delta_sizes.pop())
    assert gap == 96
    stored = _stored(db_url, weighed.id)
    assert all(snap != has_delta for _, snap, has_delta in stored)
    assert [seq for seq, snap, _ in stored if snap] == [96]

    assert await _positions(weighed, 101) == await _positions(whole, 101)
    audit = await _audit(weighed)
    assert audit == await _audit(whole) and audit["ok"] is True
    for g in (whole, weighed):  # back into the middle of the long chain, and played on
        r = await g.post("/rollback", "umpire", json={"to_version": 80})
        assert r.status_code == 201, r.text
        assert (await g.act("umpire", script[0])).status_code == 201
    a, b = await whole.view(), await weighed.view()
    assert a["state"] == b["state"] and a["version"] == b["version"]
    assert await _audit(weighed) == await _audit(whole)
