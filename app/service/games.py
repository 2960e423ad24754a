"""The use cases: one plain function each, taking a unit of work and a board cache.

Every call into a ruleset goes through :func:`_guard`, so client input that a ruleset rejects
deep inside (a pydantic ValidationError, a RulesError, a malformed hex id -- a ValueError)
becomes a client error, never a server error.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import IntegrityError

from app.db.models import EventRow, GameRow, ScenarioRow, SeatRow
from app.db.uow import AbstractUnitOfWork
from app.rules import registry
from app.rules.base import UMPIRE, InvalidScenario, RulesError, Ruleset
from app.rules.ruling import Ruling
from app.service.boards import BoardCache, digest
from app.service.errors import (
    EventNotFound,
    FieldError,
    Forbidden,
    IdempotencyKeyReused,
    IllegalAction,
    InvalidInput,
    NotFound,
    PreconditionFailed,
    PreconditionRequired,
    QueryNotFound,
    RulesetUnavailable,
    RulesRejected,
    Unauthenticated,
    field_errors,
    pointer,
    rules_errors,
)
from app.service.jsonsafe import unsafe_values
from app.service.results import (
    ActionOutcome,
    ActionResult,
    CreatedGame,
    DryRun,
    EventPage,
    EventView,
    GameView,
    QueryResult,
    ScenarioView,
    SideInfo,
)
from app.service.tokens import hash_token, new_token, same_hash

AnyRuleset = Ruleset[Any, Any, Any, Any]

INITIAL_VERSION = 1
"""A new game's version; each accepted action adds one, so event ``seq`` = version - 1."""

ACCEPTED = 201
"""The outcome status of an accepted action (stored with the event for replays)."""


@dataclass(frozen=True)
class IfMatch:
    """A parsed ``If-Match`` precondition: ``*`` or a set of game versions."""

    versions: frozenset[int] = frozenset()
    any: bool = False

    def matches(self, version: int) -> bool:
        return self.any or version in self.versions


@dataclass
class _Game:
    row: GameRow
    ruleset: AnyRuleset
    board: Any
    state: Any
    options: Any


# -- helpers ------------------------------------------------------------------------------


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    """SQLite hands back naive datetimes; every timestamp here is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


@contextmanager
def _guard(stage: str, prefix: Sequence[Any] = ()) -> Iterator[None]:
    """Turn a ruleset's complaint about client input into a typed client error."""
    try:
        yield
    except ValidationError as exc:
        raise InvalidInput(f"invalid {stage}", field_errors(exc, prefix)) from exc
    except RulesError as exc:
        raise RulesRejected(str(exc) or exc.code, code=exc.code) from exc
    except (ValueError, LookupError) as exc:
        raise RulesRejected(
            f"the ruleset could not judge this {stage}: {exc}", code="rules.unjudgeable"
        ) from exc


def _valid_id(game_id: str) -> bool:
    try:
        return str(uuid.UUID(game_id)) == game_id
    except ValueError:
        return False


def _find(uow: AbstractUnitOfWork, game_id: str) -> tuple[GameRow, str]:
    """The game row and board digest, or :class:`NotFound` (ids are checked before querying)."""
    found = uow.games.get(game_id) if _valid_id(game_id) else None
    if found is None:
        raise NotFound(f"no game {game_id!r}", game=game_id)
    return found


def _storable(data: Any, prefix: tuple[Any, ...] = (), code: str = "request.invalid") -> None:
    """Refuse values no database could store (NUL, lone surrogates, NaN) before anything."""
    errors = unsafe_values(data, prefix)
    if errors:
        raise InvalidInput("the document holds values that cannot be stored", errors, code=code)


def _load(uow: AbstractUnitOfWork, game_id: str, boards: BoardCache) -> _Game:
    row, board_digest = _find(uow, game_id)
    try:
        ruleset = registry.get(row.ruleset_id)
    except registry.UnknownRuleset:
        raise RulesetUnavailable(
            f"this server has no ruleset {row.ruleset_id!r}", ruleset=row.ruleset_id
        ) from None
    key = (ruleset.id, row.ruleset_version, board_digest)
    board = boards.get(key, lambda: ruleset.load_board(uow.games.board_json(row.scenario_id)))
    return _Game(
        row=row,
        ruleset=ruleset,
        board=board,
        state=ruleset.load_state(row.state),
        options=ruleset.parse_options(row.options),
    )


def _seat(uow: AbstractUnitOfWork, game: GameRow, token: str | None) -> str | None:
    """The seat a bearer token holds at this game; None without a token; 401 if wrong."""
    if token is None:
        return None
    presented = hash_token(token)
    seat = uow.games.seat_by_token_hash(game.id, presented)
    if seat is None or not same_hash(seat.token_hash, presented):
        raise Unauthenticated("the token is not a seat of this game")
    return seat.seat


def _reader(uow: AbstractUnitOfWork, game: GameRow, token: str | None) -> str | None:
    """The reader's seat; a private game needs one."""
    seat = _seat(uow, game, token)
    if seat is None and not game.public:
        raise Unauthenticated("this game is private: present a seat token", code="auth.required")
    return seat


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


def _roll_dice(ruleset: AnyRuleset, board: Any, state: Any, action: Any) -> tuple[int, ...]:
    """Roll the dice an action needs, if its ruleset says (optional ``dice_needed`` hook).

    A ruleset may define ``dice_needed(board, state, action) -> sequence of die sizes``;
    without it no dice are rolled. Rolled values are stored with the event.
    """
    hook = getattr(ruleset, "dice_needed", None)
    if hook is None:
        return ()
    with _guard("action"):
        sizes = [int(s) for s in hook(board, state, action)]
    return tuple(secrets.randbelow(size) + 1 for size in sizes if size > 0)


def _view(game: _Game, state: Any, seat: str | None) -> dict[str, Any]:
    with _guard("state"):
        return dict(game.ruleset.view(game.board, state, seat))


def _game_view(game: _Game, seat: str | None) -> GameView:
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
) -> CreatedGame:
    """Validate a scenario, set the game up and issue one token per seat (shown once)."""
    try:
        ruleset = registry.get(ruleset_id)
    except registry.UnknownRuleset:
        raise InvalidInput(
            f"no ruleset {ruleset_id!r}",
            [FieldError("/ruleset", f"unknown ruleset {ruleset_id!r}", "ruleset.unknown")],
            code="ruleset.unknown",
        ) from None

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
    if errors or parsed_scenario is None:
        raise InvalidInput("the scenario or options are invalid", errors, code="scenario.invalid")

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
    now = _now()
    scenario_row = ScenarioRow(
        id=str(uuid.uuid4()),
        ruleset_id=ruleset.id,
        ruleset_version=ruleset.version,
        digest=digest(board_json),
        scenario=parsed_scenario.model_dump(mode="json"),
        board=board_json,
        created_at=now,
    )
    game = GameRow(
        id=str(uuid.uuid4()),
        ruleset_id=ruleset.id,
        ruleset_version=ruleset.version,
        scenario_id=scenario_row.id,
        options=parsed_options.model_dump(mode="json"),
        state=state.model_dump(mode="json"),
        version=INITIAL_VERSION,
        status="active",
        public=public,
        created_at=now,
        updated_at=now,
    )
    tokens = {name: new_token() for name in (*sides.names, UMPIRE)}
    seats = [
        SeatRow(game_id=game.id, seat=name, token_hash=hash_token(token), created_at=now)
        for name, token in tokens.items()
    ]
    with uow.begin(write=True):
        uow.games.add(scenario_row, game, seats)
        uow.commit()
    if boards is not None:
        boards.put((ruleset.id, ruleset.version, scenario_row.digest), board)
    return CreatedGame(
        id=game.id,
        ruleset=ruleset.id,
        ruleset_version=ruleset.version,
        version=game.version,
        public=public,
        seats=tokens,
    )


def get_game(
    uow: AbstractUnitOfWork, game_id: str, *, token: str | None, boards: BoardCache
) -> GameView:
    """The game as the bearer's seat may see it (anonymous: the public view)."""
    with uow.begin():
        game = _load(uow, game_id, boards)
        seat = _reader(uow, game.row, token)
        return _game_view(game, seat)


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
) -> DryRun:
    """Judge an action against the current state; write nothing.

    Anyone who may read the game may ask, whichever side owns the action.
    """
    _storable(action, code="action.invalid")
    with uow.begin():
        game = _load(uow, game_id, boards)
        _reader(uow, game.row, token)
        parsed = _parse_action(game.ruleset, action)
        dice = _roll_dice(game.ruleset, game.board, game.state, parsed)
        with _guard("action"):
            ruling = game.ruleset.adjudicate(game.board, game.state, parsed, game.options, dice)
        return DryRun(version=game.row.version, ruling=ruling)


def submit_action(
    uow: AbstractUnitOfWork,
    game_id: str,
    action: Any,
    *,
    token: str | None,
    if_match: IfMatch | None,
    idempotency_key: str | None = None,
    boards: BoardCache,
) -> ActionOutcome:
    """Judge an action and, if legal, apply it and append it to the log.

    Order of checks: token present -> game exists -> token is a seat -> If-Match present ->
    idempotent replay -> action well-formed -> seat owns the action -> ruling legal ->
    version still current (one conditional UPDATE). Nothing is written unless all pass.
    """
    _storable(action, code="action.invalid")
    if token is None:
        raise Unauthenticated("submitting an action needs a seat token", code="auth.required")
    try:
        return _submit(uow, game_id, action, token, if_match, idempotency_key, boards)
    except (PreconditionFailed, IntegrityError):
        # A concurrent retry with the same key may have won the race: replay its outcome.
        if idempotency_key is not None:
            with uow.begin():
                seat = _seat(uow, _find(uow, game_id)[0], token)
                prior = uow.games.event_by_key(game_id, idempotency_key)
                if prior is not None and seat is not None:
                    return _replay(prior, _request_digest(seat, action))
        raise


def _request_digest(seat: str, action: Any) -> str:
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


def _submit(
    uow: AbstractUnitOfWork,
    game_id: str,
    action: Any,
    token: str,
    if_match: IfMatch | None,
    idempotency_key: str | None,
    boards: BoardCache,
) -> ActionOutcome:
    with uow.begin(write=True):
        game = _load(uow, game_id, boards)
        seat = _seat(uow, game.row, token)
        assert seat is not None
        if if_match is None:
            raise PreconditionRequired(
                "send If-Match with the ETag of GET /games/{id}", version=game.row.version
            )
        request_digest = _request_digest(seat, action)
        if idempotency_key is not None:
            prior = uow.games.event_by_key(game.row.id, idempotency_key)
            if prior is not None:
                return _replay(prior, request_digest)

        parsed = _parse_action(game.ruleset, action)
        with _guard("action"):
            owner = game.ruleset.actor_side(game.board, game.state, parsed)
        if owner == UMPIRE and seat != UMPIRE:
            raise Forbidden("only the umpire may submit this action", side=owner, seat=seat)
        if owner is not None and seat not in (owner, UMPIRE):
            raise Forbidden(f"this action belongs to {owner!r}", side=owner, seat=seat)

        dice = _roll_dice(game.ruleset, game.board, game.state, parsed)
        with _guard("action"):
            ruling: Ruling = game.ruleset.adjudicate(
                game.board, game.state, parsed, game.options, dice
            )
        if not ruling.legal:
            raise IllegalAction(ruling, version=game.row.version)

        expected = game.row.version
        if not if_match.matches(expected):
            raise PreconditionFailed(
                f"the game is at version {expected}; reload it", version=expected
            )
        with _guard("action"):
            new_state = game.ruleset.apply(game.board, game.state, parsed, ruling)
            state_json = new_state.model_dump(mode="json")
        if not uow.games.advance(
            game.row.id, expected_version=expected, state=state_json, status=game.row.status
        ):
            raise PreconditionFailed("another action was accepted first; reload the game")

        seq = expected - INITIAL_VERSION + 1
        result = ActionResult(
            event=seq,
            version=expected + 1,
            ruling=ruling,
            state=_view(game, new_state, seat),
        )
        body = result.model_dump_json()
        uow.games.append_event(
            EventRow(
                game_id=game.row.id,
                seq=seq,
                seat=seat,
                kind=str(getattr(parsed, "kind", type(parsed).__name__)),
                action=parsed.model_dump(mode="json"),
                ruling=ruling.model_dump(mode="json"),
                dice=list(dice),
                version=expected + 1,
                idempotency_key=idempotency_key,
                request_digest=request_digest,
                response=body,
                created_at=_now(),
            )
        )
        uow.commit()
        return ActionOutcome(status=ACCEPTED, body=body, event=seq, version=expected + 1)


def _event_view(row: EventRow) -> EventView:
    return EventView(
        seq=row.seq,
        seat=row.seat,
        kind=row.kind,
        action=row.action,
        ruling=Ruling.model_validate(row.ruling),
        dice=list(row.dice),
        version=row.version,
        created_at=_aware(row.created_at),
    )


def list_events(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str | None,
    after: int = 0,
    limit: int = 50,
) -> EventPage:
    """A page of the event log, oldest first, after sequence number ``after``."""
    with uow.begin():
        found = _find(uow, game_id)
        _reader(uow, found[0], token)
        rows = uow.games.events(game_id, after=after, limit=limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        return EventPage(
            items=[_event_view(r) for r in rows],
            next=rows[-1].seq if more and rows else None,
        )


def get_event(uow: AbstractUnitOfWork, game_id: str, seq: int, *, token: str | None) -> EventView:
    """One event of the log."""
    with uow.begin():
        found = _find(uow, game_id)
        _reader(uow, found[0], token)
        row = uow.games.event(game_id, seq)
        if row is None:
            raise EventNotFound(f"game {game_id!r} has no event {seq}", seq=seq)
        return _event_view(row)


def run_query(
    uow: AbstractUnitOfWork,
    game_id: str,
    name: str,
    params: Mapping[str, Any],
    *,
    token: str | None,
    boards: BoardCache,
) -> QueryResult:
    """Run one of the ruleset's named read-only queries with query-string parameters."""
    with uow.begin():
        game = _load(uow, game_id, boards)
        _reader(uow, game.row, token)
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
