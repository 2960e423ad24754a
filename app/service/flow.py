"""Match-flow use cases: phases, game end, dice reveal and verification, rollback, takeback.

Each mutating use case follows the same order as ``submit_action``: token present -> clock
expiry settled -> game exists -> token is a seat -> If-Match present -> idempotent replay ->
the seat may do this -> the game allows it -> version still current. Each appends exactly one
event (``phase``, ``game_finished``, ``seed_revealed``, ``rollback``, ``takeback``) through
``pipeline.Write.record`` inside the shared write frame (``pipeline.run_write``), so every
event bumps the version by one and concurrent retries with one Idempotency-Key get one answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.db.models import EventRow, GameFields
from app.db.sealed import sealed_orders
from app.db.uow import AbstractUnitOfWork
from app.match import dice as dicelib
from app.rules.base import UMPIRE
from app.rules.ruling import Ruling
from app.service import match as mt
from app.service.boards import BoardCache, digest
from app.service.errors import (
    Conflict,
    FieldError,
    Forbidden,
    InvalidInput,
)
from app.service.events import all_events
from app.service.pipeline import (
    Game,
    Write,
    WriteRequest,
    clock_now,
    find_game,
    guard,
    out_of_sequence,
    reader_seat,
    replay_outcome,
    require_active,
    run_write,
    settle_clock,
    turn_of,
)
from app.service.policies import cite
from app.service.results import (
    ActionOutcome,
    DiceInfo,
    DiceVerification,
    EventRoll,
    RollMismatch,
)

REVEAL_MARKERS = (".revealed", ".reveal")
"""Effect kinds ending so mark a ruling that revealed hidden information (no takeback)."""


def _write(
    req: WriteRequest,
    what: str,
    request: dict[str, Any],
    body: Callable[[Write], ActionOutcome],
) -> ActionOutcome:
    """A match-flow command in the shared write frame (``pipeline.run_write``); its
    Idempotency-Key is bound to the seat and ``request``."""
    return run_write(
        req,
        what=what,
        request_digest=lambda seat: digest({"seat": seat, **request}),
        body=body,
        replay=replay_outcome,
    )


def _sides(game: Game) -> tuple[str, ...]:
    return tuple(game.ruleset.sides(game.board).names)


def _running(game: Game) -> str | None:
    state = mt.clock_state(game.row)
    return state.running if state else None


def _umpire_only(seat: str, detail: str, *, code: str) -> None:
    """403 ``code`` unless ``seat`` is the umpire's (service policy ``umpire-commands``)."""
    if seat != UMPIRE:
        raise Forbidden(detail, code=code, citations=cite("umpire-commands"))


# -- turns and phases -----------------------------------------------------------------------


def end_phase(
    req: WriteRequest,
    *,
    umpire_advance: bool = False,
) -> ActionOutcome:
    """End the current phase (``POST /games/{id}/phase/end``: the side(s) acting in it, or
    the umpire) or advance it (``POST /games/{id}/phase/advance``: the umpire only).

    The ruleset's ``advance_phase`` computes the next phase's state (snapshotting the facts
    its rules need at the start of a phase). Ending its own phase charges the side's clock
    (with the increment); an umpire advance just switches the clock to the next side.
    """
    how = "advance" if umpire_advance else "end"

    def body(cmd: Write) -> ActionOutcome:
        game, seat = cmd.game, cmd.seat
        if umpire_advance:
            _umpire_only(seat, "only the umpire may advance the phase", code="phase.umpire_only")
        require_active(game.row)
        turn = turn_of(game, game.state)
        if turn is None:
            raise Conflict(
                f"ruleset {game.ruleset.id!r} declares no sequence of play: there is no phase "
                "to end",
                code="phase.no_sequence",
                citations=cite("sequence-of-play"),
            )
        if not mt.may_end_phase(turn, seat):
            raise out_of_sequence(turn, seat, None)
        cmd.require_current()
        with guard("state"):
            new_state = game.ruleset.advance_phase(game.board, game.state)
            over = game.ruleset.is_over(game.board, new_state)
        after = turn_of(game, new_state)
        if over:
            clock_json = mt.clock_stopped(game.row, cmd.now)
        else:
            running = mt.expected_side(after, _sides(game), None, _running(game))
            mover = None if seat == UMPIRE else seat
            clock_json = mt.clock_after(game.row, mover, cmd.now, running)
        old_title, new_title = turn.phase.title, after.phase.title if after else "?"
        summary = (
            f"{seat} {'advanced' if umpire_advance else 'ended'} the {mt.phase_name(old_title)} "
            f"(turn {turn.position.turn}, {turn.position.phasing_side}); now "
            + (
                f"turn {after.position.turn}, {mt.phase_name(new_title)}, "
                f"{after.position.phasing_side} phasing."
                if after
                else "no phase."
            )
        )
        moved = {"from": mt.position_json(turn), "to": mt.position_json(after), "by": how}
        return cmd.record(
            kind="phase",
            new_state=new_state,
            ruling=Ruling(
                legal=True,
                summary=summary,
                citations=(turn.sequence.citation,),
                details=moved,
            ),
            payload=moved,
            status="finished" if over else None,
            extra={"clock": clock_json},
        )

    return _write(req, f"phase {how}", {"phase": how}, body)


def finish_game(req: WriteRequest, winner: str | None) -> ActionOutcome:
    """The umpire declares the game over (``POST /games/{id}/finish``), naming the winner or
    none. The clock stops and the dice seed becomes public (its event carries it)."""

    def body(cmd: Write) -> ActionOutcome:
        game, seat = cmd.game, cmd.seat
        _umpire_only(seat, "only the umpire may end the game", code="game.umpire_only")
        require_active(game.row)
        sides = _sides(game)
        if winner is not None and winner not in sides:
            raise InvalidInput(
                f"{winner!r} is not a side of this game",
                [FieldError("/winner", f"one of {list(sides)} or null", "enum")],
                citations=cite("umpire-commands"),
            )
        cmd.require_current()
        payload = {"winner": winner, "seed": game.row.dice_seed}
        return cmd.record(
            kind="game_finished",
            new_state=game.state,
            ruling=Ruling(
                legal=True,
                summary=f"The umpire ended the game: {winner or 'no side'} wins.",
                details={"winner": winner},
            ),
            payload=payload,
            status="finished",
            extra={"winner": winner, "clock": mt.clock_stopped(game.row, cmd.now)},
        )

    return _write(req, "ending the game", {"finish": winner}, body)


# -- dice -------------------------------------------------------------------------------------


def _event_rolls(rows: list[EventRow], seat: str | None) -> list[EventRoll]:
    out: list[EventRoll] = []
    for row in rows:
        if not mt.event_visible(row, seat):
            continue
        for r in mt.load_rolls(row.dice):
            out.append(
                EventRoll(
                    event=row.seq,
                    kind=row.kind,
                    n=r.n,
                    sides=r.sides,
                    value=r.value,
                    client_seed=r.client_seed or None,
                    entered_by=r.entered_by,
                )
            )
    return out


def dice_info(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str | None,
    boards: BoardCache,
    now: float | None = None,
) -> DiceInfo:
    """``GET /games/{id}/dice``: commitment, recipe, the rolls the reader may see, and the
    seed only when it is revealed to this reader."""
    settle_clock(uow, game_id, now=clock_now(now), boards=boards)
    with uow.begin():
        row, _ = find_game(uow, game_id)
        seat = reader_seat(uow, row, token)
        return DiceInfo(
            recipe=dicelib.RECIPE,
            commitment=row.dice_commitment,
            rolled=row.dice_counter,
            physical=mt.options_of(row).physical_dice,
            seed=row.dice_seed if mt.seed_visible(row, seat) else None,
            rolls=_event_rolls(all_events(uow, game_id), seat),
        )


def verify_dice(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str | None,
    boards: BoardCache,
    now: float | None = None,
) -> DiceVerification:
    """``GET /games/{id}/dice/verify``: check the seed against the commitment and re-derive
    every derived roll the reader may see. Only when the seed is revealable to the reader
    (403 ``dice.seed_sealed`` otherwise)."""
    settle_clock(uow, game_id, now=clock_now(now), boards=boards)
    with uow.begin():
        row, _ = find_game(uow, game_id)
        seat = reader_seat(uow, row, token)
        if not mt.seed_visible(row, seat) or row.dice_seed is None:
            raise Forbidden(
                "the dice seed is still sealed: it is revealed when the game is over "
                "(the umpire: after POST /games/{id}/dice/reveal)",
                code="dice.seed_sealed",
                citations=cite("dice-seed"),
            )
        seed = bytes.fromhex(row.dice_seed)
        commitment_ok = dicelib.commitment(seed) == (row.dice_commitment or "")
        rolls = _event_rolls(all_events(uow, game_id), seat)
        mismatches: list[RollMismatch] = []
        checked = entered = 0
        for r in rolls:
            if r.entered_by is not None:
                entered += 1
                continue
            checked += 1
            derived = dicelib.derive_roll(seed, row.id, r.n, r.sides, r.client_seed or "")
            if derived != r.value:
                mismatches.append(
                    RollMismatch(event=r.event, n=r.n, recorded=r.value, derived=derived)
                )
        return DiceVerification(
            recipe=dicelib.RECIPE,
            commitment=row.dice_commitment,
            seed=row.dice_seed,
            commitment_ok=commitment_ok,
            checked=checked,
            entered=entered,
            mismatches=mismatches,
            ok=commitment_ok and not mismatches,
        )


def reveal_seed(req: WriteRequest) -> ActionOutcome:
    """``POST /games/{id}/dice/reveal``: the umpire has the seed revealed before the game
    ends. Appends a ``seed_revealed`` event every reader sees (without the seed), so players
    know the umpire can now work out later rolls; the seed itself is then served to the
    umpire only, by ``GET /games/{id}/dice``."""

    def body(cmd: Write) -> ActionOutcome:
        game, seat = cmd.game, cmd.seat
        _umpire_only(seat, "only the umpire may have the seed revealed", code="dice.umpire_only")
        if game.row.seed_revealed or game.row.status == "finished":
            raise Conflict(
                "the seed is already revealed",
                code="dice.already_revealed",
                citations=cite("dice-seed"),
            )
        cmd.require_current()
        payload = {"to": [UMPIRE], "commitment": game.row.dice_commitment}
        return cmd.record(
            kind="seed_revealed",
            new_state=game.state,
            ruling=Ruling(
                legal=True,
                summary="The dice seed was revealed to the umpire; the umpire can now "
                "re-derive every roll, past and future.",
                details=payload,
            ),
            payload=payload,
            extra={"seed_revealed": True},
        )

    return _write(req, "revealing the seed", {"dice": "reveal"}, body)


# -- undo -------------------------------------------------------------------------------------


def _state_at(game: GameFields, uow: AbstractUnitOfWork, version: int) -> dict[str, Any] | None:
    """The stored state of ``version`` (initial state, or the state the event that produced
    it left: its snapshot, or rebuilt from the nearest one); None when it was not kept."""
    return uow.games.state_after(game.id, version - 1, game.initial_state)


def _restore(
    cmd: Write,
    *,
    kind: str,
    version: int,
    summary: str,
    payload: dict[str, Any],
    policy: str | None = None,
    visible_to: list[str] | None = None,
) -> ActionOutcome:
    """Append a ``kind`` event (rollback, takeback, appeal_decided) whose state is that of
    ``version`` (409 ``<policy>.unavailable`` when that state was not kept)."""
    game = cmd.game
    policy = policy or kind
    stored = _state_at(game.row, cmd.uow, version)
    if stored is None:
        raise Conflict(
            f"the state of version {version} was not kept; it cannot be restored",
            code=f"{policy}.unavailable",
            citations=cite(policy),
        )
    with guard("state"):
        state = game.ruleset.load_state(stored)
    running = mt.expected_side(turn_of(game, state), _sides(game), None, _running(game))
    return cmd.record(
        kind=kind,
        new_state=state,
        ruling=Ruling(legal=True, summary=summary, details=payload),
        payload=payload,
        extra={"clock": mt.clock_switched(game.row, cmd.now, running)},
        visible_to=visible_to,
    )


def restore_version(
    cmd: Write,
    to_version: int,
    *,
    kind: str,
    summary: str,
    payload: dict[str, Any],
    visible_to: list[str] | None = None,
) -> ActionOutcome:
    """The rollback machinery, inside a write the caller has checked (umpire, active game):
    422 ``rollback.bad_version`` unless ``to_version`` is an earlier version, then 412 if
    stale; sealed orders received after ``to_version`` and not revealed are withdrawn (listed
    in the payload's ``withdrawn``) and a ``kind`` event restoring that state is appended.
    Used by :func:`rollback` and by an appeal overridden by rollback
    (:mod:`app.service.appeals`)."""
    game = cmd.game
    if not 1 <= to_version < game.row.version:
        raise InvalidInput(
            f"to_version must be an earlier version (1 to {game.row.version - 1})",
            [FieldError("/to_version", "not an earlier version", "rollback.bad_version")],
            code="rollback.bad_version",
            citations=cite("rollback"),
        )
    cmd.require_current()
    withdrawn = _withdraw_sealed(cmd.uow, game.row.id, to_version)
    payload = {**payload, "to_version": to_version, "from_version": game.row.version}
    if withdrawn:
        payload["withdrawn"] = withdrawn
        sides = ", ".join(f"{w['side']} ({w['instance']})" for w in withdrawn)
        summary += f" Sealed orders withdrawn unrevealed: {sides}."
    return _restore(
        cmd,
        kind=kind,
        version=to_version,
        summary=summary,
        payload=payload,
        policy="rollback",
        visible_to=visible_to,
    )


def rollback(req: WriteRequest, to_version: int) -> ActionOutcome:
    """``POST /games/{id}/rollback``: the umpire restores the state of an earlier version.

    The log is never rewritten: a ``rollback`` event is appended (a new version) whose state
    is the restored one. The dice counter never goes back (no roll is used twice), and the
    clocks keep the time already spent; the side expected to act at the restored position
    gets the running clock. A finished game cannot be rolled back (its seed is public).
    Sealed orders received after ``to_version`` and not yet revealed are withdrawn (never
    revealed; their sides may submit again) and listed in the event's ``withdrawn``.
    """

    def body(cmd: Write) -> ActionOutcome:
        game, seat = cmd.game, cmd.seat
        _umpire_only(seat, "only the umpire may roll the game back", code="rollback.umpire_only")
        require_active(game.row)
        summary = (
            f"The umpire rolled the game back from version {game.row.version} to "
            f"version {to_version}."
        )
        return restore_version(cmd, to_version, kind="rollback", summary=summary, payload={})

    return _write(req, "a rollback", {"rollback": to_version}, body)


def _withdraw_sealed(
    uow: AbstractUnitOfWork, game_id: str, to_version: int
) -> list[dict[str, Any]]:
    """Withdraw every sealed order received after version ``to_version`` and not revealed:
    its row is deleted (it is never revealed and its side may submit again); its receipt stays
    in the log. Returns what was withdrawn (instance, side, commitment, receipt event), for
    the rollback event's payload -- commitments only, never an order's content."""
    repo = sealed_orders(uow)
    withdrawn: list[dict[str, Any]] = []
    for row in reversed(all_events(uow, game_id)):  # newest receipt first
        if row.kind != "sealed_received" or row.version <= to_version or row.payload is None:
            continue
        instance, side = str(row.payload.get("instance")), str(row.payload.get("side"))
        if repo.withdraw(game_id, instance, side):
            withdrawn.append(
                {
                    "instance": instance,
                    "side": side,
                    "commitment": row.payload.get("commitment"),
                    "event": row.seq,
                }
            )
    return withdrawn


def _revealed_something(row: EventRow) -> bool:
    ruling = row.ruling or {}
    if (ruling.get("details") or {}).get("reveals"):
        return True
    return any(
        str(effect.get("kind", "")).endswith(REVEAL_MARKERS)
        for effect in ruling.get("effects") or ()
    )


def _last_action(uow: AbstractUnitOfWork, game_id: str) -> EventRow | None:
    """The latest action event still in force: walk back from the newest event, skipping
    over earlier takebacks (each jumps to the version it restored). Stops at any other
    event (phase change, rollback, clock expiry, sealed reveal…): returns it instead."""
    rows = {r.seq: r for r in all_events(uow, game_id)}
    seq = max(rows, default=0)
    while seq > 0:
        row = rows[seq]
        if row.kind == "takeback" and row.payload is not None:
            seq = int(row.payload["to_version"]) - 1
            continue
        return row
    return None


def takeback(req: WriteRequest) -> ActionOutcome:
    """``POST /games/{id}/takeback``: a player takes back their own last action.

    Needs match option ``takeback``; the action must be the latest event still in force
    (nobody acted since, no phase change, no rollback, no sealed reveal, no clock expiry),
    made by this seat, with no dice rolled and nothing revealed (no effect kind ending in
    ``.revealed``/``.reveal``, no ``details.reveals`` in its ruling). Appends a ``takeback``
    event restoring the state before that action. Repeated takebacks walk further back.
    """

    def body(cmd: Write) -> ActionOutcome:
        game, seat = cmd.game, cmd.seat
        if seat == UMPIRE:
            raise Forbidden(
                "the umpire undoes with POST /games/{id}/rollback",
                code="takeback.players_only",
                citations=cite("takeback"),
            )
        if not mt.options_of(game.row).takeback:
            raise Conflict(
                "this game does not allow takebacks",
                code="takeback.disabled",
                citations=cite("takeback"),
            )
        require_active(game.row)
        last = _last_action(cmd.uow, game.row.id)
        if last is None:
            raise Conflict(
                "there is nothing to take back", code="takeback.nothing", citations=cite("takeback")
            )
        if last.payload is not None:
            raise Conflict(
                f"the last event ({last.kind}, event {last.seq}) closed the takeback window",
                code="takeback.window_closed",
                citations=cite("takeback"),
                event=last.seq,
            )
        if last.seat != seat:
            raise Conflict(
                f"the last action (event {last.seq}) was made by {last.seat}, not {seat}",
                code="takeback.not_yours",
                citations=cite("takeback"),
                event=last.seq,
            )
        if last.dice:
            raise Conflict(
                f"event {last.seq} rolled dice: it cannot be taken back",
                code="takeback.dice_rolled",
                citations=cite("takeback"),
                event=last.seq,
            )
        if _revealed_something(last):
            raise Conflict(
                f"event {last.seq} revealed hidden information: it cannot be taken back",
                code="takeback.revealed",
                citations=cite("takeback"),
                event=last.seq,
            )
        cmd.require_current()
        return _restore(
            cmd,
            kind="takeback",
            version=last.version - 1,
            summary=f"{seat} took back event {last.seq} ({last.kind}).",
            payload={"event": last.seq, "to_version": last.version - 1},
        )

    return _write(req, "a takeback", {"takeback": True}, body)
