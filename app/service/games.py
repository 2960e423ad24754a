"""Games: create one from a scenario, read it and its scenario.

The other use cases each have their module: ``actions`` (dry run, submit), ``events`` (the
log), ``queries`` (a ruleset's named queries), ``flow`` (match-flow commands), ``sealed``
(sealed orders); every write runs in the one frame of ``pipeline``. Every call into a ruleset
goes through :func:`app.service.pipeline.guard`, so client input that a ruleset rejects deep
inside (a pydantic ValidationError, a RulesError, a malformed hex id -- a ValueError) becomes
a client error, never a server error.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from app.db.models import GameRow, ScenarioRow, SeatRow
from app.db.uow import AbstractUnitOfWork
from app.rules import registry
from app.rules.base import UMPIRE, InvalidScenario
from app.service import match as mt
from app.service.boards import BoardCache, canonical_json
from app.service.budget import DEFAULT_BUDGET, check_document, check_generated
from app.service.errors import (
    Conflict,
    FieldError,
    InvalidInput,
    PositionNotFound,
    RulesRejected,
    field_errors,
    rules_errors,
)
from app.service.jsonsafe import UNENCODABLE
from app.service.pipeline import (
    INITIAL_VERSION,
    Game,
    aware_utc,
    checking_writes,
    clock_now,
    find_game,
    guard,
    load_game_as,
    reader_of,
    reader_seat,
    reading,
    require_storable,
    state_view,
    turn_of,
    utc_now,
    view_from_text,
)
from app.service.results import (
    CreatedGame,
    GameAtVersion,
    GameJson,
    GameView,
    ScenarioView,
    SideInfo,
)
from app.service.statetext import state_text
from app.service.tokens import hash_token, new_token


def _game_view(
    game: Game, seat: str | None, now: float | None = None, state: dict[str, Any] | None = None
) -> GameView:
    """The game as ``seat`` sees it; ``state``: the state's view given (else made)."""
    sides = game.ruleset.sides(game.board)
    return GameView(
        id=game.row.id,
        ruleset=game.row.ruleset_id,
        ruleset_version=game.row.ruleset_version,
        ruleset_running_version=game.ruleset.version,
        ruleset_created_version=game.row.created_version,
        upgrade_available=game.row.status == "active"
        and game.row.ruleset_version != game.ruleset.version,
        version=game.row.version,
        status=game.row.status,
        public=game.row.public,
        sides=[SideInfo(name=n, label=sides.labels.get(n, n)) for n in sides.names],
        seat=seat,
        state=state_view(game, game.state, seat) if state is None else state,
        created_at=aware_utc(game.row.created_at),
        updated_at=aware_utc(game.row.updated_at),
        match=mt.options_of(game.row).model_dump(mode="json"),
        options=dict(game.row.options or {}),
        position=mt.position_view(turn_of(game, game.state)),
        clock=mt.clock_view(game.row, clock_now(now)),
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
    require_storable({"scenario": scenario, "options": options or {}}, code="scenario.invalid")
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
        with guard("scenario", ["scenario"]):
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
    with guard("scenario", ["scenario"]):
        first = mt.expected_side(mt.where(ruleset, board, state), sides.names, None, sides.names[0])
    seed, commitment = mt.new_seed()
    clock_json = mt.start_clock(match_options, sides.names, first, clock_now(now))
    state_json = state.model_dump(mode="json")
    require_storable({"board": board_json, "state": state_json}, code="scenario.invalid")
    created = utc_now()
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
        created_version=ruleset.version,
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
    now = clock_now(now)
    with reading(uow, game_id, token=token, boards=boards, now=now) as (game, seat):
        # the running ruleset version is part of the view (upgrade_available)
        key = (game.row.id, game.row.version, seat, game.ruleset.version)
        head = boards.views.get(key, lambda: _view_head(game, seat, now))
        clock = mt.clock_view(game.row, now)
        tail = b"null" if clock is None else clock.model_dump_json().encode()
        return GameJson(version=game.row.version, body=head + b',"clock":' + tail + b"}")


def _view_head(game: Game, seat: str | None, now: float) -> tuple[bytes, int]:
    """The JSON of the game view without its clock and closing brace, and its size.

    Where the ruleset hides nothing (its ``view`` is the state's dump), the state's JSON text
    is put in as it is -- kept with the state since the write that made it
    (:mod:`app.service.statetext`), or encoded from the model -- instead of dumping the state
    to Python objects and encoding them again; with ``REFEREE_CHECK_KEPT_STATE`` (the test
    suite) each such view is compared with the long way's."""
    head = _plain_view_head(game, seat, now)
    if head is None or checking_writes():
        slow = _game_view(game, seat, now).model_dump_json(exclude={"clock"}).encode()[:-1]
        if head is not None and head != slow:
            raise AssertionError(f"the game view put together differs:\n{head!r}\n{slow!r}")
        head = slow
    return head, len(head)


_EMPTY_STATE = b'"state":{}'


def _plain_view_head(game: Game, seat: str | None, now: float) -> bytes | None:
    """:func:`_view_head`'s JSON with the state's text put in, or None where it cannot be:
    a ruleset that hides something, a state that is not a model or cannot be encoded."""
    if not view_from_text(game.ruleset, game.state):
        return None
    try:
        text = state_text(game.state)
    except UNENCODABLE:
        return None
    if b"NaN" in text or b"Infinity" in text:  # the view's encoder writes those as null
        return None
    head = _game_view(game, seat, now, state={}).model_dump_json(exclude={"clock"}).encode()
    return put_state(head, text)


def put_state(view: bytes, text: bytes) -> bytes | None:
    """``view`` (a game view's JSON whose state is ``{}``) with the state's ``text`` in its
    place and without the closing brace; None when ``"state":{}`` is not found exactly once
    (another field holding such a key)."""
    at = view.find(_EMPTY_STATE)
    if at < 0 or view.find(_EMPTY_STATE, at + 1) >= 0:
        return None
    cut = at + len(_EMPTY_STATE) - 2
    return view[:cut] + text + view[cut + 2 : -1]


def get_scenario(uow: AbstractUnitOfWork, game_id: str, *, token: str | None) -> ScenarioView:
    """The game's immutable scenario and board."""
    with uow.begin():
        row, board_digest = find_game(uow, game_id)
        reader_seat(uow, row, token)
        stored = uow.games.scenario(row.scenario_id)
        return ScenarioView(
            game=row.id,
            ruleset=row.ruleset_id,
            ruleset_version=row.ruleset_version,
            digest=board_digest,
            scenario=stored.scenario,
            board=stored.board,
        )


def get_position(
    uow: AbstractUnitOfWork,
    game_id: str,
    version: int,
    *,
    token: str | None,
    boards: BoardCache,
) -> GameAtVersion:
    """The game as it stood at ``version`` (1 = as set up; version ``v`` is the state event
    ``v - 1`` produced), as the bearer's seat may see it: the stored snapshot
    (``games.initial_state``, or the state the event left: its snapshot, or rebuilt from the
    nearest snapshot and the deltas after it) through the ruleset's per-seat ``view``,
    the same view ``GET /games/{id}`` gave that seat at that version -- never the raw state.
    404 ``position.not_found`` for a version the game has not reached; 409
    ``position.unavailable`` when the snapshot of that version was not kept."""
    with uow.begin():
        game, who = load_game_as(uow, game_id, boards, token)
        seat = reader_of(game.row, who)
        current = game.row.version
        if version > current:
            raise PositionNotFound(
                f"game {game_id!r} is at version {current}; it has no version {version}",
                version=version,
                current_version=current,
            )
        if version == current:
            state = game.state
        else:
            stored = uow.games.state_after(
                game_id, version - INITIAL_VERSION, game.row.initial_state
            )
            if stored is None:
                raise Conflict(
                    f"the state of version {version} was not kept",
                    code="position.unavailable",
                )
            with guard("state"):
                state = game.ruleset.load_state(stored)
        return GameAtVersion(
            game=game.row.id,
            version=version,
            event=version - INITIAL_VERSION if version > INITIAL_VERSION else None,
            current_version=current,
            seat=seat,
            state=state_view(game, state, seat),
            position=mt.position_view(turn_of(game, state)),
        )
