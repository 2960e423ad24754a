"""Audit replay: re-adjudicate a game's whole log from its initial state.

Starting from ``games.initial_state`` with the ruleset registered *now* (after a rules change,
say), every event is replayed in order with the dice recorded in the log:

* an action event (``payload`` null) is parsed, judged with its recorded dice and applied;
  its ruling must equal the recorded ruling, the dice sizes the ruleset asks for must equal
  the recorded ones, and every derived roll must re-derive from the secret seed;
* ``phase`` calls the ruleset's ``advance_phase``;
* ``rollback`` / ``takeback`` restore the *replayed* state of the version they name;
* ``sealed_revealed`` re-resolves the revealed orders with
  :func:`app.service.sealed.resolve_revealed` (helper of the sealed-orders module);
* other events (``sealed_received``, ``clock_expired``, ``seed_revealed``,
  ``game_finished``…) leave the state as it was.

After each event the replayed state must equal the snapshot the event stored
(``events.state_after``). The report names the first event that differs; after a difference
the replay goes on from the *recorded* state so every later entry is independent.

Each event records the ruleset version that judged it (``events.ruleset_version``; null for
events written before migration 0007). A process runs only the current code of each ruleset,
so every event is replayed with it; the report cuts the log into *stretches* of consecutive
events with the same recorded version and says of each whether it was replayed by the version
that judged it. A difference in a stretch judged by another version is labelled as following
from the rules change (``version_changed``); one in a stretch whose version was not recorded
says so. The umpire's upgrade preview (:mod:`app.service.upgrade`) is this same replay.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.db.models import EventRow
from app.db.uow import AbstractUnitOfWork
from app.match import dice as dicelib
from app.rules.base import UMPIRE
from app.service import match as mt
from app.service.boards import BoardCache
from app.service.errors import Conflict, Forbidden, Unauthenticated
from app.service.events import all_events
from app.service.pipeline import Game, load_game, seat_of
from app.service.results import AuditDifference, AuditReport, AuditStretch

MAX_DIFFERENCES = 100

RESTORING = frozenset({"rollback", "takeback"})


def _diff(row: EventRow, field: str, message: str, recorded: Any, replayed: Any) -> AuditDifference:
    return AuditDifference(
        seq=row.seq,
        version=row.version,
        kind=row.kind,
        field=field,
        message=message,
        recorded=recorded,
        replayed=replayed,
        ruleset_version=row.ruleset_version,
    )


def _check_rolls(game: Game, row: EventRow) -> AuditDifference | None:
    """Every derived roll of the event re-derives from the game's seed."""
    if game.row.dice_seed is None:
        return None
    seed = bytes.fromhex(game.row.dice_seed)
    for roll in mt.load_rolls(row.dice):
        if roll.entered_by is not None:
            continue
        derived = dicelib.derive_roll(seed, game.row.id, roll.n, roll.sides, roll.client_seed)
        if derived != roll.value:
            return _diff(
                row,
                "dice",
                f"roll {roll.n} (d{roll.sides}) does not re-derive from the committed seed",
                roll.value,
                derived,
            )
    return None


def _replay_event(
    game: Game, row: EventRow, state: Any, states: Mapping[int, Any]
) -> tuple[Any, AuditDifference | None]:
    """Replay one event: (the replayed state, the ruling/dice difference if any)."""
    ruleset = game.ruleset
    values = [r.value for r in mt.load_rolls(row.dice)]
    if row.payload is None:
        action = ruleset.parse_action(row.action)
        sizes = [int(s) for s in ruleset.dice_needed(game.board, state, action) if int(s) > 0]
        recorded_sizes = [r.sides for r in mt.load_rolls(row.dice)]
        if sizes != recorded_sizes:
            return state, _diff(
                row, "dice", "the action now needs other dice", recorded_sizes, sizes
            )
        ruling = ruleset.adjudicate(game.board, state, action, game.options, tuple(values))
        replayed = ruling.model_dump(mode="json")
        if replayed != row.ruling:
            return state, _diff(row, "ruling", "the ruling differs", row.ruling, replayed)
        return ruleset.apply(game.board, state, action, ruling), None
    if row.kind == "phase":
        return ruleset.advance_phase(game.board, state), None
    if row.kind in RESTORING:
        version = int(row.payload["to_version"])
        return ruleset.load_state(states[version]), None
    if row.kind == "sealed_revealed":
        from app.service.sealed import resolve_revealed

        orders = {
            side: dict(doc.get("order") or {})
            for side, doc in (row.payload.get("orders") or {}).items()
        }
        resolution = resolve_revealed(
            ruleset,
            game.board,
            state,
            game.options,
            str(row.payload["decision"]),
            orders,
            values,
        )
        replayed = resolution.ruling.model_dump(mode="json")
        if replayed != row.ruling:
            return state, _diff(row, "ruling", "the sealed ruling differs", row.ruling, replayed)
        return resolution.state, None
    return state, None


def replay(game: Game, rows: list[EventRow]) -> AuditReport:
    """Re-adjudicate ``rows`` (the whole log, in order) from the game's initial state."""
    ruleset = game.ruleset
    differences: list[AuditDifference] = []
    initial = game.row.initial_state
    if initial is None:
        raise Conflict(
            "this game kept no initial state: it cannot be audited", code="audit.unavailable"
        )
    states: dict[int, Any] = {1: initial}
    state = ruleset.load_state(initial)
    for row in rows:
        difference: AuditDifference | None = _check_rolls(game, row)
        try:
            new_state, judged = _replay_event(game, row, state, states)
            difference = difference or judged
            state_json = new_state.model_dump(mode="json")
        except Exception as exc:  # a replay that cannot even run is a difference too
            difference = difference or _diff(
                row, "error", f"{type(exc).__name__}: {exc}", None, None
            )
            state_json = None
        if difference is None and row.state_after is not None and state_json != row.state_after:
            difference = _diff(
                row, "state", "the resulting state differs", row.state_after, state_json
            )
        if difference is not None and len(differences) < MAX_DIFFERENCES:
            differences.append(difference)
        # Go on from the recorded state when there is one, so later entries are independent.
        current = row.state_after if row.state_after is not None else state_json
        if current is None:
            break
        states[row.version] = current
        state = ruleset.load_state(current)
    differences = [_labelled(d, ruleset.version) for d in differences]
    stretches = _stretches(rows, ruleset.version, differences)
    changed = game.row.ruleset_version != ruleset.version or any(
        s.version is not None and not s.same_version for s in stretches
    )
    return AuditReport(
        game=game.row.id,
        ruleset=ruleset.id,
        recorded_version=game.row.ruleset_version,
        replayed_version=ruleset.version,
        version_changed=changed,
        events=len(rows),
        ok=not differences,
        first_difference=differences[0] if differences else None,
        differences=differences,
        stretches=stretches,
    )


def _labelled(d: AuditDifference, running: str) -> AuditDifference:
    """Say why a difference may be expected: the event was judged by another version (a
    rules change, not a corrupt log), or which version judged it was not recorded."""
    if d.ruleset_version == running:
        return d
    if d.ruleset_version is None:
        note = (
            f"; the ruleset version that judged this event was not recorded (replayed with "
            f"{running})"
        )
        return d.model_copy(update={"message": d.message + note})
    return d.model_copy(
        update={
            "message": f"{d.message} after the ruleset version changed from "
            f"{d.ruleset_version} to {running}",
            "version_changed": True,
        }
    )


def _stretches(
    rows: list[EventRow], running: str, differences: list[AuditDifference]
) -> list[AuditStretch]:
    """The log cut into runs of consecutive events with the same recorded ruleset version."""
    runs: list[list[EventRow]] = []
    for row in rows:
        if runs and runs[-1][-1].ruleset_version == row.ruleset_version:
            runs[-1].append(row)
        else:
            runs.append([row])
    out: list[AuditStretch] = []
    for run in runs:
        first, last = run[0].seq, run[-1].seq
        out.append(
            AuditStretch(
                from_seq=first,
                to_seq=last,
                version=run[0].ruleset_version,
                replayed_version=running,
                same_version=run[0].ruleset_version == running,
                differences=sum(1 for d in differences if first <= d.seq <= last),
            )
        )
    return out


def audit_game(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    boards: BoardCache,
    token: str | None = None,
    require_umpire: bool = True,
) -> AuditReport:
    """Audit one game. Over HTTP only the umpire may (the replay reads every event, hidden
    ones included); ``referee audit`` runs with ``require_umpire=False``."""
    if require_umpire and token is None:
        raise Unauthenticated("an audit needs the umpire's token", code="auth.required")
    with uow.begin():
        game = load_game(uow, game_id, boards)
        if require_umpire and seat_of(uow, game.row, token) != UMPIRE:
            raise Forbidden("only the umpire may audit a game", code="audit.umpire_only")
        rows = all_events(uow, game_id)
        return replay(game, rows)
