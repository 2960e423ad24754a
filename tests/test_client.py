"""The Python client (sync and async) against the real server over a socket, on both
databases: every operation, the ETag shared by the seats of one client, 412 refresh and the
opt-in retry, typed problems, and live streams that resume after a drop and can be cancelled."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.client import (
    AsyncRefereeClient,
    Conflict,
    Forbidden,
    IllegalAction,
    NotFound,
    RefereeClient,
    Seat,
    StaleVersion,
    StreamEvent,
    StreamPolicy,
    Unauthorized,
    Unprocessable,
)
from app.config import Settings
from app.main import create_app
from tests.support.proxy import proxy_to
from tests.support.server import running_server

ROOT = Path(__file__).resolve().parents[1]
SEED_EXAMPLE = json.loads((ROOT / "scenarios" / "zoc" / "seed-example.json").read_text())
OZ_EXAMPLE = json.loads((ROOT / "scenarios" / "objective-zones" / "example.json").read_text())
MOVE = {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]}
FOLLOW = {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307", "e3408"]}
DECISION = "allocation:mill:t1"


@pytest.fixture
def base_url(db_url: str) -> Iterator[str]:
    settings = Settings(
        database_url=db_url,
        sse_keepalive_seconds=0.2,
        sse_max_seconds=1.0,
        webhook_allow_private_addresses=True,
    )
    app = create_app(settings)
    with running_server(app) as url:
        yield url
    app.state.engine.dispose()


def _sections(citations: Any) -> set[str]:
    return {c.section for c in citations}


def test_client_plays_the_seed_example(base_url: str) -> None:
    with RefereeClient(base_url) as referee:
        assert referee.healthz() == {"status": "ok", "database": "ok"}
        assert "zoc" in {r.id for r in referee.rulesets()}
        assert referee.ruleset("zoc").example_scenario == SEED_EXAMPLE
        game = referee.create_game("zoc", SEED_EXAMPLE)
        axis = referee.seat(game.id, game.seats["axis"])

        judged = axis.dry_run(MOVE)
        assert judged.ruling.legal is True and judged.version == 1 and judged.dice_needed == []
        stops = [e.details.get("hex", e.hex) for e in judged.ruling.effects]
        assert [e.kind for e in judged.ruling.effects] == ["zoc.ezoc_negated", "zoc.must_stop"]
        assert stops[-1] == "e3307"

        accepted = axis.submit(MOVE)
        assert (accepted.event, accepted.version) == (1, 2) and axis.etag == 'W/"2"'
        # de-inf-1 now stands in e3307 and negates the EZOC there for de-inf-2 (8.1)
        assert axis.dry_run(FOLLOW).ruling.legal is True

        # an illegal action raises IllegalAction carrying the ruling; nothing written
        with pytest.raises(IllegalAction) as illegal:
            axis.submit({"kind": "move", "unit": "de-inf-2", "path": ["e3306"]})
        assert illegal.value.status == 422 and illegal.value.code == "action.illegal"
        assert illegal.value.ruling.legal is False
        assert [v.code for v in illegal.value.ruling.violations] == ["zoc.path_not_contiguous"]
        assert _sections(illegal.value.ruling.citations) == {"basic.path"}

        # a soviet move in the axis phase: 409 citing the sequence of play
        soviet = referee.seat(game.id, game.seats["soviet"])
        with pytest.raises(Conflict) as out_of_turn:
            soviet.submit({"kind": "move", "unit": "su-18a", "path": ["e3305"]})
        assert out_of_turn.value.code == "phase.not_your_turn"
        assert _sections(out_of_turn.value.problem.citations) == {"basic.phase"}
        with pytest.raises(Forbidden):
            axis.audit()
        with pytest.raises(NotFound):
            referee.seat("no-such-game").game()
        with pytest.raises(Unprocessable) as bad:
            axis.submit({"kind": "move", "unit": "de-inf-2"})
        assert bad.value.code == "action.invalid"
        [missing] = bad.value.problem.errors
        assert (missing.location, missing.source, missing.type) == ("/path", "body", "missing")
        assert missing.pointer == missing.location and missing.code is None

        # a scenario the ruleset refuses: each field error carries its code and rule sections
        broken = {**SEED_EXAMPLE, "units": [{**SEED_EXAMPLE["units"][0], "hex": "z9999"}]}
        with pytest.raises(Unprocessable) as refused:
            referee.create_game("zoc", broken)
        first = refused.value.problem.errors[0]
        assert first.location.startswith("/scenario/units/0") and first.code
        assert first.code.startswith("zoc.scenario.") and first.citations
        assert all(c.ruleset == "zoc" for c in first.citations)

        view = axis.game()
        assert view.version == 2 and view.seat == "axis" and view.position is not None
        assert axis.game_if_changed() is None  # 304: nothing changed since W/"2"
        assert axis.scenario().scenario["title"] == SEED_EXAMPLE["title"]
        assert [e.kind for e in axis.events()] == ["move"]
        assert axis.event(1).ruling is not None and axis.events_page(0, 1).next is None
        # the game as it stood before the move, and after it
        before, after = axis.position(1), referee.seat(game.id).position(2)
        assert before.event is None and after.event == 1 and after.current_version == 2
        hexes = [{u["id"]: u["hex"] for u in p.state["units"]}["de-inf-1"] for p in (before, after)]
        assert hexes == ["e3107", MOVE["path"][-1]]
        with pytest.raises(NotFound):
            axis.position(3)
        zmap = referee.seat(game.id).query("ezoc-map", side="axis")
        assert zmap.query == "ezoc-map" and "e3206" not in zmap.result["hexes"]


def test_two_seats_of_one_client_share_the_games_etag(base_url: str) -> None:
    with RefereeClient(base_url) as referee:
        game = referee.create_game("zoc", SEED_EXAMPLE)
        axis = referee.seat(game.id, game.seats["axis"])
        umpire = referee.seat(game.id, game.seats["umpire"])
        assert axis.submit(MOVE).version == 2
        assert umpire.rollback(1).version == 3  # sends W/"2", which axis's write produced
        assert axis.submit(MOVE).version == 4
        assert umpire.advance_phase().version == 5
        audit = umpire.audit()
        assert audit.ok and audit.events == 4


def test_submit_change_answers_without_the_state(base_url: str) -> None:
    import anyio

    with RefereeClient(base_url) as referee:
        game = referee.create_game("zoc", SEED_EXAMPLE)
        axis = referee.seat(game.id, game.seats["axis"])
        change = axis.submit_change(MOVE)
        assert (change.event, change.version) == (1, 2) and axis.etag == 'W/"2"'
        assert [e.kind for e in change.ruling.effects] == ["zoc.ezoc_negated", "zoc.must_stop"]
        assert "state" not in change.model_dump()
        assert axis.dry_run(FOLLOW).ruling.legal is True  # the move was applied

    async def play() -> int:
        async with AsyncRefereeClient(base_url) as referee:
            game = await referee.create_game("zoc", SEED_EXAMPLE)
            axis = referee.seat(game.id, game.seats["axis"])
            return (await axis.submit_change(MOVE)).version

    assert anyio.run(play) == 2


def test_a_stale_etag_is_refreshed_and_retried_only_when_asked(base_url: str) -> None:
    with RefereeClient(base_url) as bot, RefereeClient(base_url) as other:
        game = bot.create_game("zoc", SEED_EXAMPLE)
        mine = bot.seat(game.id, game.seats["axis"])
        mine.game()  # the bot has seen version 1
        other.seat(game.id, game.seats["axis"]).submit(MOVE)  # someone else writes: version 2

        with pytest.raises(StaleVersion) as stale:
            mine.submit(FOLLOW)
        assert stale.value.code == "precondition.stale"
        assert mine.etag == 'W/"2"'  # refreshed from the 412 answer: decide again on it

        bot.etags.forget(game.id)
        bot.etags.set(game.id, 'W/"1"')  # stale again; this time re-judging is fine
        accepted = mine.submit(FOLLOW, retry_stale=1, idempotency_key="follow-1")
        assert accepted.version == 3 and mine.etag == 'W/"3"'
        again = mine.submit(FOLLOW, idempotency_key="follow-1")  # a replay: nothing new
        assert again.event == accepted.event


def test_match_flow_operations(base_url: str) -> None:
    with RefereeClient(base_url) as referee:
        game = referee.create_game("zoc", SEED_EXAMPLE, match={"takeback": True})
        axis = referee.seat(game.id, game.seats["axis"])
        umpire = referee.seat(game.id, game.seats["umpire"])
        axis.submit(MOVE)
        taken = axis.takeback()
        assert taken.version == 3 and [e.kind for e in axis.events()] == ["move", "takeback"]
        assert axis.end_phase().version == 4
        assert umpire.reveal_seed().version == 5
        assert umpire.dice().seed is not None and axis.dice().seed is None
        assert umpire.verify_dice().ok
        finished = umpire.finish("axis")
        assert finished.version == 6 and axis.game().winner == "axis"
        assert referee.seat(game.id).verify_dice().commitment_ok


def test_appeals(base_url: str) -> None:
    with RefereeClient(base_url) as referee:
        game = referee.create_game("zoc", SEED_EXAMPLE)
        axis = referee.seat(game.id, game.seats["axis"])
        other = next(s for s in game.seats if s not in ("axis", "umpire"))
        side = referee.seat(game.id, game.seats[other])
        umpire = referee.seat(game.id, game.seats["umpire"])
        axis.submit(MOVE)
        appealed = side.appeal(1, "de-inf-1 entered our zone")
        assert appealed.version == 3 and appealed.event == 2
        with pytest.raises(Conflict) as err:
            side.appeal(1, "again")
        assert err.value.code == "appeal.already_open"
        decided = umpire.decide_appeal(2, "overridden", note="blocked", rollback_to=1)
        assert decided.version == 4
        (listed,) = side.appeals().items
        assert listed.status == "decided" and listed.decision is not None
        assert listed.decision.to_version == 1


def test_sealed_orders(base_url: str) -> None:
    with RefereeClient(base_url) as referee:
        game = referee.create_game("objective-zones", OZ_EXAMPLE)
        union = referee.seat(game.id, game.seats["union"])
        umpire = referee.seat(game.id, game.seats["umpire"])
        union.submit({"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-2"]})
        for _ in range(4):
            umpire.advance_phase()
        assert [d.id for d in union.sealed().open] == [DECISION]
        receipt = union.submit_sealed(DECISION, {"sectors": {"1": ["us-1"], "2": ["us-2"]}})
        assert receipt.side == "union" and receipt.reveal is None
        reveal = umpire.open_sealed(DECISION)
        assert reveal.opened_by == "umpire" and reveal.missing == ["confederate"]
        assert [r.decision for r in referee.seat(game.id).sealed().revealed] == [DECISION]


def test_the_async_client(base_url: str) -> None:
    import anyio

    async def play() -> list[str]:
        async with AsyncRefereeClient(base_url) as referee:
            game = await referee.create_game("zoc", SEED_EXAMPLE)
            axis = referee.seat(game.id, game.seats["axis"])
            umpire = referee.seat(game.id, game.seats["umpire"])
            assert (await axis.dry_run(MOVE)).ruling.legal
            assert (await axis.submit(MOVE)).version == 2
            assert (await umpire.rollback(1)).version == 3
            assert (await axis.position(2)).event == 1
            with pytest.raises(IllegalAction):
                await axis.submit({"kind": "move", "unit": "de-inf-2", "path": ["e3306"]})
            seen: list[str] = []
            async with referee.seat(game.id).stream() as stream:
                async for event in stream:
                    seen.append(event.event)
                    if len(seen) == 2:
                        break
            return seen + [e.kind async for e in axis.events()]

    assert anyio.run(play) == ["move", "rollback", "move", "rollback"]


def test_the_stream_resumes_after_the_server_ends_it_and_can_be_cancelled(
    base_url: str,
) -> None:
    with RefereeClient(base_url) as referee:
        game = referee.create_game("zoc", SEED_EXAMPLE)
        axis: Seat = referee.seat(game.id, game.seats["axis"])
        umpire = referee.seat(game.id, game.seats["umpire"])
        stream = referee.seat(game.id).stream(policy=StreamPolicy(min_delay=0.05))
        seen: list[StreamEvent] = []
        got_first, got_all = threading.Event(), threading.Event()

        def read() -> None:
            for event in stream:
                seen.append(event)
                got_first.set()
                if len(seen) == 3:
                    got_all.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        axis.submit(MOVE)
        assert got_first.wait(15)
        # the server ends every stream after 1 s (sse_max_seconds): wait for a reconnect
        pause = threading.Event()
        for _ in range(300):
            if stream.reconnects:
                break
            pause.wait(0.05)
        assert stream.reconnects >= 1
        umpire.rollback(1)
        axis.submit(MOVE)
        assert got_all.wait(15), seen
        assert [(e.id, e.event) for e in seen] == [("1", "move"), ("2", "rollback"), ("3", "move")]
        assert stream.last_event_id == "3" and seen[0].view.ruling is not None
        stream.close()  # cancels the blocked read from this thread
        reader.join(15)
        assert not reader.is_alive()


def test_the_stream_resumes_after_the_connection_drops(base_url: str) -> None:
    with proxy_to(base_url) as (proxied, proxy), RefereeClient(base_url) as referee:
        game = referee.create_game("zoc", SEED_EXAMPLE)
        axis = referee.seat(game.id, game.seats["axis"])
        with RefereeClient(proxied) as watcher:
            stream = watcher.seat(game.id).stream(policy=StreamPolicy(min_delay=0.05))
            seen: list[StreamEvent] = []
            first, both = threading.Event(), threading.Event()

            def read() -> None:
                for event in stream:
                    seen.append(event)
                    (first if len(seen) == 1 else both).set()

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            axis.submit(MOVE)
            assert first.wait(15)
            proxy.cut()  # the network drops the stream's connection
            axis.end_phase()
            assert both.wait(15), seen
            stream.close()
            reader.join(15)
        assert [(e.id, e.event) for e in seen] == [("1", "move"), ("2", "phase")]
        assert stream.reconnects >= 1 and not reader.is_alive()


def test_games_feed_tokens_webhooks_and_what_can_i_do(base_url: str) -> None:
    with RefereeClient(base_url) as bot:
        one = bot.create_game("zoc", SEED_EXAMPLE)
        two = bot.create_game("zoc", SEED_EXAMPLE)
        axis_one = bot.seat(one.id, one.seats["axis"])
        soviet_two = bot.seat(two.id, two.seats["soviet"])

        now = axis_one.available()
        assert now.may_act and now.may_end_phase and "move" in now.kinds
        assert not soviet_two.available().may_act  # the axis phase

        held = list(bot.games(one.seats["axis"], two.seats["soviet"]))
        assert sorted((g.id, g.seat, g.my_turn) for g in held) == sorted(
            [(one.id, "axis", True), (two.id, "soviet", False)]
        )
        mine = bot.games(one.seats["axis"], two.seats["soviet"], my_turn=True)
        assert [g.id for g in mine] == [one.id]

        with bot.feed(one.seats["axis"], two.seats["soviet"]) as feed:
            axis_one.submit(MOVE)
            bot.seat(two.id, two.seats["axis"]).submit(MOVE)
            got = []
            for event in feed:
                got.append((event.data["game"], event.data["seat"], event.event))
                if len(got) == 2:
                    break
        assert sorted(got) == sorted([(one.id, "axis", "move"), (two.id, "soviet", "move")])

        spectator = axis_one.mint_spectator("for the club")
        assert bot.seat(one.id, spectator.token).game().version == 2
        with pytest.raises(Forbidden):
            bot.seat(one.id, spectator.token).end_phase()
        assert [t.id for t in axis_one.tokens().items] == [spectator.id]
        axis_one.revoke_token(spectator.id)
        with pytest.raises(Unauthorized):
            bot.seat(one.id, spectator.token).game()

        old = axis_one.token
        rotated = axis_one.rotate_token()
        assert axis_one.token == rotated.token != old and axis_one.game().seat == "axis"
        umpire = bot.seat(one.id, one.seats["umpire"])
        reissued = umpire.reissue_token("axis")
        assert bot.seat(one.id, reissued.token).game().seat == "axis"

        hook = umpire.register_webhook("http://127.0.0.1:9/hook", ["game_finished"])
        assert hook.secret and [w.id for w in umpire.webhooks().items] == [hook.id]
        assert umpire.webhook_deliveries(hook.id).items == []
        umpire.delete_webhook(hook.id)
        assert umpire.webhooks().items == []
        assert {s.ruleset for s in bot.console_scenarios()} >= {"zoc", "objective-zones"}


def test_the_client_posts_lists_and_streams_table_talk(base_url: str) -> None:
    with RefereeClient(base_url) as referee:
        game = referee.create_game("zoc", SEED_EXAMPLE)
        axis = referee.seat(game.id, game.seats["axis"])
        soviet = referee.seat(game.id, game.seats["soviet"])
        sent = axis.post_message("umpire", "private to the umpire")
        assert sent.seq == 1 and sent.private and sent.sender == "axis"
        soviet.post_message("all", "hello")
        assert [m.text for m in soviet.messages_page().items] == ["hello"]
        umpire = referee.seat(game.id, game.seats["umpire"])
        assert [m.seq for m in umpire.messages_page(after=0, limit=1).items] == [1]
        with pytest.raises(Unprocessable):
            axis.post_message("axis", "to myself")
        stream = umpire.message_stream()
        seen = []
        for event in stream:
            seen.append(event)
            if len(seen) == 2:
                break
        stream.close()
        assert [(e.id, e.event, e.message.text) for e in seen] == [
            ("1", "message", "private to the umpire"),
            ("2", "message", "hello"),
        ]
