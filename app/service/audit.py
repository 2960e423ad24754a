"""Audit replay: re-adjudicate a game's whole log from its initial state.

Starting from ``games.initial_state`` with the ruleset registered *now* (after a rules change,
say), every event is replayed in order with the dice recorded in the log:

* an action event (``payload`` null) is played again by :func:`app.rules.play.step` with its
  recorded dice (the one step every submission, dry run and what-if takes): the dice sizes
  the ruleset asks for must equal the recorded ones, its ruling must equal the recorded
  ruling, and every derived roll must re-derive from the secret seed;
* ``phase`` calls the ruleset's ``advance_phase``;
* ``rollback`` / ``takeback`` restore the *replayed* state of the version they name;
* ``appeal_decided`` overridden by rollback restores likewise; overridden by a corrected
  action, it is replayed like an action event; ``appeal`` and an upheld decision leave the
  state alone;
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

The replay reads a neutral input (:class:`ReplayInput`: the ruleset, board, options, initial
state, the log as :class:`LogEntry` values and the dice epochs as :class:`DiceKey` values), so
a stored game (:func:`replay`) and an export file (:func:`app.service.export.verify_file`) go
through the one :func:`replay_log`. An event an export file hides from its reader is not
judged but listed (``ReplayOutcome.unchecked``); the replay resumes at the next recorded
snapshot. An imported game's rolls before its ``imported`` event derive from the exported
game's id and seed (:func:`dice_keys`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.db.models import EventRow
from app.db.uow import AbstractUnitOfWork
from app.match import dice as dicelib
from app.rules.base import UMPIRE, RulesError, Ruleset
from app.rules.play import step
from app.service import match as mt
from app.service.boards import BoardCache
from app.service.errors import Conflict, Forbidden, Unauthenticated
from app.service.events import all_events
from app.service.pipeline import Game, load_game, seat_of
from app.service.results import AuditDifference, AuditReport, AuditStretch

AnyRuleset = Ruleset[Any, Any, Any, Any]

MAX_DIFFERENCES = 100

RESTORING = frozenset({"rollback", "takeback"})
IMPORTED = "imported"
"""The event an imported game's log starts its own history with (:mod:`app.service.importing`):
its payload names the game the earlier events came from and that game's dice (the earlier
rolls derive from that game's id and seed, not this one's)."""


APPEAL_DECIDED = "appeal_decided"
"""An appeal's decision (:mod:`app.service.appeals`): it leaves the state alone when upheld;
an override restores a version (``to_version``, like a rollback) or carries a corrected action
(``override: "action"``, replayed like an action event)."""


def restores(kind: str, payload: Mapping[str, Any] | None) -> bool:
    """Whether an event restores the state of the version its payload's ``to_version`` names."""
    if kind in RESTORING:
        return True
    return kind == APPEAL_DECIDED and payload is not None and "to_version" in payload


def corrected_action(kind: str, payload: Mapping[str, Any] | None) -> bool:
    """Whether an event is an appeal overridden by a corrected action (judged and applied)."""
    return kind == APPEAL_DECIDED and payload is not None and payload.get("override") == "action"


@dataclass(frozen=True)
class LogEntry:
    """One event as a replay reads it: a stored row or an event of an export file alike."""

    seq: int
    version: int
    kind: str
    seat: str | None
    action: Mapping[str, Any]
    ruling: Any
    dice: Sequence[Any]
    payload: Mapping[str, Any] | None
    state_after: Any
    ruleset_version: str | None
    redacted: bool = False
    """True when the reader the log was read for may not see this event (an export file of
    a side's seat): the replay cannot judge it and says so."""

    @classmethod
    def of_row(cls, row: EventRow, state_after: Any) -> LogEntry:
        """A stored event with the state it left (rebuilt from snapshot and deltas by
        :meth:`app.db.repository.GameRepository.states_after`)."""
        return cls(
            seq=row.seq,
            version=row.version,
            kind=row.kind,
            seat=row.seat,
            action=row.action,
            ruling=row.ruling,
            dice=row.dice,
            payload=row.payload,
            state_after=state_after,
            ruleset_version=row.ruleset_version,
        )


@dataclass(frozen=True)
class DiceKey:
    """The dice that derived the rolls of the events up to ``through_seq`` (None: to the end):
    the game id and seed they derive from (seed None: not known to this replay)."""

    game_id: str
    seed: bytes | None
    through_seq: int | None = None


@dataclass(frozen=True)
class ReplayInput:
    """Everything a replay reads, whatever it came from (a stored game, an export file)."""

    game_id: str
    ruleset: AnyRuleset
    board: Any
    options: Any
    initial_state: Any
    recorded_version: str | None
    """The ruleset version the game is pinned to."""
    entries: Sequence[LogEntry]
    dice: Sequence[DiceKey] = ()
    """Epochs of dice, oldest first; empty: rolls are not checked."""


@dataclass
class ReplayOutcome:
    """The report and what the replay could not check (events it could not judge)."""

    report: AuditReport
    unchecked: list[tuple[int, str, str]] = field(default_factory=list)
    """(seq, kind, why) of each event the replay could not judge."""
    rolls_checked: int = 0


def dice_keys(game_id: str, seed: bytes | None, entries: Sequence[LogEntry]) -> list[DiceKey]:
    """The dice epochs of a log: each ``imported`` event closes the epoch of the game its
    earlier events came from (its payload names that game and, when known, its seed)."""
    keys: list[DiceKey] = []
    for entry in entries:
        if entry.kind == IMPORTED and not entry.redacted and entry.payload is not None:
            origin = entry.payload.get("dice") or {}
            known = origin.get("seed") if isinstance(origin, Mapping) else None
            try:
                seed_of = bytes.fromhex(known) if isinstance(known, str) else None
            except ValueError:  # not a seed: the rolls are checked against nothing
                seed_of = None
            game_of = origin.get("game") if isinstance(origin, Mapping) else None
            keys.append(DiceKey(str(game_of or ""), seed_of, entry.seq))
    keys.append(DiceKey(game_id, seed))
    return keys


def dice_key_for(keys: Sequence[DiceKey], seq: int) -> DiceKey | None:
    """The dice epoch event ``seq`` rolled in."""
    for key in keys:
        if key.through_seq is None or seq <= key.through_seq:
            return key
    return None


def _diff(row: LogEntry, field: str, message: str, recorded: Any, replayed: Any) -> AuditDifference:
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


def _check_rolls(keys: Sequence[DiceKey], row: LogEntry) -> tuple[AuditDifference | None, int]:
    """Every derived roll of the event re-derives from its game's seed (when known)."""
    key = dice_key_for(keys, row.seq)
    if key is None or key.seed is None:
        return None, 0
    checked = 0
    for roll in mt.load_rolls(list(row.dice)):
        if roll.entered_by is not None:
            continue
        checked += 1
        derived = dicelib.derive_roll(key.seed, key.game_id, roll.n, roll.sides, roll.client_seed)
        if derived != roll.value:
            return (
                _diff(
                    row,
                    "dice",
                    f"roll {roll.n} (d{roll.sides}) does not re-derive from the committed seed",
                    roll.value,
                    derived,
                ),
                checked,
            )
    return None, checked


def _replay_action(
    inp: ReplayInput, row: LogEntry, state: Any, rolls: Sequence[Any]
) -> tuple[Any, AuditDifference | None]:
    """Play an action event again with its recorded rolls (:func:`app.rules.play.step`, as a
    submission plays it): the dice it needs now, then its ruling, must be the recorded ones."""
    action = inp.ruleset.parse_action(dict(row.action))
    done = step(inp.ruleset, inp.board, state, inp.options, None, action, rolls)
    if done.refusal is not None:  # the recorded rolls are not the dice it needs now
        recorded, needed = [r.sides for r in rolls], list(done.dice_needed)
        return state, _diff(row, "dice", "the action now needs other dice", recorded, needed)
    assert done.ruling is not None
    replayed = done.ruling.model_dump(mode="json")
    if replayed != row.ruling:
        return state, _diff(row, "ruling", "the ruling differs", row.ruling, replayed)
    if done.state is None:
        raise RulesError("an illegal action cannot be applied")
    return done.state, None


def _replay_event(
    inp: ReplayInput, row: LogEntry, state: Any, states: Mapping[int, Any]
) -> tuple[Any, AuditDifference | None]:
    """Replay one event: (the replayed state, the ruling/dice difference if any)."""
    ruleset = inp.ruleset
    rolls = mt.load_rolls(list(row.dice))
    values = [r.value for r in rolls]
    if row.payload is None or corrected_action(row.kind, row.payload):
        return _replay_action(inp, row, state, rolls)
    if row.kind == "phase":
        return ruleset.advance_phase(inp.board, state), None
    if restores(row.kind, row.payload):
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
            inp.board,
            state,
            inp.options,
            str(row.payload["decision"]),
            orders,
            values,
        )
        replayed = resolution.ruling.model_dump(mode="json")
        if replayed != row.ruling:
            return state, _diff(row, "ruling", "the sealed ruling differs", row.ruling, replayed)
        return resolution.state, None
    return state, None


def replay(game: Game, rows: list[EventRow], states: Sequence[Any]) -> AuditReport:
    """Re-adjudicate ``rows`` (the whole log, in order) from the game's initial state;
    ``states`` are the states they left, as the repository rebuilds them."""
    initial = game.row.initial_state
    if initial is None:
        raise Conflict(
            "this game kept no initial state: it cannot be audited", code="audit.unavailable"
        )
    entries = [LogEntry.of_row(r, s) for r, s in zip(rows, states, strict=True)]
    seed = bytes.fromhex(game.row.dice_seed) if game.row.dice_seed is not None else None
    inp = ReplayInput(
        game_id=game.row.id,
        ruleset=game.ruleset,
        board=game.board,
        options=game.options,
        initial_state=initial,
        recorded_version=game.row.ruleset_version,
        entries=entries,
        dice=dice_keys(game.row.id, seed, entries),
    )
    return replay_log(inp).report


def _loaded(ruleset: AnyRuleset, state_json: Any) -> Any:
    """A recorded state as the ruleset's model; None when there is none or it does not load
    (a file's snapshot can be anything: the difference is reported by the state check)."""
    if state_json is None:
        return None
    try:
        return ruleset.load_state(state_json)
    except Exception:
        return None


def replay_log(inp: ReplayInput) -> ReplayOutcome:
    """Re-adjudicate a log (oldest first) from its initial state: the one replay behind the
    audit, the upgrade preview and the verification of export files."""
    ruleset = inp.ruleset
    differences: list[AuditDifference] = []
    unchecked: list[tuple[int, str, str]] = []
    rolls_checked = 0
    states: dict[int, Any] = {1: inp.initial_state}
    state: Any = ruleset.load_state(inp.initial_state)
    for row in inp.entries:
        if row.redacted or state is None:
            why = (
                "hidden from this file's reader"
                if row.redacted
                else "the state before it is hidden from this file's reader"
            )
            unchecked.append((row.seq, row.kind, why))
            current = row.state_after
            state = _loaded(ruleset, current)
            if state is not None:
                states[row.version] = current
            continue
        difference: AuditDifference | None = None
        try:
            difference, checked = _check_rolls(inp.dice, row)
            rolls_checked += checked
            new_state, judged = _replay_event(inp, row, state, states)
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
        loaded = _loaded(ruleset, current)
        if loaded is None and state_json is not None and current is not state_json:
            current, loaded = state_json, _loaded(ruleset, state_json)  # ours, then
        if loaded is None:
            break
        states[row.version] = current
        state = loaded
    differences = [_labelled(d, ruleset.version) for d in differences]
    stretches = _stretches(inp.entries, ruleset.version, differences)
    changed = inp.recorded_version != ruleset.version or any(
        s.version is not None and not s.same_version for s in stretches
    )
    report = AuditReport(
        game=inp.game_id,
        ruleset=ruleset.id,
        recorded_version=inp.recorded_version,
        replayed_version=ruleset.version,
        version_changed=changed,
        events=len(inp.entries),
        ok=not differences,
        first_difference=differences[0] if differences else None,
        differences=differences,
        stretches=stretches,
    )
    return ReplayOutcome(report, unchecked, rolls_checked)


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
    rows: Sequence[LogEntry], running: str, differences: list[AuditDifference]
) -> list[AuditStretch]:
    """The log cut into runs of consecutive events with the same recorded ruleset version."""
    runs: list[list[LogEntry]] = []
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
        return replay(game, rows, uow.games.states_after(game_id, rows, game.row.initial_state))
