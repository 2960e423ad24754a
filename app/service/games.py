"""The use cases: one plain function each, taking a unit of work and a board cache.

Every call into a ruleset goes through :func:`_guard`, so client input that a ruleset rejects
deep inside (a pydantic ValidationError, a RulesError, a malformed hex id -- a ValueError)
becomes a client error, never a server error.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from app.db.models import EventRow, GameRow, ScenarioRow, SeatRow
from app.db.uow import AbstractUnitOfWork
from app.rules import registry
from app.rules.base import UMPIRE, InvalidScenario
from app.rules.ruling import Ruling
from app.service import match as mt
from app.service.boards import BoardCache, canonical_json, digest
from app.service.budget import DEFAULT_BUDGET, check_document, check_generated
from app.service.errors import (
    EventNotFound,
    FieldError,
    Forbidden,
    IdempotencyKeyReused,
    IllegalAction,
    InvalidInput,
    OutOfSequence,
    QueryNotFound,
    RulesRejected,
    field_errors,
    pointer,
    rules_errors,
)
from app.service.pipeline import (
    ACCEPTED,
    INITIAL_VERSION,
    AnyRuleset,
    Game,
    IfMatch,
    Write,
    WriteRequest,
    _aware,
    _clock_now,
    _find,
    _guard,
    _now,
    _reader,
    _record,
    _require_active,
    _require_current,
    _storable,
    _turn,
    _view,
    reading,
    run_write,
)
from app.service.results import (
    ActionOutcome,
    CreatedGame,
    DryRun,
    EventPage,
    EventView,
    GameJson,
    GameView,
    QueryResult,
    ScenarioView,
    SideInfo,
)
from app.service.tokens import hash_token, new_token

# -- helpers ------------------------------------------------------------------------------


def _parse_action(ruleset: AnyRuleset, data: Any) -> BaseModel:
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


def _dice_needed(game: Game, state: Any, action: Any) -> list[int]:
    """The die sizes an action needs (the ruleset's ``dice_needed`` hook)."""
    with _guard("action"):
        return [int(s) for s in game.ruleset.dice_needed(game.board, state, action) if int(s) > 0]


def _out_of_sequence(turn: mt.Turn, seat: str, owner: str | None) -> OutOfSequence:
    side = mt.acting_side(seat, owner) or seat
    phasing = turn.position.phasing_side
    acts = {
        "phasing": f"only the phasing side ({phasing}) may act",
        "non_phasing": f"only the non-phasing side (not {phasing}) may act",
        "umpire": "only the umpire may act",
        "both": "only the sides may act",
    }.get(turn.phase.acts, "nobody may act")
    return OutOfSequence(
        f"turn {turn.position.turn}, {turn.phase.title} phase: {acts}, not {side}",
        side=side,
        position=mt.position_json(turn),
        acts=turn.phase.acts,
        citations=[turn.sequence.citation.model_dump(mode="json")],
    )


def _game_view(game: Game, seat: str | None, now: float | None = None) -> GameView:
    sides = game.ruleset.sides(game.board)
    return GameView(
        id=game.row.id,
        ruleset=game.row.ruleset_id,
        ruleset_version=game.row.ruleset_version,
        version=game.row.version,
        status=game.row.status,
        public=game.row.public,
        sides=[SideInfo(name=n, label=sides.labels.get(n, n)) for n in sides.names],
        seat=seat,
        state=_view(game, game.state, seat),
        created_at=_aware(game.row.created_at),
        updated_at=_aware(game.row.updated_at),
        match=mt.options_of(game.row).model_dump(mode="json"),
        position=mt.position_view(_turn(game, game.state)),
        clock=mt.clock_view(game.row, _clock_now(now)),
        dice=mt.dice_view(game.row),
        winner=game.row.winner,
    )


# -- use cases ----------------------------------------------------------------------------


def create_game(
    uow: AbstractUnitOfWork,
    *,
    ruleset_id: str,
    scenario: Mapping[str, Any],
    options: Mapping[str, Any] | None = None,
    public: bool = True,
    boards: BoardCache | None = None,
    match: Mapping[str, Any] | mt.MatchOptions | None = None,
    now: float | None = None,
    budget: int = DEFAULT_BUDGET,
) -> CreatedGame:
    """Validate a scenario, set the game up and issue one token per seat (shown once).

    A scenario over the size ``budget`` (``app.service.budget``) is refused before it is set
    up. Also draws the game's secret dice seed (publishing only its SHA-256 commitment), stores
    the match options and the initial state (where audits and rollbacks start) and, for a
    timed game, starts the clock of the side expected to act first.
    """
    try:
        ruleset = registry.get(ruleset_id)
    except registry.UnknownRuleset:
        raise InvalidInput(
            f"no ruleset {ruleset_id!r}",
            [FieldError("/ruleset", f"unknown ruleset {ruleset_id!r}", "ruleset.unknown")],
            code="ruleset.unknown",
        ) from None

    size = check_document(scenario, budget)
    _storable({"scenario": scenario, "options": options or {}}, code="scenario.invalid")
    errors: list[FieldError] = []
    parsed_scenario: BaseModel | None = None
    parsed_options: Any = None
    try:
        parsed_scenario = ruleset.parse_scenario(scenario)
    except ValidationError as exc:
        errors += field_errors(exc, ["scenario"])
    try:
        parsed_options = ruleset.parse_options(dict(options or {}))
    except ValidationError as exc:
        errors += field_errors(exc, ["options"])
    match_options = mt.MatchOptions()
    try:
        if isinstance(match, mt.MatchOptions):
            match_options = match
        elif match is not None:
            match_options = mt.MatchOptions.model_validate(dict(match))
    except ValidationError as exc:
        errors += field_errors(exc, ["match"])
    if errors or parsed_scenario is None:
        raise InvalidInput("the scenario or options are invalid", errors, code="scenario.invalid")
    check_generated(ruleset, parsed_scenario, size, budget)

    try:
        with _guard("scenario", ["scenario"]):
            board, state = ruleset.setup(parsed_scenario, parsed_options)
            sides = ruleset.sides(board)
    except RulesRejected as exc:
        cause = exc.__cause__
        if isinstance(cause, InvalidScenario):
            raise InvalidInput(
                str(cause) or "the scenario is inconsistent",
                rules_errors(cause.errors, ["scenario"])
                or [FieldError("/scenario", str(cause), cause.code)],
                code="scenario.invalid",
            ) from cause
        raise InvalidInput(
            exc.detail, [FieldError("/scenario", exc.detail, exc.code)], code="scenario.invalid"
        ) from exc
    if UMPIRE in sides.names or len(set(sides.names)) != len(sides.names) or not sides.names:
        raise InvalidInput(
            "the sides must be distinct and none may be called 'umpire'",
            [FieldError("/scenario", f"sides {list(sides.names)} are not valid seats")],
            code="scenario.invalid",
        )

    board_json = board.model_dump(mode="json")
    board_canonical = canonical_json(board_json)
    board_bytes = len(board_canonical)
    with _guard("scenario", ["scenario"]):
        first = mt.expected_side(mt.where(ruleset, board, state), sides.names, None, sides.names[0])
    seed, commitment = mt.new_seed()
    clock_json = mt.start_clock(match_options, sides.names, first, _clock_now(now))
    state_json = state.model_dump(mode="json")
    _storable({"board": board_json, "state": state_json}, code="scenario.invalid")
    created = _now()
    scenario_row = ScenarioRow(
        id=str(uuid.uuid4()),
        ruleset_id=ruleset.id,
        ruleset_version=ruleset.version,
        digest=hashlib.sha256(board_canonical).hexdigest(),
        scenario=parsed_scenario.model_dump(mode="json"),
        board=board_json,
        created_at=created,
    )
    game = GameRow(
        id=str(uuid.uuid4()),
        ruleset_id=ruleset.id,
        ruleset_version=ruleset.version,
        scenario_id=scenario_row.id,
        options=parsed_options.model_dump(mode="json"),
        state=state_json,
        version=INITIAL_VERSION,
        status="active",
        public=public,
        created_at=created,
        updated_at=created,
        dice_seed=seed,
        dice_commitment=commitment,
        dice_counter=0,
        seed_revealed=False,
        match=match_options.model_dump(mode="json"),
        clock=clock_json,
        initial_state=state_json,
    )
    tokens = {name: new_token() for name in (*sides.names, UMPIRE)}
    seats = [
        SeatRow(game_id=game.id, seat=name, token_hash=hash_token(token), created_at=created)
        for name, token in tokens.items()
    ]
    with uow.begin(write=True):
        uow.games.add(scenario_row, game, seats)
        uow.commit()
    if boards is not None:
        boards.put((ruleset.id, ruleset.version, scenario_row.digest), board, board_bytes)
    return CreatedGame(
        id=game.id,
        ruleset=ruleset.id,
        ruleset_version=ruleset.version,
        version=game.version,
        public=public,
        seats=tokens,
    )


def get_game(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str | None,
    boards: BoardCache,
    now: float | None = None,
) -> GameView:
    """The game as the bearer's seat may see it (anonymous: the public view), with its
    position in the sequence of play, its clock as of ``now`` and its dice commitment."""
    return GameView.model_validate_json(
        read_game(uow, game_id, token=token, boards=boards, now=now).body
    )


def read_game(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str | None,
    boards: BoardCache,
    now: float | None = None,
) -> GameJson:
    """:func:`get_game` as the JSON bytes of its :class:`GameView`, in one read transaction.

    Everything in the view but the clock is a function of (game, version, seat) -- the game
    row changes only with its version -- so its JSON is made once per (game, version, seat)
    and kept (:attr:`BoardCache.views`); a request adds only the clock as of ``now``. The
    version comes from the database in the same query as the token's seat, so the cache is
    safe with several processes."""
    now = _clock_now(now)
    with reading(uow, game_id, token=token, boards=boards, now=now) as (game, seat):
        key = (game.row.id, game.row.version, seat)
        head = boards.views.get(key, lambda: _view_head(game, seat, now))
        clock = mt.clock_view(game.row, now)
        tail = b"null" if clock is None else clock.model_dump_json().encode()
        return GameJson(version=game.row.version, body=head + b',"clock":' + tail + b"}")


def _view_head(game: Game, seat: str | None, now: float) -> tuple[bytes, int]:
    """The JSON of the game view without its clock and closing brace, and its size."""
    head = _game_view(game, seat, now).model_dump_json(exclude={"clock"}).encode()[:-1]
    return head, len(head)


def get_scenario(uow: AbstractUnitOfWork, game_id: str, *, token: str | None) -> ScenarioView:
    """The game's immutable scenario and board."""
    with uow.begin():
        row, board_digest = _find(uow, game_id)
        _reader(uow, row, token)
        stored = uow.games.scenario(row.scenario_id)
        return ScenarioView(
            game=row.id,
            ruleset=row.ruleset_id,
            ruleset_version=row.ruleset_version,
            digest=board_digest,
            scenario=stored.scenario,
            board=stored.board,
        )


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
    future roll can be learnt from a dry run.
    """
    _storable(action, code="action.invalid")
    with reading(uow, game_id, token=token, boards=boards, now=_clock_now(now)) as (game, _):
        parsed = _parse_action(game.ruleset, action)
        sizes = _dice_needed(game, game.state, parsed)
        with _guard("action"):
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
    _storable(action, code="action.invalid")
    seed = mt.parse_client_seed(client_seed)
    extras: dict[str, Any] = {}
    if seed:
        extras["client_seed"] = seed
    if entered_dice is not None:
        extras["dice"] = list(entered_dice)

    def body(w: Write) -> ActionOutcome:
        uow, game, seat, if_match, now = w.uow, w.game, w.seat, w.if_match, w.now
        request_digest = w.request_digest
        _require_active(game.row)

        parsed = _parse_action(game.ruleset, action)
        with _guard("action"):
            owner = game.ruleset.actor_side(game.board, game.state, parsed)
        if owner == UMPIRE and seat != UMPIRE:
            raise Forbidden("only the umpire may submit this action", side=owner, seat=seat)
        if owner is not None and seat not in (owner, UMPIRE):
            raise Forbidden(f"this action belongs to {owner!r}", side=owner, seat=seat)
        match = mt.options_of(game.row)
        turn = _turn(game, game.state)
        if turn is not None and match.enforce_sequence and not mt.may_act(turn, seat, owner):
            raise _out_of_sequence(turn, seat, owner)

        sizes = _dice_needed(game, game.state, parsed)
        if sizes:
            # Legality first, with no dice: an illegal action must not roll (nor reveal) any.
            try:
                with _guard("action"):
                    before: Ruling | None = game.ruleset.adjudicate(
                        game.board, game.state, parsed, game.options, ()
                    )
            except RulesRejected:
                before = None  # this ruleset cannot judge without its dice
            if before is not None and not before.legal:
                raise IllegalAction(before, version=game.row.version)
        rolls = mt.roll(game.row, sizes, seat=seat, client_seed=seed, entered=entered_dice)
        dice = tuple(r.value for r in rolls)
        with _guard("action"):
            ruling: Ruling = game.ruleset.adjudicate(
                game.board, game.state, parsed, game.options, dice
            )
        if not ruling.legal:
            if any(r.entered_by is None for r in rolls):
                _consume_dice(uow, game, seat, parsed, ruling, rolls, if_match, now)
            raise IllegalAction(ruling, version=game.row.version)

        _require_current(game.row, if_match)
        with _guard("action"):
            new_state = game.ruleset.apply(game.board, game.state, parsed, ruling)
            over = game.ruleset.is_over(game.board, new_state)
        actor = mt.acting_side(seat, owner)
        extra: dict[str, Any] = {"dice_counter": game.row.dice_counter + len(rolls)}
        if over:
            extra["clock"] = mt.clock_stopped(game.row, now)
        else:
            clock_state = mt.clock_state(game.row)
            running = mt.expected_side(
                _turn(game, new_state),
                game.ruleset.sides(game.board).names,
                actor,
                clock_state.running if clock_state else None,
            )
            extra["clock"] = mt.clock_after(game.row, actor, now, running)
        with _guard("action"):
            private = game.ruleset.private_to(game.board, game.state, parsed)
        visible_to = None if private is None else sorted({*private, seat, UMPIRE})
        outcome = _record(
            uow,
            game,
            visible_to=visible_to,
            seat=seat,
            kind=str(getattr(parsed, "kind", type(parsed).__name__)),
            new_state=new_state,
            ruling=ruling,
            now=now,
            action=parsed.model_dump(mode="json"),
            rolls=rolls,
            status="finished" if over else None,
            extra=extra,
            idempotency_key=idempotency_key,
            request_digest=request_digest,
        )
        return outcome

    return run_write(
        WriteRequest(uow, game_id, token, if_match, idempotency_key, boards, now),
        what="submitting an action",
        request_digest=lambda seat: _request_digest(seat, action, extras),
        body=body,
        replay=_replay,
    )


def _request_digest(seat: str, action: Any, extras: Mapping[str, Any] | None = None) -> str:
    """What an Idempotency-Key is bound to: the seat, the body and any dice headers."""
    if extras:
        return digest({"seat": seat, "action": action, **extras})
    return digest({"seat": seat, "action": action})


def _replay(prior: EventRow, request_digest: str) -> ActionOutcome:
    if prior.request_digest != request_digest or prior.response is None:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was used for another request", event=prior.seq
        )
    return ActionOutcome(
        status=ACCEPTED,
        body=prior.response,
        event=prior.seq,
        version=prior.version,
        replayed=True,
    )


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
    _require_current(game.row, if_match)
    kind = str(getattr(parsed, "kind", type(parsed).__name__))
    with _guard("action"):
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
    outcome = _record(
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


def _event_view(row: EventRow, seat: str | None = None) -> EventView:
    """An event as ``seat`` (None = anonymous) may see it; hidden events are redacted, never
    dropped, so sequence numbers stay gap-free for every reader (see EventView)."""
    if not mt.event_visible(row, seat):  # the umpire reads every event
        return EventView(
            seq=row.seq,
            seat=None,
            kind="redacted",
            action={},
            ruling=None,
            dice=[],
            version=row.version,
            created_at=_aware(row.created_at),
            redacted=True,
        )
    return EventView(
        seq=row.seq,
        seat=row.seat,
        kind=row.kind,
        action=row.action,
        ruling=Ruling.model_validate(row.ruling),
        dice=list(row.dice),
        version=row.version,
        created_at=_aware(row.created_at),
        payload=row.payload,
        visible_to=row.visible_to,
    )


def list_events(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str | None,
    after: int = 0,
    limit: int = 50,
) -> EventPage:
    """A page of the event log as the bearer's seat may see it, oldest first, after sequence
    number ``after``."""
    with uow.begin():
        found = _find(uow, game_id)
        seat = _reader(uow, found[0], token)
        return _event_page(uow, game_id, seat, after=after, limit=limit)


def _event_page(
    uow: AbstractUnitOfWork, game_id: str, seat: str | None, *, after: int, limit: int
) -> EventPage:
    """Inside an open transaction: one page of events filtered for ``seat``."""
    rows = uow.games.events(game_id, after=after, limit=limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    return EventPage(
        items=[_event_view(r, seat) for r in rows],
        next=rows[-1].seq if more and rows else None,
    )


def get_event(uow: AbstractUnitOfWork, game_id: str, seq: int, *, token: str | None) -> EventView:
    """One event of the log, as the bearer's seat may see it (redacted if hidden from it)."""
    with uow.begin():
        found = _find(uow, game_id)
        seat = _reader(uow, found[0], token)
        row = uow.games.event(game_id, seq)
        if row is None:
            raise EventNotFound(f"game {game_id!r} has no event {seq}", seq=seq)
        return _event_view(row, seat)


def run_query(
    uow: AbstractUnitOfWork,
    game_id: str,
    name: str,
    params: Mapping[str, Any],
    *,
    token: str | None,
    boards: BoardCache,
    now: float | None = None,
) -> QueryResult:
    """Run one of the ruleset's named read-only queries with query-string parameters."""
    with reading(uow, game_id, token=token, boards=boards, now=_clock_now(now)) as (game, _):
        spec = game.ruleset.queries().get(name)
        if spec is None:
            raise QueryNotFound(
                f"ruleset {game.ruleset.id!r} has no query {name!r}",
                known=sorted(game.ruleset.queries()),
            )
        try:
            parsed = spec.params.model_validate(dict(params))
        except ValidationError as exc:
            raise InvalidInput(
                f"invalid parameters for query {name!r}",
                field_errors(exc, source="query"),
                code="query.invalid_params",
            ) from exc
        with _guard("query"):
            result = spec.run(game.board, game.state, game.options, parsed)
        return QueryResult(query=name, version=game.row.version, result=result)
