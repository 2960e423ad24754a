"""The write pipeline: the one frame every write of a game runs in.

Every write -- an action (``actions.submit_action``), a match-flow command (``flow``: phases,
finish, rollback, takeback, seed reveal), a sealed order (``sealed``) -- goes through
:func:`run_write`, in this order: token present (401) -> in one write transaction: game
exists and token is a seat (404, 401: one query, which also reads whether the game has
webhooks) -> ``If-Match`` present (428) -> the game's clock settled (only when a side's time
ran out unrecorded: the expiry is written in its own transaction first, then the write starts
over) -> idempotent replay of an earlier request with the same ``Idempotency-Key`` -> ``If-Match``
still current (412 before anything is judged; a finished game is left to the write's own
409) -> the game pinned to the ruleset version this process runs (409
``ruleset.upgrade_required``, also before anything is judged) -> the write's own checks and
ruling -> the version still current (one conditional
UPDATE, 412, for a write that raced in meanwhile) -> commit.

The replay race is handled here once: when a write loses a race (412 from the conditional
UPDATE, or the unique index of the Idempotency-Key), a concurrent retry with the same key may
have won it, so the stored answer of that one is returned; with ``If-Match: *`` (the client
accepts any version) a lost race is retried on the new version instead of answering 412.
:func:`append_event` is the only place a game's version moves and an event is appended; the
documents it stores are checked storable and bounded first (``jsonsafe``).
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import IntegrityError

from app.db import deltas
from app.db.engine import json_reuse
from app.db.models import INITIAL_VERSION as INITIAL_VERSION
from app.db.models import EventRow, GameFields, NewEvent
from app.db.repository import GameRecord
from app.db.uow import AbstractUnitOfWork
from app.match import clock
from app.rules import registry
from app.rules.base import RulesError, Ruleset
from app.rules.phases import allows
from app.rules.ruling import Ruling
from app.runtime import env
from app.service import match as mt
from app.service import notify
from app.service.boards import BoardCache, StateKey, json_size
from app.service.errors import (
    Conflict,
    IdempotencyKeyReused,
    InvalidInput,
    NotFound,
    OutOfSequence,
    PreconditionFailed,
    PreconditionRequired,
    RulesetUnavailable,
    RulesRejected,
    Unauthenticated,
    field_errors,
)
from app.service.identity import Identity, identify, identity_of, require_seat
from app.service.jsonsafe import (
    UNENCODABLE,
    StoredText,
    checked_state_text,
    checked_text,
    fine,
    json_text,
    unsafe_values,
)
from app.service.policies import cite
from app.service.results import ActionChange, ActionOutcome, ActionResult
from app.service.statetext import aliased, state_text
from app.service.tokens import hash_token

AnyRuleset = Ruleset[Any, Any, Any, Any]


ACCEPTED = 201
"""The outcome status of an accepted action (stored with the event for replays)."""

SYSTEM_SEAT = "system"
"""The ``seat`` of events nobody submitted (a clock running out)."""

TimeSource = Callable[[], float]
_T = TypeVar("_T")


@dataclass(frozen=True)
class IfMatch:
    """A parsed ``If-Match`` precondition: ``*`` or a set of game versions."""

    versions: frozenset[int] = frozenset()
    any: bool = False

    def matches(self, version: int) -> bool:
        return self.any or version in self.versions


@dataclass
class Game:
    row: GameFields
    ruleset: AnyRuleset
    board: Any
    state: Any
    options: Any
    webhooks: bool | None = None
    """Whether the game has webhooks, when read with the row (None: not known)."""
    cache: BoardCache | None = None
    """The process's caches the game was read through (a write keeps its new state there)."""


def utc_now() -> datetime:
    return datetime.now(UTC)


def aware_utc(value: datetime) -> datetime:
    """SQLite hands back naive datetimes; every timestamp here is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class guard:
    """Turn a ruleset's complaint about client input into a typed client error: a
    ``ValidationError`` into :class:`InvalidInput` (the fields under ``prefix``), a
    :class:`RulesError` into :class:`RulesRejected` with its code, a ``ValueError`` or
    ``LookupError`` into ``rules.unjudgeable``; anything else passes. (A class, not a
    generator: a write enters three.)"""

    __slots__ = ("prefix", "stage")

    def __init__(self, stage: str, prefix: Sequence[Any] = ()) -> None:
        self.stage = stage
        self.prefix = prefix

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is None:
            return
        if isinstance(exc, ValidationError):
            raise InvalidInput(f"invalid {self.stage}", field_errors(exc, self.prefix)) from exc
        if isinstance(exc, RulesError):
            raise RulesRejected(str(exc) or exc.code, code=exc.code) from exc
        if isinstance(exc, (ValueError, LookupError)):
            raise RulesRejected(
                f"the ruleset could not judge this {self.stage}: {exc}",
                code="rules.unjudgeable",
            ) from exc


_CANONICAL_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""A UUID as ``str(uuid.UUID(...))`` writes it: lower-case hex, hyphens in 8-4-4-4-12."""


def valid_game_id(game_id: str) -> bool:
    """``str(uuid.UUID(game_id)) == game_id``: the id in the canonical form games are stored
    under (any other spelling names no game)."""
    return _CANONICAL_ID.fullmatch(game_id) is not None


def find_game(uow: AbstractUnitOfWork, game_id: str) -> tuple[GameFields, str]:
    """The game row and board digest, or :class:`NotFound` (ids are checked before querying)."""
    found = uow.games.get(game_id, lock=uow.writing) if valid_game_id(game_id) else None
    if found is None:
        raise NotFound(f"no game {game_id!r}", game=game_id)
    return found


def require_storable(
    data: Any, prefix: tuple[Any, ...] = (), code: str = "request.invalid"
) -> None:
    """Refuse values no database could store (NUL, lone surrogates, NaN) before anything."""
    errors = unsafe_values(data, prefix)
    if errors:
        raise InvalidInput("the document holds values that cannot be stored", errors, code=code)


def load_game(uow: AbstractUnitOfWork, game_id: str, boards: BoardCache) -> Game:
    row, board_digest = find_game(uow, game_id)
    return game_from_row(uow, row, board_digest, boards)


def load_game_as(
    uow: AbstractUnitOfWork, game_id: str, boards: BoardCache, token: str | None
) -> tuple[Game, Identity | None]:
    """The game (404) and who ``token`` is there (None without a token; 401 if it holds
    nothing), read in one query: the game row, its board digest and the token's seat."""
    if token is None:
        return load_game(uow, game_id, boards), None
    presented = hash_token(token)
    found = (
        uow.games.get_as(game_id, presented, lock=uow.writing) if valid_game_id(game_id) else None
    )
    if found is None:
        raise NotFound(f"no game {game_id!r}", game=game_id)
    row, board_digest, match, webhooks = found
    game = game_from_row(uow, row, board_digest, boards)
    game.webhooks = webhooks
    return game, identity_of(presented, match)


def game_from_row(
    uow: AbstractUnitOfWork, row: GameFields, board_digest: str, boards: BoardCache
) -> Game:
    """A game from its row already read (``GET /games`` reads many rows in one query)."""
    try:
        ruleset = registry.get(row.ruleset_id)
    except registry.UnknownRuleset:
        raise RulesetUnavailable(
            f"this server has no ruleset {row.ruleset_id!r}", ruleset=row.ruleset_id
        ) from None
    key = (ruleset.id, row.ruleset_version, board_digest)

    def parse() -> tuple[Any, int]:
        data = uow.games.board_json(row.scenario_id)
        return ruleset.load_board(data), json_size(data)

    board = boards.get(key, parse)
    # the state is read on a cache miss only: as its stored text where the game row holds it
    # whole (validated straight from it), else as the document rebuilt from the events'
    # deltas -- through the repository for an ORM row (``GET /games``' holdings), whose
    # ``state`` column is an older state once ``state_seq`` is set
    stored: Callable[[], dict[str, Any] | str | deltas.StoredChain]
    if isinstance(row, GameRecord):
        stored = row.stored_state
    else:
        stored = functools.partial(uow.games.stored_state, row.id, row.version)
    return Game(
        row=row,
        ruleset=ruleset,
        board=board,
        state=boards.state(
            (row.id, row.version, ruleset.id, row.ruleset_version),
            lambda: load_stored_state(ruleset, stored()),
            stored,
        ),
        options=game_options(ruleset, row),
        cache=boards,
    )


_OPTIONS: dict[tuple[AnyRuleset, str], Any] = {}
"""Ruleset options by ruleset and stored JSON text (see :func:`game_options`)."""
_OPTIONS_MOST = 256


def game_options(ruleset: AnyRuleset, row: GameFields) -> Any:
    """The game's ruleset options, validated. A row read straight on the driver hands their
    stored text on undecoded (:attr:`app.db.repository.GameRecord.options_text`): the same
    text validates to the same options, kept by it where the ruleset's options model is
    frozen (an instance shared by every game with that text cannot be changed in place), so
    a request neither decodes nor validates them again."""
    text: str | None = getattr(row, "options_text", None)
    if text is None or not ruleset.options_model.model_config.get("frozen"):
        return ruleset.parse_options(row.options)
    key = (ruleset, text)
    found = _OPTIONS.get(key)
    if found is None:
        found = ruleset.parse_options(row.options)
        if len(_OPTIONS) >= _OPTIONS_MOST:
            _OPTIONS.clear()
        _OPTIONS[key] = found
    return found


def load_stored_state(
    ruleset: AnyRuleset, stored: dict[str, Any] | str | deltas.StoredChain
) -> Any:
    """The state a cache miss read (:meth:`GameRecord.stored_state`), parsed: its text or
    document by ``Ruleset.load_state``; a snapshot's text and the deltas after it by the
    snapshot validated from its text and the deltas applied to that model
    (``deltas.apply_to_model``: only the changed entries validated from their documents),
    where the ruleset's state model allows it (``Ruleset.state_revalidates``), else by the
    document they rebuild. With ``REFEREE_CHECK_KEPT_STATE`` (the test suite) the state so
    made is compared with the document's, value for value and dumped byte for byte."""
    if not isinstance(stored, deltas.StoredChain):
        return ruleset.load_state(stored)
    made = None
    if ruleset.state_revalidates:
        try:
            made = deltas.apply_to_model(ruleset.load_state(stored.text), stored.deltas)
        except Exception:  # a stored state its model refuses: the document's way says why
            made = None
    if made is None:
        return ruleset.load_state(stored.document())
    if checking_writes():
        whole = ruleset.load_state(stored.document())
        if whole != made or whole.model_dump_json() != made.model_dump_json():
            raise AssertionError(
                f"{ruleset.id}: the state rebuilt on its snapshot's model differs from the "
                "state of the rebuilt document"
            )
    return made


def seat_of(uow: AbstractUnitOfWork, game: GameFields, token: str | None) -> str | None:
    """The seat a bearer token holds at this game; None without a token; 401 if wrong,
    403 for a read-only spectator token (see :mod:`app.service.identity`)."""
    if token is None:
        return None
    return require_seat(identify(uow, game, token))


def reader_seat(uow: AbstractUnitOfWork, game: GameFields, token: str | None) -> str | None:
    """The reader's seat (None: anonymous or a spectator); a private game needs a seat or
    spectator token."""
    return reader_of(game, identify(uow, game, token) if token is not None else None)


def reader_of(game: GameFields, who: Identity | None) -> str | None:
    """:func:`reader_seat` for an identity already known (``who`` None: no token presented)."""
    if who is None and not game.public:
        raise Unauthenticated("this game is private: present a seat token", code="auth.required")
    return None if who is None else who.seat


@contextmanager
def reading(
    uow: AbstractUnitOfWork, game_id: str, *, token: str | None, boards: BoardCache, now: float
) -> Iterator[tuple[Game, str | None]]:
    """One read transaction: the game (404) and the reader's seat (401; see
    :func:`reader_seat`), found in one query. The clock is settled lazily: only when a side's
    time has run out and nobody has recorded it yet is the read left, the expiry written
    (:func:`settle_clock`) and the read begun again, so a read of a game whose clock is fine
    is one transaction, which reads the game only (its row with the token's seat, and on a
    cache miss its board and state: ``uow.begin(direct=True)``, statements straight on the
    driver)."""
    settled = False
    while True:
        with uow.begin(direct=True):
            game, who = load_game_as(uow, game_id, boards, token)
            seat = reader_of(game.row, who)
            if settled or not mt.newly_expired(game.row, now):
                yield game, seat
                return
        settle_clock(uow, game_id, now=now, boards=boards)
        settled = True


def turn_of(game: Game, state: Any) -> mt.Turn | None:
    """Where the game stands in its sequence of play (None: the ruleset declares none)."""
    with guard("state"):
        return mt.where(game.ruleset, game.board, state)


def require_active(row: GameFields) -> None:
    if row.status != "active":
        raise Conflict(
            f"the game is {row.status}: nothing more may be played",
            code="game.finished",
            citations=cite("finished-game"),
            winner=row.winner,
        )


def require_running_version(game: Game) -> None:
    """409 ``ruleset.upgrade_required`` when the game is pinned to another version of its
    ruleset than the one this process runs (``games.ruleset_version`` vs the registry's):
    nothing is judged under rules the game was not played under until the umpire upgrades it
    (``POST /games/{id}/upgrade``, :mod:`app.service.upgrade`). Reads still work."""
    pinned, running = game.row.ruleset_version, game.ruleset.version
    if pinned == running:
        return
    raise Conflict(
        f"this game is played under {game.ruleset.id} {pinned} and this server runs "
        f"{running}: nothing is judged until the umpire upgrades the game "
        f"(GET /games/{game.row.id}/upgrade previews, POST upgrades)",
        code="ruleset.upgrade_required",
        citations=cite("ruleset-version"),
        ruleset=game.ruleset.id,
        ruleset_version=pinned,
        ruleset_running_version=running,
        upgrade=f"/games/{game.row.id}/upgrade",
    )


def append_event(
    uow: AbstractUnitOfWork,
    game: Game,
    *,
    expected: int,
    seat: str,
    kind: str,
    new_state: Any,
    ruling: Ruling,
    action: Mapping[str, Any] | None = None,
    payload: Mapping[str, Any] | None = None,
    rolls: Sequence[Any] = (),
    status: str | None = None,
    columns: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
    request_digest: str | None = None,
    visible_to: list[str] | None = None,
    response: Callable[[int, int, Callable[[], str], str | None], str] | None = None,
) -> NewEvent:
    """Move the game from version ``expected`` to the next and append the event that did it,
    in the open write transaction (one conditional UPDATE; 412 if another write came first;
    on PostgreSQL the UPDATE, the event's INSERT and its ``pg_notify`` are one statement,
    ``GameRepository.advance_with_event``).
    Every write appends through here, so each bumps the version by exactly one
    (seq = version - 1). ``response(seq, version, state_text, ruling_text)`` gives the
    answer stored for replays; ``state_text()`` is the new state's JSON text, encoded once
    when first asked for; ``ruling_text`` the ruling's as stored (its ``model_dump_json()``;
    None when the quick check was wary of it). The event records the version of the ruleset
    that judged it (the one this process runs).

    What is stored: an event whose state is a delta (:func:`_state_delta`) stores that delta,
    and the game row keeps the state it holds (``games.state_seq``, migration 0013) -- so a
    one-unit move on a 500-unit board neither encodes nor writes the whole state unless
    something asks for its text (an answer with the state, a replay's stored answer,
    PostgreSQL's kept state); every N-th event (:func:`_state_delta`), and any whose delta
    cannot be made, stores its state whole, in the event and in the game row."""
    # the ruling's text encoded from the model itself (no document made first) and checked
    # on its text (C speed): the column is written as it is; a text the check is wary of
    # (or none) makes the document, walked with the state and what cannot be stored named
    ruling_text = checked_state_text(ruling)
    if (
        checking_writes()
        and ruling_text is not None
        and ruling_text != checked_text(ruling.model_dump(mode="json"))
    ):
        raise AssertionError(f"the ruling's text differs from its document's:\n{ruling_text}")
    ruling_doc: Any = (
        StoredText(ruling_text) if ruling_text is not None else ruling.model_dump(mode="json")
    )
    made = _NewState(new_state, ruling, ruling_text, game.state)
    if ruling_text is None:
        made.stored()  # the ruling is walked with the state, and what cannot be stored named
    seq = expected - INITIAL_VERSION + 1
    delta = _state_delta(uow, game, expected, new_state, made.text)
    if delta is not None:
        if delta[1]:
            made.storable = True  # what changed is storable, and the rest was stored before
        else:
            made.stored()  # a change the ruleset made that cannot be stored: named (422)
    whole = None if delta is not None else made.stored()[0]
    # the state is stored whole (in the game row and the event) every N events (_state_delta);
    # the events between store their delta, and the game row keeps its state
    known: list[tuple[Any, str]] = [made.encoded] if made.encoded is not None else []
    if ruling_text is not None:
        known.append((ruling_doc, ruling_text))
    if delta is not None:
        known.append(delta)
    with json_reuse(*known):
        # the answer is put together before the write (it is stored with the event, which
        # PostgreSQL writes in the statement that moves the game on); a write that loses the
        # race to another discards it with the rest
        answer = (
            response(seq, expected + 1, made.text, ruling_text) if response is not None else None
        )
        # the answer is stored for a retry with the same Idempotency-Key to replay; a
        # request without one can never be replayed, so its (state-sized) answer is not kept
        event = NewEvent(
            game_id=game.row.id,
            seq=seq,
            seat=seat,
            kind=kind,
            action=dict(action or {}),
            ruling=ruling_doc,
            dice=mt.rolls_json(rolls),
            version=expected + 1,
            idempotency_key=idempotency_key,
            request_digest=request_digest,
            response=answer if idempotency_key is not None else None,
            created_at=utc_now(),
            payload=dict(payload) if payload is not None else None,
            state_after=whole,
            state_delta=delta[0] if delta is not None else None,
            visible_to=visible_to,
            ruleset_version=game.ruleset.version,
        )
        if not uow.games.advance_with_event(
            game.row.id,
            event,
            expected_version=expected,
            state=whole,
            status=status or game.row.status,
            extra=dict(columns or {}),
        ):
            raise PreconditionFailed("another write was accepted first; reload the game")
        event.response = answer  # the body of this request (the row is written, not tracked)
        remember_state(uow, game, expected + 1, made, delta)
        with guard("state"):  # webhook notifications: outbox rows in this same transaction
            notify.enqueue(
                uow,
                notify.Change(
                    ruleset=game.ruleset,
                    board=game.board,
                    event=event,
                    before=game.state,
                    after=new_state,
                    was_active=game.row.status == "active",
                    active=(status or game.row.status) == "active",
                    webhooks=game.webhooks,
                ),
            )
    return event


class _NewState:
    """A write's new state: its stored form and JSON text, encoded on first use only."""

    __slots__ = ("before", "encoded", "ruling", "ruling_text", "state", "storable")

    def __init__(
        self,
        state: Any,
        ruling: Ruling,
        ruling_text: str | None,
        before: Any = None,
    ) -> None:
        self.state = state
        self.before = before
        """The state this one was made from: the text of each item it shares with it is
        reused (:mod:`app.service.statetext`)."""
        self.ruling = ruling
        """The write's ruling: its document is made only to walk it (``ruling_text`` None)."""
        self.ruling_text = ruling_text
        self.encoded: tuple[Any, str] | None = None
        """(the state as a JSON column writes it, its JSON text), once made."""
        self.storable = False
        """Known storable without a look at its text: the write stores a delta whose values
        passed the check, and every other value was stored before (a state read from the
        database, or kept from a write that checked it the same way)."""

    def stored(self) -> tuple[Any, str]:
        if self.encoded is None:
            self.encoded = self._encoded()
        return self.encoded

    def _encoded(self) -> tuple[Any, str]:
        if self.storable and isinstance(self.state, BaseModel) and self.ruling_text is not None:
            try:  # the text alone, without the check of every value in it
                text = state_text(self.state, self.before).decode("utf-8")
            except UNENCODABLE:
                pass
            else:
                if checking_writes():  # what the check would have said
                    checked = _stored_state(self.state, self.ruling, self.ruling_text)
                    if checked[1] != text:
                        raise AssertionError("a delta write's state text differs when checked")
                return StoredText(text), text
        return _stored_state(self.state, self.ruling, self.ruling_text)

    def text(self) -> str:
        return self.stored()[1]


def _stored_state(new_state: Any, ruling: Ruling, ruling_text: str | None) -> tuple[Any, str]:
    """The new state as a JSON column writes it (its :class:`StoredText`, encoded from the
    model, or its dump) and its JSON text; 422 ``result.unstorable`` naming every value of
    the state or the ruling that cannot be stored."""
    with guard("state"):
        state_text = checked_state_text(new_state)
    if state_text is not None and ruling_text is not None:  # the common case
        return StoredText(state_text), state_text
    ruling_json = ruling.model_dump(mode="json")  # walked with the state below
    state_json: Any
    if state_text is not None:
        state_json = StoredText(state_text)
        checked = {"ruling": ruling_json}
    else:
        with guard("state"):
            state_json = new_state.model_dump(mode="json")
        state_text = checked_text(state_json)
        checked = {"state": state_json, "ruling": ruling_json}
    if state_text is None or ruling_text is None:
        unstorable = unsafe_values(checked)
        if unstorable:  # e.g. a number the ruleset computed that overflowed to Infinity
            raise InvalidInput(
                "this request would store values that cannot be stored",
                unstorable,
                code="result.unstorable",
            )
        if state_text is None:  # the quick text check was only wary: the walk passed it
            state_text = json_text(state_json)
    return state_json, state_text


def _state_delta(
    uow: AbstractUnitOfWork,
    game: Game,
    expected: int,
    new_state: Any,
    state_text: Callable[[], str],
) -> tuple[dict[str, Any], str] | None:
    """The delta the event leaving version ``expected`` stores instead of its whole state,
    with its JSON text ("" when a value in it cannot be stored); None when it stores a
    snapshot: every N-th event with ``REFEREE_SNAPSHOT_EVERY`` N; by default by weight, a
    checkpoint (every 32nd event) once the deltas since the last snapshot weigh about as
    much as it, and every 512th (:func:`deltas.snapshot_by_weight`, the chain weighed in the
    database: ``GameRepository.chain_weight``); and any whose delta cannot be made from the
    two states' models or is not small
    (:mod:`app.db.deltas`: larger than ``DELTA_SHARE`` of the state's JSON text -- the state
    before's, as the process keeps its size, so the new state need not be encoded for it).

    The delta is taken from ``game.state``, which must dump as the stored document of
    ``expected`` does: so only when ``game.state`` is the state of ``expected`` (a second
    event of one write stores a snapshot) and the game is pinned to the ruleset version this
    process runs (the upgrade event, whose state the new version parsed from a document the
    old one wrote, stores a snapshot)."""
    seq = expected - INITIAL_VERSION + 1
    every = deltas.snapshot_every()
    if (
        (every is not None and deltas.wants_snapshot(seq, every))  # a fixed N: known already
        or expected != game.row.version
        or game.row.ruleset_version != game.ruleset.version
    ):
        return None
    try:
        delta = deltas.make_delta(game.state, new_state)
    except Exception:  # a state the generic diff does not understand: store it whole
        return None
    if delta is None:
        return None
    text = checked_text(delta)  # checked on its text (C speed), written as it is
    if text is None:  # the quick text check was wary: walk it (not storable: see the caller)
        text = json_text(delta) if fine(delta) else ""
    size = _state_size(game)
    if size is None:
        size = len(state_text())
    if len(text) > deltas.DELTA_SHARE * size:
        return None
    if every is None and deltas.weighed_at(seq):  # by weight: the chain weighed (1 in 32)
        chain, snapshot = uow.games.chain_weight(game.row.id)
        if deltas.snapshot_by_weight(seq, chain, len(text), snapshot):
            return None
    if checking_writes():
        _check_delta(game, delta, state_text())
    return delta, text


def _state_key(game: Game, version: int) -> StateKey:
    return (game.row.id, version, game.ruleset.id, game.row.ruleset_version)


def _state_size(game: Game) -> int | None:
    """The JSON size of ``game.state`` as the process's cache weighs it (None: not kept)."""
    cache = game.cache
    return None if cache is None else cache.state_size(_state_key(game, game.row.version))


def _check_delta(game: Game, delta: dict[str, Any], state_text: str) -> None:
    """With ``REFEREE_CHECK_KEPT_STATE`` (the test suite): the delta applied to the state
    before it gives the new state's document, value for value and in key order."""
    before = game.state.model_dump(mode="json")
    rebuilt = deltas.apply_delta(before, delta)
    if json.dumps(rebuilt) != json.dumps(json.loads(state_text)):
        raise AssertionError(
            f"{game.ruleset.id}: the delta of a write does not rebuild the state it made"
            f" (delta {json.dumps(delta)[:500]})"
        )


def remember_state(
    uow: AbstractUnitOfWork,
    game: Game,
    version: int,
    made: _NewState,
    delta: tuple[dict[str, Any], str] | None = None,
) -> None:
    """Once the write commits, keep the state it made as the parsed state of ``version``, so
    the next request neither reads nor parses it: the object the ruleset made, whose
    per-state look-ups the ruleset may have handed on from the state before. It is the state
    a reader in any process would parse: both databases hand a state document back as it was
    written (PostgreSQL's state columns are ``json``, not ``jsonb``, since migration 0014),
    and every ruleset's states give back an equal state, dumped byte for byte alike, when
    parsed from their dump (``tests/db/test_kept_state.py`` checks it for every rule case;
    with ``REFEREE_CHECK_KEPT_STATE`` set -- as the test suite does -- every write parses its
    state's text and compares). Its weight in the cache is its JSON text's length, or (not
    encoded: a delta was stored) the state before's plus the delta's."""
    cache = game.cache
    if cache is None:
        return
    key = _state_key(game, version)
    new_state = made.state
    before = _state_size(game)
    if made.encoded is None and delta is not None and before is not None:
        size = before + len(delta[1])
    else:
        size = len(made.text())
    if checking_writes():  # parsed from its text (a miss on a snapshot) and its document
        for parsed in (
            game.ruleset.load_state(made.text()),
            game.ruleset.load_state(json.loads(made.text())),
        ):
            if parsed != new_state or parsed.model_dump_json() != new_state.model_dump_json():
                raise AssertionError(
                    f"{game.ruleset.id}: the state a write made differs from the state parsed "
                    "from its stored document; it cannot be kept as made"
                )
    uow.after_commit(lambda: cache.keep_state(key, new_state, size))


def full_view(ruleset: AnyRuleset) -> bool:
    """The ruleset hides nothing: every reader's view of a state is its dump
    (``Ruleset.view`` not overridden)."""
    return type(ruleset).view is Ruleset.view


def view_from_text(ruleset: AnyRuleset, state: Any) -> bool:
    """A reader's view of ``state`` may be the state's JSON text as it is
    (:func:`app.service.statetext.state_text`): the ruleset hides nothing, and no model of the
    state has an alias (the text is written with the aliases, the view's dump without)."""
    return full_view(ruleset) and not aliased(type(state))


def checking_writes() -> bool:
    """``REFEREE_CHECK_KEPT_STATE`` (the test suite sets it): every write checks that what it
    keeps and answers by the short way is what the long way gives."""
    return bool(env("REFEREE_CHECK_KEPT_STATE"))


def action_result_text(
    seq: int,
    version: int,
    ruling: Ruling | str,
    state_text: str | None,
    position: Any,
    clock: Any,
) -> str:
    """``ActionResult(...).model_dump_json()`` with the state's JSON text put in as it is
    (a large state is not decoded into Python objects to be encoded again); ``state_text``
    None: ``ActionChange(...).model_dump_json()``, the answer without the state. ``ruling``
    and ``position`` may be given as their JSON text."""
    ruling_text = ruling if isinstance(ruling, str) else ruling.model_dump_json()
    state = "" if state_text is None else f'"state":{state_text},'
    if not isinstance(position, str):
        position = "null" if position is None else position.model_dump_json()
    return (
        f'{{"event":{seq},"version":{version},"ruling":{ruling_text},{state}'
        f'"position":{position},'
        f'"clock":{"null" if clock is None else clock.model_dump_json()}}}'
    )


class _Unset:
    """The type of :data:`UNSET`: an argument not given (where None is a value)."""


UNSET = _Unset()


def record_event(
    uow: AbstractUnitOfWork,
    game: Game,
    *,
    seat: str,
    kind: str,
    new_state: Any,
    ruling: Ruling,
    now: float,
    action: Mapping[str, Any] | None = None,
    payload: Mapping[str, Any] | None = None,
    rolls: Sequence[Any] = (),
    status: str | None = None,
    extra: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
    request_digest: str | None = None,
    visible_to: list[str] | None = None,
    minimal: bool = False,
    turn: mt.Turn | _Unset | None = UNSET,
) -> ActionOutcome:
    """Append an action or match event (see :func:`append_event`) whose answer is the
    :class:`ActionResult`: the new state as ``seat`` sees it, the ruling, position and clock.

    Action events have ``payload`` null; match events (phase, rollback, takeback,
    clock_expired, seed_revealed, game_finished) carry their details in ``payload``.

    ``minimal``: the client asked for the answer without the state (``Prefer:
    return=minimal``): without an Idempotency-Key, whose stored answer a retry replays (the
    full one), the full answer is not made -- so the new state need not be encoded at all
    (``body`` is then the :class:`ActionChange` too).

    ``turn``: where play stands in ``new_state``, when the caller has it already (the step
    that made the state found it: :attr:`app.rules.play.Step.turn`); else it is found here.
    """
    if isinstance(turn, _Unset):
        with guard("state"):
            turn = mt.where(game.ruleset, game.board, new_state)
    columns = dict(extra or {})
    change: list[str] = []

    def answer(seq: int, version: int, state_text: Callable[[], str], stored: str | None) -> str:
        position = mt.position_text(turn)
        clock = mt.clock_view(game.row, now, columns.get("clock", game.row.clock))
        # the ruling's text as the event stores it is its model_dump_json() (pydantic-core's
        # encoding of its JSON dump; the quick check passed no NaN or Infinity)
        ruling_text = ruling.model_dump_json() if stored is None else stored
        if checking_writes() and ruling_text != ruling.model_dump_json():
            raise AssertionError(f"the stored ruling's text differs:\n{ruling_text}")
        change.append(action_result_text(seq, version, ruling_text, None, position, clock))
        if minimal and idempotency_key is None and not checking_writes():
            return change[-1]
        if not view_from_text(game.ruleset, new_state):
            return ActionResult(
                event=seq,
                version=version,
                ruling=ruling,
                state=state_view(game, new_state, seat),
                position=mt.position_view(turn),
                clock=clock,
            ).model_dump_json()
        text = action_result_text(seq, version, ruling_text, state_text(), position, clock)
        if checking_writes():  # the position made afresh: its kept text checked too
            slow_position = mt.position_view(turn)
            slow = ActionResult(
                event=seq,
                version=version,
                ruling=ruling,
                state=json.loads(state_text()),
                position=slow_position,
                clock=clock,
            ).model_dump_json()
            if slow != text:
                raise AssertionError(f"the answer put together differs:\n{text}\n{slow}")
            slow_change = ActionChange(
                event=seq, version=version, ruling=ruling, position=slow_position, clock=clock
            ).model_dump_json()
            if slow_change != change[-1]:
                raise AssertionError(
                    f"the change put together differs:\n{change[-1]}\n{slow_change}"
                )
            if minimal and idempotency_key is None:
                return change[-1]
        return text

    event = append_event(
        uow,
        game,
        expected=game.row.version,
        seat=seat,
        kind=kind,
        new_state=new_state,
        ruling=ruling,
        action=action,
        payload=payload,
        rolls=rolls,
        status=status,
        columns=columns,
        idempotency_key=idempotency_key,
        request_digest=request_digest,
        visible_to=visible_to,
        response=answer,
    )
    assert event.response is not None
    return ActionOutcome(
        status=ACCEPTED,
        body=event.response,
        event=event.seq,
        version=event.version,
        minimal=change[-1] if change else None,
    )


def _begin_write(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str,
    if_match: IfMatch | None,
    boards: BoardCache,
    hint: str = "",
) -> tuple[Game, str, IfMatch]:
    """Inside an open write transaction: the game, the seat ``token`` holds (401 if none)
    and the If-Match precondition (428 without one; ``hint`` ends its message)."""
    game, who = load_game_as(uow, game_id, boards, token)
    assert who is not None
    seat = require_seat(who)
    if if_match is None:
        raise PreconditionRequired(
            f"send If-Match with the ETag of GET /games/{{id}}{hint}", version=game.row.version
        )
    return game, seat, if_match


def _prior(
    uow: AbstractUnitOfWork, game_id: str, seat: str, idempotency_key: str | None
) -> EventRow | None:
    """The event an earlier request of ``seat`` with this Idempotency-Key appended, if any.
    Keys are per seat: two seats of a game may use the same key independently."""
    if idempotency_key is None:
        return None
    return uow.games.event_by_key(game_id, seat, idempotency_key)


def require_current(row: GameFields, if_match: IfMatch) -> None:
    """412 unless the game is still at a version the client's If-Match names."""
    if not if_match.matches(row.version):
        raise PreconditionFailed(
            f"the game is at version {row.version}; reload it", version=row.version
        )


def clock_now(now: float | None) -> float:
    return time.time() if now is None else now


def state_view(game: Game, state: Any, seat: str | None) -> dict[str, Any]:
    """What ``seat`` may see of ``state``."""
    with guard("state"):
        return dict(game.ruleset.view(game.board, state, seat))


def _winner_of(game: Game, loser: str) -> str | None:
    """The winner when ``loser`` forfeits: the other side of a two-sided game."""
    others = [s for s in game.ruleset.sides(game.board).names if s != loser]
    return others[0] if len(others) == 1 else None


def settle_clock(uow: AbstractUnitOfWork, game_id: str, *, now: float, boards: BoardCache) -> bool:
    """Handle clock expiry lazily: called before any read or write of a game.

    When a side's time has run out and nobody has handled it yet, appends a ``clock_expired``
    event (visible to every reader) in its own transaction: with ``on_expiry: forfeit`` the
    game ends (status ``finished``, the other side of a two-sided game recorded as winner);
    with ``notify_umpire`` the game goes on and the event tells the umpire. True if it wrote.
    """
    if not valid_game_id(game_id):
        return False
    with uow.begin():
        found = uow.games.get(game_id)
        if found is None or not mt.newly_expired(found[0], now):
            return False
    with uow.begin(write=True):
        game = load_game(uow, game_id, boards)
        sides = mt.newly_expired(game.row, now)
        control = mt.options_of(game.row).clock
        state = mt.clock_state(game.row)
        if not sides or control is None or state is None:
            return False
        forfeit = control.on_expiry == "forfeit"
        winner = _winner_of(game, sides[0]) if forfeit and len(sides) == 1 else None
        running = None if forfeit else state.running
        new_clock = clock.switch(state, now, running).model_copy(
            update={"expired": sorted({*state.expired, *sides})}
        )
        who = ", ".join(sides)
        outcome = f"{who} forfeit{'s' if len(sides) == 1 else ''}" + (
            f"; {winner} wins" if winner else ""
        )
        ruling = Ruling(
            legal=True,
            summary=f"The clock of {who} ran out: "
            + (outcome if forfeit else "the umpire is notified and play goes on")
            + ".",
            details={"sides": sides, "on_expiry": control.on_expiry, "winner": winner},
        )
        extra: dict[str, Any] = {"clock": new_clock.model_dump(mode="json")}
        if forfeit:
            extra["winner"] = winner
        record_event(
            uow,
            game,
            seat=SYSTEM_SEAT,
            kind="clock_expired",
            new_state=game.state,
            ruling=ruling,
            now=now,
            payload={"sides": sides, "on_expiry": control.on_expiry, "winner": winner},
            status="finished" if forfeit else None,
            extra=extra,
        )
        uow.commit()
        return True


def out_of_sequence(
    turn: mt.Turn, seat: str, owner: str | None, kind: str | None = None
) -> OutOfSequence:
    """The 409 for a seat acting outside its phase, or (``kind``) for an action kind the
    current phase does not allow, citing the ruleset's sequence of play."""
    side = mt.acting_side(seat, owner) or seat
    if kind is not None and mt.may_act(turn, seat, owner):
        allowed = [p for p in turn.sequence.phases if allows(p, kind)]
        where = " or ".join(mt.phase_name(p.title) for p in allowed) or "no phase"
        return OutOfSequence(
            f"turn {turn.position.turn}, {mt.phase_name(turn.phase.title)}: no {kind} in "
            f"this phase; it belongs to the {where}",
            side=side,
            position=mt.position_json(turn),
            acts=turn.phase.acts,
            kind=kind,
            allowed=[p.id for p in allowed],
            citations=[turn.sequence.citation.model_dump(mode="json")],
        )
    phasing = turn.position.phasing_side
    acts = {
        "phasing": f"only the phasing side ({phasing}) may act",
        "non_phasing": f"only the non-phasing side (not {phasing}) may act",
        "umpire": "only the umpire may act",
        "both": "only the sides may act",
    }.get(turn.phase.acts, "nobody may act")
    return OutOfSequence(
        f"turn {turn.position.turn}, {mt.phase_name(turn.phase.title)}: {acts}, not {side}",
        side=side,
        position=mt.position_json(turn),
        acts=turn.phase.acts,
        citations=[turn.sequence.citation.model_dump(mode="json")],
    )


def replay_outcome(prior: EventRow, request_digest: str) -> ActionOutcome:
    """The stored answer of an earlier action or match-flow command with this
    Idempotency-Key (422 ``idempotency.key_reused`` if the key was used for another request)."""
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


# -- the frame -----------------------------------------------------------------------------


class _ClockRanOut(Exception):
    """Inside a write: a side's time ran out and nobody recorded it yet (see run_write)."""


RACE_RETRIES = 5
"""How often a write with ``If-Match: *`` is retried after losing a race to another write."""


@dataclass(frozen=True)
class WriteRequest:
    """What every write is called with besides its own arguments: the one typed write request
    (built once by the API's write dependency, ``api/routes/_outcome.write_request``), handed
    as it is to every write use case (``actions.submit_action(req, SubmitAction(...))``,
    ``flow.rollback(req, to_version)``…)."""

    uow: AbstractUnitOfWork
    game_id: str
    token: str | None
    if_match: IfMatch | None
    idempotency_key: str | None
    boards: BoardCache
    now: float | None
    minimal: bool = False
    """The client prefers the answer without the new state (``Prefer: return=minimal``)."""


@dataclass(frozen=True)
class Write:
    """A write inside its open write transaction: the game, the acting seat, and what its
    event records (time, Idempotency-Key and request digest)."""

    uow: AbstractUnitOfWork
    game: Game
    seat: str
    if_match: IfMatch
    idempotency_key: str | None
    request_digest: str | None
    """What the Idempotency-Key is bound to (None without a key: nothing can replay it)."""
    now: float
    minimal: bool = False
    """The client prefers the answer without the new state (see :func:`record_event`)."""

    def require_current(self) -> None:
        require_current(self.game.row, self.if_match)

    def record(
        self,
        *,
        kind: str,
        new_state: Any,
        ruling: Ruling,
        payload: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
        status: str | None = None,
        action: Mapping[str, Any] | None = None,
        rolls: Sequence[Any] = (),
        visible_to: list[str] | None = None,
        turn: mt.Turn | _Unset | None = UNSET,
    ) -> ActionOutcome:
        """Append this write's event (see :func:`record_event`), keyed by its Idempotency-Key."""
        return record_event(
            self.uow,
            self.game,
            seat=self.seat,
            kind=kind,
            new_state=new_state,
            ruling=ruling,
            now=self.now,
            action=action,
            payload=payload,
            rolls=rolls,
            status=status,
            extra=extra,
            idempotency_key=self.idempotency_key,
            request_digest=self.request_digest,
            visible_to=visible_to,
            minimal=self.minimal,
            turn=turn,
        )


def run_write(
    req: WriteRequest,
    *,
    what: str,
    request_digest: Callable[[str], str],
    body: Callable[[Write], _T],
    replay: Callable[[EventRow, str], _T],
    hint: str = "",
    upgrading: bool = False,
) -> _T:
    """Run one write in the shared frame (see the module docstring).

    ``what`` names the write in the 401 without a token; ``request_digest(seat)`` is what the
    Idempotency-Key is bound to; ``body`` does the write's own checks and appends its event
    (:meth:`Write.record` or :func:`append_event`) in the open transaction, committed here;
    ``replay(prior event, digest)`` answers a retry from the stored event (or refuses it).

    An active game pinned to another version of its ruleset than the one running is refused
    here, before anything is judged (409 ``ruleset.upgrade_required``,
    :func:`require_running_version`); only the upgrade itself (``upgrading``) passes."""
    if req.token is None:
        raise Unauthenticated(f"{what} needs a seat token", code="auth.required")
    token, uow, at = req.token, req.uow, clock_now(req.now)
    settled = False

    def attempt() -> _T:
        with uow.begin(write=True):
            game, seat, if_match = _begin_write(
                uow, req.game_id, token=token, if_match=req.if_match, boards=req.boards, hint=hint
            )
            if not settled and mt.newly_expired(game.row, at):
                raise _ClockRanOut
            # the digest binds an Idempotency-Key to its request: a write without a key is
            # never replayed, so it stores none (as it stores no answer)
            key = req.idempotency_key
            digest_ = request_digest(seat) if key is not None else None
            prior = _prior(uow, game.row.id, seat, key)
            if prior is not None:
                assert digest_ is not None  # a prior event is found by its key
                return replay(prior, digest_)
            if game.row.status == "active":
                # 412 before judging: never rule on a position the client has not seen (a
                # finished game lets the write answer 409 game.finished, whatever the version)
                require_current(game.row, if_match)
                if not upgrading:  # judged only under the version the game is pinned to
                    require_running_version(game)
            write = Write(uow, game, seat, if_match, req.idempotency_key, digest_, at, req.minimal)
            outcome = body(write)
            uow.commit()
            return outcome

    for n in range(RACE_RETRIES):
        try:
            try:
                return attempt()
            except _ClockRanOut:  # rare: record the expiry in its own write, then this write
                settle_clock(uow, req.game_id, now=at, boards=req.boards)
                settled = True
                return attempt()
        except (PreconditionFailed, IntegrityError):
            # Lost a race. A concurrent retry with the same key may be the winner: answer
            # with its stored outcome. Otherwise `If-Match: *` tries again on the new version.
            if req.idempotency_key is not None:
                with uow.begin():
                    seat = seat_of(uow, find_game(uow, req.game_id)[0], token)
                    prior = _prior(uow, req.game_id, seat or "", req.idempotency_key)
                    if prior is not None and seat is not None:
                        return replay(prior, request_digest(seat))
            retry = req.if_match is not None and req.if_match.any and n < RACE_RETRIES - 1
            if not retry:
                raise
    raise AssertionError("unreachable")
