"""The umpire's ruleset upgrade (issue 22 item 10): which rules judge a game.

A process runs only the current code of each ruleset (:mod:`app.rules.registry`). A game is
played under the version it was created with (``games.ruleset_version``, the *pinned*
version); once the server runs another version of its ruleset, every write that would judge
anything is refused (409 ``ruleset.upgrade_required``, one check in the write frame,
:func:`app.service.pipeline.require_running_version`), reads still work, and the game view
says ``upgrade_available``. The umpire then:

* previews (:func:`preview_upgrade`, ``GET /games/{id}/upgrade``): the log is replayed under
  the running version -- the audit's replay, :func:`app.service.audit.replay` -- and every
  event it judges differently is listed;
* upgrades (:func:`upgrade_game`, ``POST /games/{id}/upgrade``, a write like any other:
  If-Match, Idempotency-Key): a ``ruleset_upgraded`` event is appended with payload
  ``{from, to, changed, truncated}`` and ``games.ruleset_version`` becomes the running version
  in the same conditional UPDATE. The event streams and notifies like any other.

Order of checks of the upgrade: the write frame's (token 401, game 404, seat 401, If-Match
428, replay, 412) -> umpire (403 ``upgrade.umpire_only``) -> game active (409
``game.finished``) -> not already on the running version (409 ``ruleset.up_to_date``).
"""

from __future__ import annotations

from typing import Any

from app.db.models import EventRow
from app.db.uow import AbstractUnitOfWork
from app.rules.base import UMPIRE
from app.rules.ruling import Ruling
from app.service.audit import MAX_DIFFERENCES, replay
from app.service.boards import BoardCache, digest
from app.service.errors import Conflict, Forbidden, Unauthenticated
from app.service.events import all_events
from app.service.pipeline import (
    Game,
    Write,
    WriteRequest,
    load_game,
    replay_outcome,
    require_active,
    run_write,
    seat_of,
)
from app.service.policies import cite
from app.service.results import ActionOutcome, AuditDifference, UpgradePreview

UPGRADED = "ruleset_upgraded"
"""The kind of the event an upgrade appends."""

MAX_CHANGED = 50
"""How many changed rulings the upgrade event's payload lists (the preview lists up to the
audit's bound; the audit shows them all)."""


def _umpire_only(seat: str | None) -> None:
    if seat != UMPIRE:
        raise Forbidden(
            "only the umpire may upgrade a game's rules",
            code="upgrade.umpire_only",
            citations=cite("ruleset-version"),
        )


def _pinned(game: Game) -> bool:
    """The game is pinned to another version of its ruleset than the one running."""
    return game.row.ruleset_version != game.ruleset.version


def _changes(
    uow: AbstractUnitOfWork, game: Game, rows: list[EventRow]
) -> tuple[list[AuditDifference], bool]:
    """The events the running version judges differently, and whether the list is cut."""
    states = uow.games.states_after(game.row.id, rows, game.row.initial_state)
    report = replay(game, rows, states)
    return list(report.differences), len(report.differences) >= MAX_DIFFERENCES


def preview_upgrade(
    uow: AbstractUnitOfWork, game_id: str, *, token: str | None, boards: BoardCache
) -> UpgradePreview:
    """What ``POST /games/{id}/upgrade`` would change. Umpire only; nothing is written."""
    if token is None:
        raise Unauthenticated("the upgrade preview needs the umpire's token", code="auth.required")
    with uow.begin():
        game = load_game(uow, game_id, boards)
        _umpire_only(seat_of(uow, game.row, token))
        available = game.row.status == "active" and _pinned(game)
        changed: list[AuditDifference] = []
        truncated = False
        events = 0
        if _pinned(game):
            rows = all_events(uow, game.row.id)
            events = len(rows)
            changed, truncated = _changes(uow, game, rows)
        return UpgradePreview(
            game=game.row.id,
            ruleset=game.ruleset.id,
            from_version=game.row.ruleset_version,
            to_version=game.ruleset.version,
            upgrade_available=available,
            events=events,
            changed=changed,
            truncated=truncated,
        )


def listed_change(change: AuditDifference, row: EventRow | None) -> dict[str, Any]:
    """One changed ruling as the upgrade event's payload lists it -- every reader sees that
    event, so an event hidden from some seats is named by its number only."""
    hidden = row is None or row.visible_to is not None
    return {
        "seq": change.seq,
        "kind": "redacted" if hidden else change.kind,
        "field": change.field,
    }


def upgrade_game(req: WriteRequest) -> ActionOutcome:
    """The umpire moves the game to the ruleset version this server runs: a
    ``ruleset_upgraded`` event (payload ``{from, to, changed, truncated}``) is appended and
    ``games.ruleset_version`` set, in one write."""

    def body(cmd: Write) -> ActionOutcome:
        game = cmd.game
        _umpire_only(cmd.seat)
        require_active(game.row)
        pinned, running = game.row.ruleset_version, game.ruleset.version
        if not _pinned(game):
            raise Conflict(
                f"the game is already played under {game.ruleset.id} {running}, the version "
                "this server runs",
                code="ruleset.up_to_date",
                citations=cite("ruleset-version"),
                ruleset_version=pinned,
                ruleset_running_version=running,
            )
        cmd.require_current()
        rows = all_events(cmd.uow, game.row.id)
        changed, capped = _changes(cmd.uow, game, rows)  # capped: the replay stopped listing
        by_seq = {r.seq: r for r in rows}
        n = len(changed)
        listed = [listed_change(c, by_seq.get(c.seq)) for c in changed[:MAX_CHANGED]]
        truncated = capped or n > MAX_CHANGED
        summary = f"The umpire upgraded the game from {game.ruleset.id} {pinned} to {running}: " + (
            "the new version judges every event of the log as it was judged."
            if not changed
            else f"the new version judges {n}{' or more' if capped else ''} event"
            f"{'' if n == 1 else 's'} of the log differently."
        )
        payload = {"from": pinned, "to": running, "changed": listed, "truncated": truncated}
        return cmd.record(
            kind=UPGRADED,
            new_state=game.state,
            ruling=Ruling(
                legal=True,
                summary=summary,
                details={"from": pinned, "to": running, "changed": n, "truncated": truncated},
            ),
            payload=payload,
            extra={"ruleset_version": running},
        )

    return run_write(
        req,
        what="upgrading a game's rules",
        request_digest=lambda seat: digest({"seat": seat, "upgrade": True}),
        body=body,
        replay=replay_outcome,
        upgrading=True,
    )
