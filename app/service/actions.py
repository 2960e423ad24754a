"""Actions: judging one without writing (dry run) and submitting one (judge, roll, apply).

A submission runs in the shared write frame (:func:`app.service.pipeline.run_write`); every
call into the ruleset goes through :func:`app.service.pipeline.guard`, so client input that a
ruleset rejects deep inside becomes a client error, never a server error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from app.db.uow import AbstractUnitOfWork
from app.rules.base import UMPIRE
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
    IfMatch,
    Write,
    WriteRequest,
    clock_now,
    guard,
    out_of_sequence,
    reading,
    record_event,
    replay_outcome,
    require_active,
    require_current,
    require_running_version,
    require_storable,
    run_write,
    turn_of,
)
from app.service.policies import cite
from app.service.results import ActionOutcome, DryRun


def parse_action(ruleset: AnyRuleset, data: Any) -> BaseModel:
    """Validate an action; error locations point into the action document itself."""
    try:
        return ruleset.parse_action(data)  # type: ignore[no-any-return]
    except ValidationError as exc:
        errors: list[FieldError] = []
        kind = data.get("kind") if isinstance(data, dict) else None
        multi = len(ruleset.action_models) > 1
        for err in exc.errors(include_url=False):
            loc = list(err.get("loc", ()))
            etype = str(err.get("type", "invalid"))
            if etype.startswith("union_tag"):
                loc = ["kind"]
            elif multi and loc and loc[0] == kind:
                loc = loc[1:]
            errors.append(FieldError(pointer(loc), str(err.get("msg", "invalid")), etype))
        raise InvalidInput("invalid action", errors, code="action.invalid") from exc


def dice_needed_by(game: Game, state: Any, action: Any) -> list[int]:
    """The die sizes an action needs (the ruleset's ``dice_needed`` hook)."""
    with guard("action"):
        return [int(s) for s in game.ruleset.dice_needed(game.board, state, action) if int(s) > 0]


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
        parsed = parse_action(game.ruleset, action)
        sizes = dice_needed_by(game, game.state, parsed)
        with guard("action"):
            ruling = game.ruleset.adjudicate(game.board, game.state, parsed, game.options, ())
        return DryRun(version=game.row.version, ruling=ruling, dice_needed=sizes)


def submit_action(
    uow: AbstractUnitOfWork,
    game_id: str,
    action: Any,
    *,
    token: str | None,
    if_match: IfMatch | None,
    idempotency_key: str | None = None,
    boards: BoardCache,
    now: float | None = None,
    client_seed: str | None = None,
    entered_dice: Sequence[int] | None = None,
) -> ActionOutcome:
    """Judge an action and, if legal, apply it and append it to the log.

    Order of checks: token present -> game exists -> token is a seat -> If-Match present ->
    idempotent replay -> game still active -> action well-formed -> seat owns the action ->
    the seat's side may act in this phase (sequence of play) -> ruling legal -> version still
    current (one conditional UPDATE). Nothing is written unless all pass.

    Dice: a ruleset's ``dice_needed`` hook names the dice; the action is first judged with
    none (legality only: an illegal action never rolls, so it cannot reveal a roll), then the
    dice are derived from the committed seed (mixed with ``client_seed``) or, with the
    ``physical_dice`` option, taken from ``entered_dice`` (umpire only), and recorded with the
    event. If the ruleset finds the action illegal only with its derived dice, the rolls are
    consumed anyway (a ``dice_consumed`` event, then 422 ``action.illegal_after_dice``), so
    a retry cannot roll them again. The clock charges the side that moved and starts the next
    side's time.
    """
    require_storable(action, code="action.invalid")
    seed = mt.parse_client_seed(client_seed)
    extras: dict[str, Any] = {}
    if seed:
        extras["client_seed"] = seed
    if entered_dice is not None:
        extras["dice"] = list(entered_dice)

    def body(w: Write) -> ActionOutcome:
        uow, game, seat, if_match, now = w.uow, w.game, w.seat, w.if_match, w.now
        require_active(game.row)

        parsed = parse_action(game.ruleset, action)
        with guard("action"):
            owner = game.ruleset.actor_side(game.board, game.state, parsed)
        if owner == UMPIRE and seat != UMPIRE:
            raise Forbidden(
                "only the umpire may submit this action",
                side=owner,
                seat=seat,
                citations=cite("seats"),
            )
        if owner is not None and seat not in (owner, UMPIRE):
            raise Forbidden(
                f"this action belongs to {owner!r}", side=owner, seat=seat, citations=cite("seats")
            )
        match = mt.options_of(game.row)
        turn = turn_of(game, game.state)
        if turn is not None and match.enforce_sequence and not mt.may_act(turn, seat, owner):
            raise out_of_sequence(turn, seat, owner)

        sizes = dice_needed_by(game, game.state, parsed)
        if sizes:
            # Legality first, with no dice: an illegal action must not roll (nor reveal) any.
            try:
                with guard("action"):
                    before: Ruling | None = game.ruleset.adjudicate(
                        game.board, game.state, parsed, game.options, ()
                    )
            except RulesRejected:
                before = None  # this ruleset cannot judge without its dice
            if before is not None and not before.legal:
                raise IllegalAction(before, version=game.row.version)
        rolls = mt.roll(game.row, sizes, seat=seat, client_seed=seed, entered=entered_dice)
        dice = tuple(r.value for r in rolls)
        with guard("action"):
            ruling: Ruling = game.ruleset.adjudicate(
                game.board, game.state, parsed, game.options, dice
            )
        if not ruling.legal:
            if any(r.entered_by is None for r in rolls):
                _consume_dice(uow, game, seat, parsed, ruling, rolls, if_match, now)
            raise IllegalAction(ruling, version=game.row.version)

        w.require_current()
        with guard("action"):
            new_state = game.ruleset.apply(game.board, game.state, parsed, ruling)
            over = game.ruleset.is_over(game.board, new_state)
        actor = mt.acting_side(seat, owner)
        extra: dict[str, Any] = {"dice_counter": game.row.dice_counter + len(rolls)}
        if over:
            extra["clock"] = mt.clock_stopped(game.row, now)
        else:
            clock_state = mt.clock_state(game.row)
            running = mt.expected_side(
                turn_of(game, new_state),
                game.ruleset.sides(game.board).names,
                actor,
                clock_state.running if clock_state else None,
            )
            extra["clock"] = mt.clock_after(game.row, actor, now, running)
        with guard("action"):
            private = game.ruleset.private_to(game.board, game.state, parsed)
        visible_to = None if private is None else sorted({*private, seat, UMPIRE})
        return w.record(
            visible_to=visible_to,
            kind=str(getattr(parsed, "kind", type(parsed).__name__)),
            new_state=new_state,
            ruling=ruling,
            action=parsed.model_dump(mode="json"),
            rolls=rolls,
            status="finished" if over else None,
            extra=extra,
        )

    return run_write(
        WriteRequest(uow, game_id, token, if_match, idempotency_key, boards, now),
        what="submitting an action",
        request_digest=lambda seat: _request_digest(seat, action, extras),
        body=body,
        replay=replay_outcome,
    )


def _request_digest(seat: str, action: Any, extras: Mapping[str, Any] | None = None) -> str:
    """What an Idempotency-Key is bound to: the seat, the body and any dice headers."""
    if extras:
        return digest({"seat": seat, "action": action, **extras})
    return digest({"seat": seat, "action": action})


def _consume_dice(
    uow: AbstractUnitOfWork,
    game: Game,
    seat: str,
    parsed: Any,
    ruling: Ruling,
    rolls: Sequence[Any],
    if_match: IfMatch,
    now: float,
) -> None:
    """An action the ruleset found illegal only once its dice were rolled: the rolls are
    consumed anyway -- recorded, visible to every reader, in a ``dice_consumed`` event that
    bumps the version and the roll counter but leaves the state alone -- and the request is
    answered 422 ``action.illegal_after_dice`` (raised here, after the commit).

    So a retry never gets those roll numbers again, whatever ``Referee-Client-Seed`` it sends:
    no "roll shopping" by retrying until the dice suit, and no hidden failed attempts. The
    action is not applied. For a private action the event names only its kind."""
    require_current(game.row, if_match)
    kind = str(getattr(parsed, "kind", type(parsed).__name__))
    with guard("action"):
        private = game.ruleset.private_to(game.board, game.state, parsed) is not None
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
        now=now,
        action={} if private else parsed.model_dump(mode="json"),
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
