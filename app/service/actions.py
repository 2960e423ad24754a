"""Actions: judging one without writing (dry run) and submitting one (judge, roll, apply).

Both play the action with the rules core's one :func:`app.rules.play.step` (:func:`played`:
its refusals become the service's problems). A submission runs in the shared write frame
(:func:`app.service.pipeline.run_write`); the step runs under
:func:`app.service.pipeline.guard`, so client input that a ruleset rejects deep inside becomes
a client error, never a server error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from app.db.uow import AbstractUnitOfWork
from app.rules.play import Roll, Step, step
from app.rules.ruling import Ruling
from app.service import match as mt
from app.service.boards import BoardCache, digest
from app.service.errors import (
    FieldError,
    Forbidden,
    IllegalAction,
    InvalidInput,
    RulesRejected,
    pointer,
)
from app.service.pipeline import (
    AnyRuleset,
    Game,
    Write,
    WriteRequest,
    clock_now,
    guard,
    out_of_sequence,
    reading,
    record_event,
    replay_outcome,
    require_active,
    require_running_version,
    require_storable,
    run_write,
)
from app.service.policies import cite
from app.service.results import ActionOutcome, DryRun


def field_errors_of(ruleset: AnyRuleset, data: Any, errors: Sequence[Any]) -> list[FieldError]:
    """pydantic's errors of an action document, located in the document itself."""
    out: list[FieldError] = []
    kind = data.get("kind") if isinstance(data, dict) else None
    multi = len(ruleset.action_models) > 1
    for err in errors:
        loc = list(err.get("loc", ()))
        etype = str(err.get("type", "invalid"))
        if etype.startswith("union_tag"):
            loc = ["kind"]
        elif multi and loc and loc[0] == kind:
            loc = loc[1:]
        out.append(FieldError(pointer(loc), str(err.get("msg", "invalid")), etype))
    return out


def played(game: Game, seat: str | None, action: Any, roll: Roll, *, sequence: bool) -> Step:
    """:func:`app.rules.play.step` on the game now, its refusals as the service's problems:
    a malformed document (422 ``action.invalid``), another side's or the umpire's action
    (403), out of sequence (409 ``phase.not_your_turn``). What the ruleset raises while
    judging is a client error too (:func:`guard`)."""
    with guard("action"):
        done = step(
            game.ruleset,
            game.board,
            game.state,
            game.options,
            seat,
            action,
            roll,
            enforce_sequence=sequence,
        )
    refused = done.refusal
    if refused is None:
        return done
    if refused.check == "well_formed":
        errors = field_errors_of(game.ruleset, action, refused.errors)
        raise InvalidInput("invalid action", errors, code="action.invalid")
    owner, seat = refused.owner, seat or ""
    if refused.check == "umpire_only":
        raise Forbidden(
            "only the umpire may submit this action", side=owner, seat=seat, citations=cite("seats")
        )
    if refused.check == "not_owner":
        raise Forbidden(
            f"this action belongs to {owner!r}", side=owner, seat=seat, citations=cite("seats")
        )
    assert refused.check == "out_of_sequence" and refused.turn is not None
    raise out_of_sequence(refused.turn, seat, owner, done.kind if done.action else None)


def dry_run(
    uow: AbstractUnitOfWork,
    game_id: str,
    action: Any,
    *,
    token: str | None,
    boards: BoardCache,
    now: float | None = None,
) -> DryRun:
    """Judge an action against the current state; write nothing.

    Anyone who may read the game may ask, whichever side owns the action. A dry run never
    rolls dice: an action that needs dice is judged with none (the ruleset then rules on
    legality only) and ``dice_needed`` lists the dice a real submission would roll, so no
    future roll can be learnt from a dry run. A game pinned to another ruleset version than
    the one running is refused like a submission (409 ``ruleset.upgrade_required``).
    """
    require_storable(action, code="action.invalid")
    with reading(uow, game_id, token=token, boards=boards, now=clock_now(now)) as (game, _):
        require_running_version(game)  # judged only under the version the game is pinned to
        done = played(game, None, action, None, sequence=False)
        assert done.ruling is not None
        return DryRun(version=game.row.version, ruling=done.ruling, dice_needed=[*done.dice_needed])


@dataclass(frozen=True)
class SubmitAction:
    """``POST /games/{id}/actions``: the action document and the dice headers."""

    action: Any
    client_seed: str | None = None
    entered_dice: Sequence[int] | None = None

    def digest(self, seat: str, client_seed: str) -> str:
        """What an Idempotency-Key is bound to: the seat, the body and any dice headers
        (``client_seed`` as parsed)."""
        extras: dict[str, Any] = {"client_seed": client_seed} if client_seed else {}
        if self.entered_dice is not None:
            extras["dice"] = list(self.entered_dice)
        return digest({"seat": seat, "action": self.action, **extras})


def submit_action(req: WriteRequest, cmd: SubmitAction) -> ActionOutcome:
    """Judge an action and, if legal, apply it and append it to the log: the write frame
    (:func:`run_write`) around one :func:`app.rules.play.step`, then the clock and the event.
    Nothing is written unless every check passes. Dice are derived from the committed seed
    (mixed with ``client_seed``) or entered by the umpire (``physical_dice``); an action
    found illegal only once its derived dice are rolled consumes them (:func:`_consume_dice`).
    """
    require_storable(cmd.action, code="action.invalid")
    seed = mt.parse_client_seed(cmd.client_seed)

    def body(w: Write) -> ActionOutcome:
        game, seat = w.game, w.seat
        require_active(game.row)
        roll = partial(mt.roll, game.row, seat=seat, client_seed=seed, entered=cmd.entered_dice)
        sequence = mt.options_of(game.row).enforce_sequence
        done = played(game, seat, cmd.action, roll, sequence=sequence)
        assert done.action is not None and done.ruling is not None
        if done.state is None:
            if any(r.entered_by is None for r in done.rolls):
                _consume_dice(w, done)
            raise IllegalAction(done.ruling, version=game.row.version)
        w.require_current()
        extra = {"dice_counter": game.row.dice_counter + len(done.rolls), "clock": _clock(w, done)}
        return w.record(
            visible_to=done.visible_to(seat),
            kind=done.kind,
            new_state=done.state,
            ruling=done.ruling,
            action=done.action.model_dump(mode="json"),
            rolls=done.rolls,
            status="finished" if done.over else None,
            extra=extra,
            turn=done.turn,
        )

    digest_of = partial(cmd.digest, client_seed=seed)
    what = "submitting an action"
    return run_write(req, what=what, request_digest=digest_of, body=body, replay=replay_outcome)


def _clock(w: Write, done: Step) -> Any:
    """The clock after an accepted action: stopped when the game is over, else the side that
    moved is charged and the side expected next runs."""
    game = w.game
    if done.over:
        return mt.clock_stopped(game.row, w.now)
    actor = mt.acting_side(w.seat, done.owner)
    clock_state = mt.clock_state(game.row)
    running = mt.expected_side(
        done.turn,
        game.ruleset.sides(game.board).names,
        actor,
        clock_state.running if clock_state else None,
    )
    return mt.clock_after(game.row, actor, w.now, running)


def _consume_dice(w: Write, done: Step) -> None:
    """An action the ruleset found illegal only once its dice were rolled: the rolls are
    consumed anyway -- recorded, visible to every reader, in a ``dice_consumed`` event that
    bumps the version and the roll counter but leaves the state alone -- and the request is
    answered 422 ``action.illegal_after_dice`` (raised here, after the commit).

    So a retry never gets those roll numbers again, whatever ``Referee-Client-Seed`` it sends:
    no "roll shopping" by retrying until the dice suit, and no hidden failed attempts. The
    action is not applied. For a private action the event names only its kind."""
    uow, game, seat, rolls = w.uow, w.game, w.seat, done.rolls
    assert done.action is not None and done.ruling is not None
    ruling, kind = done.ruling, done.kind
    w.require_current()
    private = done.private_to is not None
    shown = (
        Ruling(
            legal=False,
            summary=f"A {kind} action of {seat} was judged illegal once its dice were rolled; "
            "the rolls are consumed.",
        )
        if private
        else ruling
    )
    payload = {"reason": "action.illegal_after_dice", "action_kind": kind, "actor": seat}
    outcome = record_event(
        uow,
        game,
        seat=seat,
        kind="dice_consumed",
        new_state=game.state,
        ruling=shown,
        now=w.now,
        action={} if private else done.action.model_dump(mode="json"),
        payload=payload,
        rolls=rolls,
        extra={"dice_counter": game.row.dice_counter + len(rolls)},
    )
    uow.commit()
    raise RulesRejected(
        "the ruleset judged this action illegal only once its dice were rolled: the action is "
        f"not applied, and its rolls are consumed and recorded (event {outcome.event})",
        code="action.illegal_after_dice",
        event=outcome.event,
        version=outcome.version,
        dice=mt.rolls_json(rolls),
        ruling=ruling.model_dump(mode="json"),  # to the actor: its rolls are public now
    )
