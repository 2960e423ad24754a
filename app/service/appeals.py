"""Appeals (issue 26): a side appeals a ruling; the umpire upholds or overrides it.

Both halves are events of the log, appended in the shared write frame
(:func:`app.service.pipeline.run_write`), so they are versioned, idempotent, streamed,
notified, audited and exported like every other event; no table of their own:

* ``POST /games/{id}/events/{n}/appeal`` (:func:`appeal`): a side's seat appeals the ruling of
  action event ``n`` -- one it may read, while at most ``match.appeal_window_events`` events
  followed it, with no other appeal of that event still open -- with a note. Appends an
  ``appeal`` event (the state unchanged) visible to the readers of the appealed event;
* ``POST /games/{id}/appeals/{appeal}/decision`` (:func:`decide`): the umpire decides appeal
  ``appeal`` (the appeal event's sequence number). ``upheld`` leaves the state alone;
  ``overridden`` either restores an earlier version (``rollback_to``: the rollback machinery,
  :func:`app.service.flow.restore_version`) or judges and applies a corrected ``action`` as a
  submission of the umpire (legal or 422 with its ruling; dice rolled like a submission's).
  Appends one ``appeal_decided`` event whose payload names the appeal, the outcome and the
  note (and ``to_version`` or ``override: "action"``); a corrected action's event carries the
  action, its ruling and its dice, and the audit replays it like an action;
* ``GET /games/{id}/appeals`` (:func:`list_appeals`): the appeals the reader may see.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from app.db.models import EventRow
from app.db.uow import AbstractUnitOfWork
from app.rules.base import UMPIRE
from app.rules.ruling import Ruling
from app.service import match as mt
from app.service.actions import played
from app.service.boards import digest
from app.service.errors import (
    Conflict,
    EventNotFound,
    FieldError,
    Forbidden,
    IllegalAction,
    InvalidInput,
    NotFound,
)
from app.service.events import all_events
from app.service.flow import restore_version
from app.service.pipeline import (
    Write,
    WriteRequest,
    aware_utc,
    find_game,
    reader_seat,
    replay_outcome,
    require_active,
    require_storable,
    run_write,
)
from app.service.policies import cite
from app.service.results import ActionOutcome, AppealDecision, AppealList, AppealView

APPEAL = "appeal"
DECIDED = "appeal_decided"
OUTCOMES = ("upheld", "overridden")
NOTE_MAX = 500
"""The longest note (characters) of an appeal or a decision."""


def check_note(note: Any, *, required: bool) -> str:
    """A note: a string of at most :data:`NOTE_MAX` characters without control characters
    (422 ``appeal.invalid_note``); an appeal's note may not be blank."""
    problem = None
    if not isinstance(note, str):
        problem = "a note is a string"
    elif len(note) > NOTE_MAX:
        problem = f"a note has at most {NOTE_MAX} characters"
    elif any(unicodedata.category(c) in ("Cc", "Cs") for c in note):
        problem = "a note may not hold control characters"
    elif required and not note.strip():
        problem = "an appeal says why: the note may not be blank"
    if problem is not None:
        raise InvalidInput(
            problem,
            [FieldError("/note", problem, "appeal.invalid_note")],
            code="appeal.invalid_note",
            citations=cite("appeals"),
        )
    assert isinstance(note, str)
    return note


def _appeals(rows: list[EventRow]) -> tuple[dict[int, EventRow], dict[int, EventRow]]:
    """(appeal seq -> its event, appeal seq -> its decision event)."""
    appeals: dict[int, EventRow] = {}
    decisions: dict[int, EventRow] = {}
    for row in rows:
        if row.payload is None:
            continue
        if row.kind == APPEAL:
            appeals[row.seq] = row
        elif row.kind == DECIDED:
            decisions[int(row.payload.get("appeal", -1))] = row
    return appeals, decisions


def appeal(req: WriteRequest, seq: int, note: Any) -> ActionOutcome:
    """``POST /games/{id}/events/{seq}/appeal``: a side appeals the ruling of event ``seq``.

    403 ``appeal.sides_only`` (the umpire), 404 ``event.not_found``, 403
    ``appeal.hidden_event`` (a ruling the seat may not read), 409 ``appeal.not_an_action``,
    409 ``appeal.window_closed`` (more than ``match.appeal_window_events`` events followed),
    409 ``appeal.already_open``, 422 ``appeal.invalid_note``, 409 ``game.finished``."""
    require_storable({"note": note}, code="appeal.invalid_note")
    text = check_note(note, required=True)

    def body(cmd: Write) -> ActionOutcome:
        game, seat = cmd.game, cmd.seat
        if seat == UMPIRE:
            raise Forbidden(
                "the umpire decides appeals; a side's seat appeals",
                code="appeal.sides_only",
                citations=cite("appeals"),
            )
        require_active(game.row)
        row = cmd.uow.games.event(game.row.id, seq)
        if row is None:
            raise EventNotFound(
                f"game {game.row.id!r} has no event {seq}", seq=seq, citations=cite("appeals")
            )
        if not mt.event_visible(row, seat):
            raise Forbidden(
                f"event {seq} is hidden from {seat}: a side appeals only rulings it can read",
                code="appeal.hidden_event",
                citations=cite("appeals"),
                event=seq,
            )
        if row.payload is not None:
            raise Conflict(
                f"event {seq} ({row.kind}) is not an action: only an action's ruling is appealed",
                code="appeal.not_an_action",
                citations=cite("appeals"),
                event=seq,
            )
        window = mt.options_of(game.row).appeal_window_events
        followed = game.row.version - row.version
        if followed > window:
            raise Conflict(
                f"{followed} events followed event {seq}: this game allows an appeal while at "
                f"most {window} did (match option appeal_window_events)",
                code="appeal.window_closed",
                citations=cite("appeals"),
                event=seq,
                window=window,
                followed=followed,
            )
        appeals, decisions = _appeals(all_events(cmd.uow, game.row.id))
        for n, a in appeals.items():
            if a.payload is not None and a.payload.get("event") == seq and n not in decisions:
                raise Conflict(
                    f"event {seq} already has an open appeal ({n})",
                    code="appeal.already_open",
                    citations=cite("appeals"),
                    event=seq,
                    appeal=n,
                )
        cmd.require_current()
        payload = {"event": seq, "event_kind": row.kind, "appellant": seat, "note": text}
        return cmd.record(
            kind=APPEAL,
            new_state=game.state,
            ruling=Ruling(
                legal=True,
                summary=f"{seat} appealed the ruling of event {seq} ({row.kind}).",
                details=payload,
            ),
            payload=payload,
            visible_to=None if row.visible_to is None else list(row.visible_to),
        )

    return run_write(
        req,
        what="an appeal",
        request_digest=lambda seat: digest({"seat": seat, "appeal": seq, "note": text}),
        body=body,
        replay=replay_outcome,
    )


def decide(
    req: WriteRequest,
    appeal_seq: int,
    *,
    outcome: str,
    note: Any = "",
    rollback_to: int | None = None,
    action: Any = None,
) -> ActionOutcome:
    """``POST /games/{id}/appeals/{appeal}/decision``: the umpire decides an open appeal.

    403 ``appeal.umpire_only``, 404 ``appeal.not_found``, 409 ``appeal.already_decided``,
    422 ``appeal.bad_decision`` (``upheld`` with an override, ``overridden`` without exactly
    one of ``rollback_to`` and ``action``), 422 ``appeal.invalid_note``; an override by
    rollback refuses as a rollback does (422 ``rollback.bad_version``), a corrected action as
    a submission does (422 ``action.invalid``, ``action.illegal`` with its ruling)."""
    require_storable({"note": note, "action": action}, code="request.invalid")
    text = check_note(note, required=False)
    if outcome not in OUTCOMES:
        _bad_decision(f"outcome is one of {list(OUTCOMES)}", "/outcome")
    if outcome == "upheld" and (rollback_to is not None or action is not None):
        _bad_decision("an upheld ruling stands: no rollback_to, no action", "/outcome")
    if outcome == "overridden" and (rollback_to is None) == (action is None):
        _bad_decision("an override names exactly one of rollback_to and action", "")

    def body(cmd: Write) -> ActionOutcome:
        game, seat = cmd.game, cmd.seat
        if seat != UMPIRE:
            raise Forbidden(
                "only the umpire decides an appeal",
                code="appeal.umpire_only",
                citations=cite("appeals"),
            )
        require_active(game.row)
        row = cmd.uow.games.event(game.row.id, appeal_seq)
        if row is None or row.kind != APPEAL or row.payload is None:
            raise NotFound(
                f"game {game.row.id!r} has no appeal {appeal_seq}",
                code="appeal.not_found",
                citations=cite("appeals"),
                appeal=appeal_seq,
            )
        _, decisions = _appeals(all_events(cmd.uow, game.row.id))
        if appeal_seq in decisions:
            raise Conflict(
                f"appeal {appeal_seq} was decided (event {decisions[appeal_seq].seq})",
                code="appeal.already_decided",
                citations=cite("appeals"),
                appeal=appeal_seq,
            )
        appealed = int(row.payload.get("event", 0))
        appellant = str(row.payload.get("appellant"))
        payload: dict[str, Any] = {
            "appeal": appeal_seq,
            "event": appealed,
            "appellant": appellant,
            "outcome": outcome,
            "note": text,
        }
        visible_to = None if row.visible_to is None else list(row.visible_to)
        summary = f"The umpire {outcome} the ruling of event {appealed} (appeal {appeal_seq})"
        if rollback_to is not None:
            return restore_version(
                cmd,
                rollback_to,
                kind=DECIDED,
                summary=f"{summary}: the game is rolled back to version {rollback_to}.",
                payload={**payload, "override": "rollback"},
                visible_to=visible_to,
            )
        if action is not None:
            return _corrected(cmd, action, {**payload, "override": "action"}, summary, visible_to)
        cmd.require_current()
        return cmd.record(
            kind=DECIDED,
            new_state=game.state,
            ruling=Ruling(legal=True, summary=f"{summary}.", details=payload),
            payload=payload,
            visible_to=visible_to,
        )

    request = {"decide": appeal_seq, "outcome": outcome, "note": text}
    request |= {"rollback_to": rollback_to, "action": action}
    return run_write(
        req,
        what="deciding an appeal",
        request_digest=lambda seat: digest({"seat": seat, **request}),
        body=body,
        replay=replay_outcome,
    )


def _bad_decision(message: str, location: str) -> None:
    raise InvalidInput(
        message,
        [FieldError(location or "/", message, "appeal.bad_decision")],
        code="appeal.bad_decision",
        citations=cite("appeals"),
    )


def _corrected(
    cmd: Write,
    action: Any,
    payload: dict[str, Any],
    summary: str,
    visible_to: list[str] | None,
) -> ActionOutcome:
    """An override by a corrected action: judged and applied like the umpire's submission
    (legality first without dice, then the dice it needs, derived from the committed seed)."""
    game = cmd.game

    def roll(sizes: list[int]) -> list[Any]:
        return mt.roll(game.row, sizes, seat=UMPIRE)

    done = played(game, None, action, roll, sequence=False)  # the umpire's, any time
    assert done.action is not None and done.ruling is not None
    if done.state is None:
        raise IllegalAction(done.ruling, version=game.row.version)
    cmd.require_current()
    if done.private_to is not None:
        visible_to = done.visible_to(str(payload["appellant"]))
    extra: dict[str, Any] = {"dice_counter": game.row.dice_counter + len(done.rolls)}
    if done.over:
        extra["clock"] = mt.clock_stopped(game.row, cmd.now)
    payload = {**payload, "action_kind": done.kind}
    return cmd.record(
        kind=DECIDED,
        new_state=done.state,
        ruling=done.ruling,
        action=done.action.model_dump(mode="json"),
        rolls=done.rolls,
        payload=payload,
        status="finished" if done.over else None,
        extra=extra,
        visible_to=visible_to,
    )


def list_appeals(uow: AbstractUnitOfWork, game_id: str, *, token: str | None) -> AppealList:
    """``GET /games/{id}/appeals``: the appeals the reader may see (those whose appeal event
    it may read), oldest first, open or decided; a decision hidden from it shows as none."""
    with uow.begin():
        found = find_game(uow, game_id)
        seat = reader_seat(uow, found[0], token)
        appeals, decisions = _appeals(all_events(uow, game_id))
        items: list[AppealView] = []
        for n, row in appeals.items():
            if not mt.event_visible(row, seat) or row.payload is None:
                continue
            done = decisions.get(n)
            decision = None
            if done is not None and done.payload is not None and mt.event_visible(done, seat):
                to = done.payload.get("to_version")
                decision = AppealDecision(
                    event=done.seq,
                    outcome=str(done.payload.get("outcome")),
                    note=str(done.payload.get("note", "")),
                    override=done.payload.get("override"),
                    to_version=int(to) if to is not None else None,
                    created_at=aware_utc(done.created_at),
                )
            items.append(
                AppealView(
                    appeal=n,
                    event=int(row.payload.get("event", 0)),
                    event_kind=str(row.payload.get("event_kind")),
                    appellant=str(row.payload.get("appellant")),
                    note=str(row.payload.get("note", "")),
                    status="decided" if done is not None else "open",
                    created_at=aware_utc(row.created_at),
                    decision=decision,
                )
            )
        return AppealList(items=items)
