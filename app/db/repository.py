"""The game repository: every query the service needs, and nothing else."""

from __future__ import annotations

import json
import logging
import operator
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple, cast

from sqlalchemy import (
    Engine,
    Select,
    Table,
    Text,
    Update,
    bindparam,
    func,
    insert,
    literal_column,
    null,
    or_,
    select,
    update,
)
from sqlalchemy import cast as cast_
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.orm import Session
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.sql.elements import BindParameter

from app.db import deltas, notify
from app.db.engine import EngineTable, LoopConnections
from app.db.models import (
    INITIAL_VERSION,
    AccessTokenRow,
    EmailSubscriptionRow,
    EventRow,
    GameFields,
    GameRow,
    NewEvent,
    ScenarioRow,
    SeatRow,
    WebhookRow,
    utcnow,
)
from app.db.pgloop import on_loop

# The statements of every request, built once (building loader options per call costs more
# than running the query). The (large) state documents are not among the columns read: they
# load on first access only (:class:`GameRecord`), and the service keeps parsed states per
# game version, so most requests never read them.
_TOKEN: BindParameter[str] = bindparam("token_hash")
_HOLDER = (
    select(GameRow.id, SeatRow.seat, SeatRow.token_hash, AccessTokenRow.token_hash)
    .outerjoin(SeatRow, (SeatRow.game_id == GameRow.id) & (SeatRow.token_hash == _TOKEN))
    .outerjoin(
        AccessTokenRow,
        (AccessTokenRow.game_id == GameRow.id)
        & (AccessTokenRow.token_hash == _TOKEN)
        & AccessTokenRow.revoked_at.is_(None),
    )
    .where(GameRow.id == bindparam("game_id"))
    .limit(1)
)
"""Who holds a token hash at a game, without the game row: what a stream re-checks on every
batch (the same index look-ups as :data:`_READ_AS`)."""
_GAMES = cast(Table, GameRow.__table__)
_SCENARIOS = cast(Table, ScenarioRow.__table__)
RECORD_FIELDS = (
    "id",
    "ruleset_id",
    "ruleset_version",
    "scenario_id",
    "options",
    "version",
    "status",
    "public",
    "created_at",
    "updated_at",
    "dice_seed",
    "dice_commitment",
    "dice_counter",
    "seed_revealed",
    "match",
    "clock",
    "winner",
    "access_epoch",
    "created_version",
)
"""The columns of ``games`` a :class:`GameRecord` is read with: every one but the two state
documents (read on first access, through the same transaction)."""
_FIELDS = len(RECORD_FIELDS)
_WHEN = ("created_at", "updated_at")
"""The record's timestamps: read straight on the driver, converted on first access."""
_TEXTS = ("options", "match")
"""The record's option documents: read straight on the driver as their JSON text (SQLite),
decoded on first access -- a write looks them up by their text
(:func:`app.service.pipeline.game_from_row`, :func:`app.service.match.options_of`), where
the same options give the same validated model, so most requests never decode them."""


class Later(NamedTuple):
    """What converts a read's values left as the driver gave them: ``when`` its timestamps
    (:data:`_WHEN`), ``parse`` its option documents' texts (:data:`_TEXTS`); either None
    where the driver's values are the row's own."""

    when: Callable[[Any], Any] | None
    parse: Callable[[Any], Any] | None


DOCUMENTS = ("state", "initial_state")
_READ = (
    select(*(_GAMES.c[name] for name in RECORD_FIELDS), _SCENARIOS.c.digest)
    .join(_SCENARIOS, _SCENARIOS.c.id == _GAMES.c.scenario_id)
    .where(_GAMES.c.id == bindparam("game_id"))
)
"""A game row with its board digest, as plain values (no ORM entity: :class:`GameRecord`)."""
_READ_LOCKED = _READ.with_for_update(of=_GAMES)
"""A write's read of its game: ``SELECT ... FOR UPDATE OF games`` on PostgreSQL (SQLite's
``BEGIN IMMEDIATE`` already holds the database's write lock)."""
_SEATS = cast(Table, SeatRow.__table__)
_TOKENS = cast(Table, AccessTokenRow.__table__)
_HOOKS = cast(Table, WebhookRow.__table__)
_SUBSCRIPTIONS = cast(Table, EmailSubscriptionRow.__table__)
_READ_AS = (
    select(
        *(_GAMES.c[name] for name in RECORD_FIELDS),
        _SCENARIOS.c.digest,
        _SEATS.c.seat,
        _SEATS.c.token_hash,
        _TOKENS.c.token_hash,
        or_(
            select(_HOOKS.c.id).where(_HOOKS.c.game_id == _GAMES.c.id).exists(),
            select(_SUBSCRIPTIONS.c.id)
            .where(
                _SUBSCRIPTIONS.c.game_id == _GAMES.c.id,
                _SUBSCRIPTIONS.c.status == "confirmed",
            )
            .exists(),
        ),
    )
    .join(_SCENARIOS, _SCENARIOS.c.id == _GAMES.c.scenario_id)
    .outerjoin(_SEATS, (_SEATS.c.game_id == _GAMES.c.id) & (_SEATS.c.token_hash == _TOKEN))
    .outerjoin(
        _TOKENS,
        (_TOKENS.c.game_id == _GAMES.c.id)
        & (_TOKENS.c.token_hash == _TOKEN)
        & _TOKENS.c.revoked_at.is_(None),
    )
    .where(_GAMES.c.id == bindparam("game_id"))
    .limit(1)
)
""":data:`_READ` with who holds a token hash at the game and whether it has webhooks or
confirmed email subscriptions (see :class:`GameRecord`)."""
_READ_AS_LOCKED = _READ_AS.with_for_update(of=_GAMES)
""":data:`_READ_AS` for a write (see :data:`_READ_LOCKED`)."""
_CORE_READS = {"read": _READ, "read_as": _READ_AS}
"""The reads by the name :func:`_plans` gives them, for an engine read without its plans."""


def _driver_error(
    dialect: Dialect, exc: Any, sql: str, params: Mapping[str, Any], lost: bool
) -> sa_exc.StatementError:
    """A driver's error raised on a statement run past the ORM, as SQLAlchemy would raise it
    (its ``DBAPIError`` subclass: a lost race on a unique index is an ``IntegrityError``)."""
    error: sa_exc.StatementError = sa_exc.DBAPIError.instance(
        sql,
        dict(params),
        exc,
        dialect.loaded_dbapi.Error,
        connection_invalidated=lost,
        dialect=dialect,
    )
    return error


_DOCUMENT = {
    "state": select(
        cast_(_GAMES.c.state, Text).label("state"), _GAMES.c.state_seq, _GAMES.c.version
    ).where(_GAMES.c.id == bindparam("game_id")),
    "initial_state": select(_GAMES.c.initial_state).where(_GAMES.c.id == bindparam("game_id")),
}
"""A game's state documents: ``state`` with ``state_seq`` and ``version`` (see
:func:`_state_at`; the state as its stored JSON text, decoded only where a document is
needed), ``initial_state`` alone."""
_EVENTS = cast(Table, EventRow.__table__)
_CHAIN_WEIGHT = select(
    func.coalesce(
        select(func.sum(func.length(cast_(_EVENTS.c.state_delta, Text))))
        .where(_EVENTS.c.game_id == _GAMES.c.id, _EVENTS.c.seq > _GAMES.c.state_seq)
        .scalar_subquery(),
        0,
    ),
    func.length(cast_(_GAMES.c.state, Text)),
).where(_GAMES.c.id == bindparam("game_id"))
"""The weight of a game's chain (:func:`app.db.deltas.snapshot_by_weight`): the length of the
deltas' JSON texts since the state the game row holds (none where the row holds the current
state whole: ``state_seq`` null), and that state's."""
_STORED = (_EVENTS.c.seq, _EVENTS.c.state_after, _EVENTS.c.state_delta)
_CHAIN = (
    select(*_STORED)
    .where(
        _EVENTS.c.game_id == bindparam("game_id"),
        _EVENTS.c.seq > bindparam("after"),
        _EVENTS.c.seq <= bindparam("upto"),
    )
    .order_by(_EVENTS.c.seq)
)
"""The states events ``after`` + 1 .. ``upto`` stored (snapshots or deltas), in order."""
_NEAREST = (
    select(func.coalesce(func.max(_EVENTS.c.seq), 0))
    .where(
        _EVENTS.c.game_id == bindparam("game_id"),
        _EVENTS.c.seq <= bindparam("upto"),
        _EVENTS.c.state_delta.is_(None),
    )
    .scalar_subquery()
)
_CHAIN_FROM_SNAPSHOT = (
    select(*_STORED)
    .where(
        _EVENTS.c.game_id == bindparam("game_id"),
        _EVENTS.c.seq <= bindparam("upto"),
        _EVENTS.c.seq >= _NEAREST,
    )
    .order_by(_EVENTS.c.seq)
)
"""The states stored from the last event up to ``upto`` without a delta (a snapshot, or one
that kept no state) on: what rebuilds the state event ``upto`` left from the log alone."""
_CHAINS = {"chain": _CHAIN, "chain_from_snapshot": _CHAIN_FROM_SNAPSHOT}

One = Callable[[str, Mapping[str, Any]], Sequence[Any] | None]
"""Runs a named statement of :func:`_plans`: its first row, processed (None: no row)."""
Many = Callable[[str, Mapping[str, Any]], Sequence[Sequence[Any]]]
"""Runs a named statement of :func:`_plans`: every row, processed."""


class StateNotKept(LookupError):
    """The state a game had at a version cannot be rebuilt from what is stored."""


def _state_at(
    game_id: str, version: int, one: One, many: Many, *, chain: bool = False
) -> dict[str, Any] | str | deltas.StoredChain:
    """The state document of ``game_id`` at ``version``, as the database hands documents back
    -- or, where the game row holds that very state whole, its JSON text as stored (a
    :class:`str`), which the ruleset validates straight from the text on a cache miss
    (``Ruleset.load_state``), without making the document first (:attr:`GameRecord.state`
    decodes it where the document itself is asked for). With ``chain``, a state the row's
    and the deltas after it make is handed on as such (:class:`app.db.deltas.StoredChain`:
    the row's text and the deltas), for the service to rebuild without a document
    (``deltas.apply_to_model``).

    The game row holds the current state whole (``state_seq`` null), or the state event
    ``state_seq`` left, the events after it storing deltas (migration 0013): then the state
    is rebuilt from the row's and those deltas -- at most N - 1 of them, as a write stores a
    snapshot, and the row its whole state, every N events (``REFEREE_SNAPSHOT_EVERY``, or by
    weight: at most ``deltas.SNAPSHOT_EVERY_MAX``). Where the
    row has moved past ``version`` since the game was read (PostgreSQL's direct reads run each
    statement on its own snapshot) and its state is no longer one ``version``'s can be
    rebuilt from, the state is rebuilt from the events' log alone (the nearest snapshot at or
    before it, or the initial state), so the state read is always ``version``'s."""
    found = one("state", {"game_id": game_id})
    if found is None:
        raise LookupError(f"no game {game_id!r}")
    stored, after, at = cast(str, found[0]), found[1], found[2]
    upto = version - INITIAL_VERSION
    if at == version and after is None:
        return stored
    if upto <= 0:
        first = one("initial_state", {"game_id": game_id})
        if first is None or first[0] is None:
            raise StateNotKept(f"game {game_id!r}: its initial state is not kept")
        return cast(dict[str, Any], first[0])
    if after == upto:  # the row holds this very state (the game moved on since)
        return stored
    base: Any
    if after is not None and after < upto:
        base = stored  # the row's text, decoded below unless handed on as a chain
        rows = many("chain", {"game_id": game_id, "after": after, "upto": upto})
        start = after + 1
    else:
        rows = many("chain_from_snapshot", {"game_id": game_id, "upto": upto})
        start = rows[0][0] if rows else upto + 1
        base = None
        if start == 1:  # no snapshot before it: the log starts from the initial state
            first = one("initial_state", {"game_id": game_id})
            base = None if first is None else first[0]
    if not rows or rows[0][0] != start or rows[-1][0] != upto or len(rows) != upto - start + 1:
        raise StateNotKept(f"game {game_id!r}: the log does not hold every state up to {upto}")
    if chain and isinstance(base, str) and all(r[1] is None and r[2] is not None for r in rows):
        return deltas.StoredChain(base, tuple(r[2] for r in rows))
    if isinstance(base, str):
        base = json.loads(base)  # as the JSON column's reader decodes it
    state = deltas.rebuild(base, [(r[1], r[2]) for r in rows])[-1]
    if state is None:
        raise StateNotKept(f"game {game_id!r}: the state of version {version} is not kept")
    return state


_INSERT_EVENT = insert(cast(Table, EventRow.__table__))
_EVENT_COLUMNS = tuple(c for c in EventRow.__table__.columns if c.key != "id")
_ADVANCES: dict[tuple[frozenset[str], bool], Update] = {}
"""The conditional UPDATE of :meth:`GameRepository.advance`, built once per set of extra
columns it sets (a handful: dice counter and clock, winner, seed...) and whether it writes
the state whole."""


def _advance_statement(extra: frozenset[str], whole: bool) -> Update:
    stmt = _ADVANCES.get((extra, whole))
    if stmt is None:
        table = cast(Table, GameRow.__table__)
        values: dict[str, Any] = {
            name: bindparam(f"p_{name}")
            for name in ("version", "status", "updated_at", *sorted(extra))
        }
        if whole:  # the state whole: the row's state is the current one again
            values["state"] = bindparam("p_state")
            values["state_seq"] = null()
        else:  # the row keeps the state it holds: the state of the event it names, or now of
            # the event before this write's (when it held the current state until now)
            values["state_seq"] = func.coalesce(table.c.state_seq, bindparam("p_state_seq"))
        stmt = (
            update(table)
            .where(table.c.id == bindparam("p_id"), table.c.version == bindparam("p_expected"))
            .values(values)
        )
        _ADVANCES[(extra, whole)] = stmt
    return stmt


_NOTIFY = select(func.pg_notify(bindparam("channel"), bindparam("payload")))
"""PostgreSQL's notification of an appended event (:func:`app.db.notify.message`)."""


def _advance_with_event_statement(extra: frozenset[str], whole: bool) -> Select[Any]:
    """PostgreSQL's write of a game's next event in one statement: the conditional
    ``UPDATE`` of :func:`_advance_statement` (as a CTE, ``RETURNING`` the game's id), the
    event's ``INSERT ... SELECT`` from it (its values bound as ``e_<column>``) and
    ``pg_notify`` of the event from that (``channel``, ``payload``). A game not at the
    expected version updates no row, so no event is inserted and nobody notified: the
    statement returns no row. A duplicate event (the Idempotency-Key's unique index) fails
    the whole statement, the ``UPDATE`` with it. One round trip instead of three."""
    table = cast(Table, GameRow.__table__)
    adv = _advance_statement(extra, whole).returning(table.c.id).cte("adv")
    values = select(
        *(bindparam(f"e_{c.key}", type_=c.type).label(c.key) for c in _EVENT_COLUMNS)
    ).select_from(adv)
    appended = (
        insert(_EVENTS)
        .from_select([c.key for c in _EVENT_COLUMNS], values)
        .returning(_EVENTS.c.seq)
        .cte("ev")
    )
    return _NOTIFY.select_from(appended)


def _event_values(event: EventRow | NewEvent) -> dict[str, Any]:
    """An event's column values as its ``INSERT`` writes them (``created_at`` now if unset)."""
    if isinstance(event, NewEvent):
        values = event.values()
    else:
        values = {c.key: getattr(event, c.key) for c in _EVENT_COLUMNS}
    if values["created_at"] is None:
        values["created_at"] = utcnow()
    return values


def _advance_params(
    game_id: str,
    expected_version: int,
    state: dict[str, Any] | None,
    status: str,
    now: datetime | None,
    extra: Mapping[str, Any] | None,
) -> tuple[dict[str, Any], frozenset[str], bool]:
    """The parameters of :func:`_advance_statement` for a game moved on from
    ``expected_version``, the extra columns it sets and whether it writes the state whole."""
    extra = dict(extra or {})
    params = {
        "p_id": game_id,
        "p_expected": expected_version,
        "p_version": expected_version + 1,
        "p_status": status,
        "p_updated_at": now or utcnow(),
        **{f"p_{name}": value for name, value in extra.items()},
    }
    whole = state is not None
    if whole:
        params["p_state"] = state
    else:
        params["p_state_seq"] = expected_version - INITIAL_VERSION
    return params, frozenset(extra), whole


class GameRecord:
    """A game's row as a read transaction sees it: plain values, read with a Core statement.

    The service only reads a game's attributes, and on a read nothing it loads is ever
    written back; the ORM's entity loading (identity map, instance state, loader options),
    and the session's bookkeeping of the entity at its close, were 40% of a GET game's CPU
    (docs/PERFORMANCE.md, issue 28). The two state documents are read on first access, as
    the ORM's deferred columns were: through the same session and transaction, and only while
    it is open (after it, as for a detached entity, an error)."""

    __slots__ = (
        *(name for name in RECORD_FIELDS if name not in _WHEN and name not in _TEXTS),
        "_created_at",
        "_updated_at",
        "_when",
        "_options",
        "_match",
        "_options_text",
        "_match_text",
        "_parse",
        "_documents",
        "_state",
        "_initial_state",
    )

    id: str
    ruleset_id: str
    ruleset_version: str
    scenario_id: str
    version: int
    status: str
    public: bool
    dice_seed: str | None
    dice_commitment: str | None
    dice_counter: int
    seed_revealed: bool
    clock: dict[str, Any] | None
    winner: str | None
    access_epoch: int
    created_version: str | None

    def __init__(
        self,
        values: Sequence[Any],
        documents: Callable[[str, str, int], Any],
        later: Later | None = None,
    ) -> None:
        """``values``: a row of :data:`_READ` or :data:`_READ_AS` (its first columns);
        ``documents(game id, column, version)`` reads one of the state documents (the
        state: as it was at ``version``, :func:`_state_at`); ``later``: what converts the
        values left as the driver gave them, on first access only -- the timestamps
        (SQLite's text: a game's view, which shows them, is made once per version) and the
        option documents (their JSON text: :attr:`options_text`)."""
        (
            self.id,
            self.ruleset_id,
            self.ruleset_version,
            self.scenario_id,
            self._options,
            self.version,
            self.status,
            self.public,
            self._created_at,
            self._updated_at,
            self.dice_seed,
            self.dice_commitment,
            self.dice_counter,
            self.seed_revealed,
            self._match,
            self.clock,
            self.winner,
            self.access_epoch,
            self.created_version,
        ) = values[:_FIELDS]
        self._when = None if later is None else later.when
        self._parse = parse = None if later is None else later.parse
        # the option documents left as their text by the driver: decoded on first access (a
        # value of another type is the driver's own decoding: kept as it is)
        self._options_text: str | None = None
        self._match_text: str | None = None
        if parse is not None:
            if type(self._options) is str:
                self._options_text, self._options = self._options, _UNREAD
            if type(self._match) is str:
                self._match_text, self._match = self._match, _UNREAD
        self._documents = documents
        self._state: Any = _UNREAD
        self._initial_state: Any = _UNREAD

    @property
    def created_at(self) -> datetime:
        if self._when is not None:
            self._convert()
        return cast(datetime, self._created_at)

    @property
    def updated_at(self) -> datetime:
        if self._when is not None:
            self._convert()
        return cast(datetime, self._updated_at)

    @property
    def options(self) -> dict[str, Any]:
        """The game's ruleset options (decoded from their text on first access)."""
        value = self._options
        if value is _UNREAD:
            value = self._options = self._decode(self._options_text)
        return cast(dict[str, Any], value)

    @property
    def match(self) -> dict[str, Any] | None:
        """The game's match options (decoded from their text on first access)."""
        value = self._match
        if value is _UNREAD:
            value = self._match = self._decode(self._match_text)
        return cast(dict[str, Any] | None, value)

    @property
    def options_text(self) -> str | None:
        """The ruleset options' JSON text as stored, where the driver handed it on as text
        (SQLite's direct reads; None where it decodes the document itself)."""
        return self._options_text

    @property
    def match_text(self) -> str | None:
        """The match options' JSON text as stored (as :attr:`options_text`)."""
        return self._match_text

    def _decode(self, text: str | None) -> Any:
        assert self._parse is not None and text is not None
        return self._parse(text)

    def _convert(self) -> None:
        when, self._when = self._when, None
        assert when is not None
        self._created_at = None if self._created_at is None else when(self._created_at)
        self._updated_at = None if self._updated_at is None else when(self._updated_at)

    @property
    def state(self) -> dict[str, Any]:
        """The state document of this version (read on first access)."""
        stored = self.stored_state()
        if isinstance(stored, str):
            stored = self._state = json.loads(stored)  # as the JSON column's reader decodes it
        elif isinstance(stored, deltas.StoredChain):
            stored = self._state = stored.document()
        return stored

    def stored_state(self) -> dict[str, Any] | str | deltas.StoredChain:
        """The state of this version as read, on first access: its JSON text as stored where
        the row holds it whole; the row's text and the deltas after it
        (:class:`app.db.deltas.StoredChain`) where those make it; else its document."""
        if self._state is _UNREAD:
            self._state = self._documents(self.id, "stored_state", self.version)
        return cast(dict[str, Any] | str | deltas.StoredChain, self._state)

    @property
    def initial_state(self) -> dict[str, Any] | None:
        if self._initial_state is _UNREAD:
            self._initial_state = self._documents(self.id, "initial_state", self.version)
        return cast(dict[str, Any] | None, self._initial_state)

    def __repr__(self) -> str:
        return f"GameRecord(id={self.id!r}, version={self.version!r})"


_UNREAD = object()


class _Plan:
    """One statement compiled for one dialect, run on the driver: its SQL, how its
    parameters are handed over and each column's result processor (SQLAlchemy's own for the
    column's type: SQLite's JSON text and timestamps, booleans; none on psycopg, which
    converts)."""

    __slots__ = ("convert", "defaults", "later", "order", "pick", "plain", "processors", "sql")

    def __init__(
        self,
        stmt: Any,
        dialect: Dialect,
        when: tuple[str, ...] = (),
        texts: tuple[str, ...] = (),
    ) -> None:
        """``when`` (of one type: timestamps) and ``texts`` (JSON documents): columns of
        ``games`` whose values are left as the driver gives them; :attr:`later` converts
        them."""
        compiled = stmt.compile(dialect=dialect)
        self.sql = compiled.string
        self.order: tuple[str, ...] | None = (
            tuple(compiled.positiontup) if compiled.positional else None
        )
        self.defaults = dict(compiled.params)
        self.pick = _picker(self.order)
        processors = [
            column.type.dialect_impl(dialect).result_processor(dialect, None)
            for column in stmt.selected_columns
        ]
        convert: Callable[[Any], Any] | None = None
        parse: Callable[[Any], Any] | None = None
        for i, column in enumerate(stmt.selected_columns):
            if getattr(column, "table", None) is not _GAMES:
                continue
            if column.key in when:
                convert, processors[i] = processors[i], None
            elif column.key in texts:
                parse, processors[i] = processors[i], None
        self.later: Later | None = (
            Later(convert, parse) if convert is not None or parse is not None else None
        )
        self.processors = tuple(processors)
        self.plain = not any(self.processors)
        self.convert = tuple((i, p) for i, p in enumerate(processors) if p is not None)
        """The columns that have a processor (a game row's: its JSON, booleans)."""

    def args(self, params: Mapping[str, Any]) -> Any:
        merged = {**self.defaults, **params}
        if self.pick is None:
            return merged
        return self.pick(merged)

    def row(self, raw: Sequence[Any]) -> tuple[Any, ...]:
        if self.plain:
            return tuple(raw)
        out = list(raw)
        for i, process in self.convert:  # only the columns that have one (no call per column)
            value = out[i]
            if value is not None:
                out[i] = process(value)
        return tuple(out)


class _Write:
    """A write statement (the game row's conditional ``UPDATE``, the event's ``INSERT``)
    compiled once for one dialect and one set of parameters, run on the driver in the
    session's transaction (:meth:`GameRepository._on_driver`): its SQL, how its parameters
    are handed over and each one's bind processor (SQLAlchemy's own for the column's type:
    JSON through the engine's serializer, SQLite's timestamps). Through the ``Connection``
    each statement cost about 0.05 ms of CPU more (its execution context and result);
    every submission runs two (docs/PERFORMANCE.md, issue 28, session 10). A statement whose
    columns have Python-side defaults not given is refused (none of these has one)."""

    __slots__ = ("order", "pick", "processors", "sql")

    def __init__(self, stmt: Any, dialect: Dialect, keys: Sequence[str] | None = None) -> None:
        compiled = stmt.compile(dialect=dialect, column_keys=keys)
        if compiled.insert_prefetch or compiled.update_prefetch:
            # SQLAlchemy's execution context computes those; this runs no context
            raise ValueError("a statement with Python-side defaults cannot run on the driver")
        self.sql = compiled.string
        self.order: tuple[str, ...] | None = (
            tuple(compiled.positiontup) if compiled.positional else None
        )
        self.processors = tuple(compiled._bind_processors.items())
        self.pick = _picker(self.order)

    def args(self, params: Mapping[str, Any]) -> Any:
        values = dict(params)
        for name, process in self.processors:  # None too, as SQLAlchemy calls them
            if name in values:
                values[name] = process(values[name])
        if self.pick is None:
            return values
        return self.pick(values)


def _picker(order: tuple[str, ...] | None) -> Callable[[Mapping[str, Any]], tuple[Any, ...]] | None:
    """What takes a positional statement's parameters, in ``order``, out of their mapping as a
    tuple (one C call; a KeyError for one missing, as the look-up one by one); None for a
    statement whose parameters are named."""
    if order is None:
        return None
    if len(order) == 1:  # itemgetter of one name answers the value, not a tuple
        name = order[0]
        return lambda values: (values[name],)
    if not order:
        return lambda values: ()
    return operator.itemgetter(*order)


_WRITES: EngineTable[dict[Any, _Write]] = EngineTable()


def _write_plan(engine: Engine, key: Any, make: Callable[[Dialect], _Write]) -> _Write:
    plans = _WRITES.get(engine)
    if plans is None:
        plans = _WRITES.setdefault(engine, {})
    plan = plans.get(key)
    if plan is None:
        plan = plans[key] = make(engine.dialect)
    return plan


_SQL_LOG = logging.getLogger("sqlalchemy.engine.Engine")
_KEPT_CURSOR = "referee_cursor"
"""Key of a pooled psycopg connection's ``info``: the cursor its statements run on."""


def _kept_cursor(pooled: PoolProxiedConnection) -> Any:
    """The cursor a pooled psycopg connection's statements run on, made once and kept with
    the connection: making and closing a psycopg cursor (its adapters map, its transformer)
    cost about 18 us of CPU a statement (docs/PERFORMANCE.md, issue 28, session 17). The
    pool forgets it with the connection: the pool record's ``info`` is cleared whenever the
    record connects anew (after an invalidation, a recycle). It keeps the last statement's
    result until the next one runs."""
    info = pooled.info
    cursor = info.get(_KEPT_CURSOR)
    if cursor is None:
        cursor = info[_KEPT_CURSOR] = pooled.cursor()
    return cursor


_PLANS: EngineTable[dict[str, _Plan]] = EngineTable()


def _plans(engine: Engine) -> dict[str, _Plan]:
    plans = _PLANS.get(engine)
    if plans is None:
        dialect = engine.dialect
        statements = {
            "board": select(_SCENARIOS.c.board).where(_SCENARIOS.c.id == bindparam("sid")),
            "ping": select(literal_column("1")),
            **_DOCUMENT,
            **_CHAINS,
        }
        plans = {k: _Plan(v, dialect) for k, v in statements.items()}
        for name, stmt in (
            ("read", _READ),
            ("read_as", _READ_AS),
            ("read_locked", _READ_LOCKED),
            ("read_as_locked", _READ_AS_LOCKED),
        ):
            plans[name] = _Plan(stmt, dialect, _WHEN, _TEXTS)
        # published whole: a request in another thread never sees a part of it
        plans = _PLANS.setdefault(engine, plans)
    return plans


class DirectReads:
    """A read transaction's statements straight on the driver: what a GET game, a dry run
    and a named query read (the game row with the token's seat, and on a cache miss its
    board and state), on one pooled connection taken at the first statement and given back
    at the end.

    Through the session the same statements cost 0.2 ms of CPU each (the session's
    transaction, the ``Connection``, the statement's execution context, the result's
    metadata); straight on the driver 0.03 ms (docs/PERFORMANCE.md, issue 28). The
    statements are SQLAlchemy's, compiled once per engine, and each column's value goes
    through SQLAlchemy's own result processor for its type, so the values are those the
    session reads. The engine's statement observers (``before_cursor_execute`` listeners,
    called without a ``Connection``) and its ``echo`` see each statement. One transaction as
    before on SQLite: its ``BEGIN`` is sent first (each statement would otherwise see its own
    snapshot), and the pool rolls it back when the connection is given back. On PostgreSQL
    the statements run in autocommit: each sees what was committed before it, as in the
    ``READ COMMITTED`` transaction the session would open, without the ``BEGIN`` and
    ``ROLLBACK`` round trips around it (two of a read's three). A driver error is raised as
    SQLAlchemy raises it (its ``DBAPIError`` subclass); a connection lost is invalidated."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._conn: PoolProxiedConnection | None = None
        self._plans = _plans(engine)
        self._closed = False
        self._autocommit = False
        self._keep = engine.dialect.driver == "psycopg"
        """Statements run on the connection's kept cursor (:func:`_kept_cursor`)."""

    def one(self, name: str, params: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """The first row of statement ``name`` (processed), or None."""
        plan = self._plans[name]
        raw = self._run(plan, params, all_rows=False)
        return None if raw is None else plan.row(raw)

    def many(self, name: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Every row of statement ``name`` (processed)."""
        plan = self._plans[name]
        return [plan.row(r) for r in self._run(plan, params, all_rows=True)]

    def _run(self, plan: _Plan, params: Mapping[str, Any], *, all_rows: bool) -> Any:
        """Run ``plan`` on the read's connection: its first row (or None), or every row."""
        conn = self._connection()
        try:
            keep = self._keep
            cursor = _kept_cursor(conn) if keep else conn.cursor()
            try:
                args = plan.args(params)
                if self.engine.dispatch.before_cursor_execute:  # a statement observer
                    self.engine.dispatch.before_cursor_execute(
                        None, cursor, plan.sql, args, None, False
                    )
                if self.engine.echo:
                    _SQL_LOG.info("%s %r (direct)", plan.sql, args)
                cursor.execute(plan.sql, args)
                return cursor.fetchall() if all_rows else cursor.fetchone()
            finally:
                if not keep:
                    cursor.close()
        except self.engine.dialect.loaded_dbapi.Error as exc:
            raise self._wrapped(exc, plan.sql, params) from exc

    def later(self, name: str) -> Later | None:
        """What converts the values statement ``name`` left as the driver gave them."""
        return self._plans[name].later

    def document(self, game_id: str, name: str, version: int) -> Any:
        """A state document of the game (``state``: as it was at ``version``;
        ``stored_state``: the same as :meth:`GameRecord.stored_state` gives it)."""
        if name in ("state", "stored_state"):
            return _state_at(game_id, version, self.one, self.many, chain=name != "state")
        row = self.one(name, {"game_id": game_id})
        if row is None:
            raise LookupError(f"no game {game_id!r}")
        return row[0]

    def _connection(self) -> PoolProxiedConnection:
        conn = self._conn
        if conn is not None:
            return conn
        if self._closed:  # e.g. a state document asked for after the read ended
            raise RuntimeError("a read's statement run after its transaction ended")
        dialect = self.engine.dialect
        try:
            conn = self.engine.raw_connection()
        except dialect.loaded_dbapi.Error as exc:
            raise sa_exc.DBAPIError.instance(
                None, None, exc, dialect.loaded_dbapi.Error, dialect=dialect
            ) from exc
        self._conn = conn
        try:
            if dialect.name == "sqlite":  # one snapshot for every statement of the read
                conn.driver_connection.execute("BEGIN")  # type: ignore[union-attr]
            else:  # each statement its own snapshot, as in a READ COMMITTED transaction
                conn.driver_connection.autocommit = True  # type: ignore[union-attr]
                self._autocommit = True
        except dialect.loaded_dbapi.Error as exc:
            raise self._wrapped(exc, "BEGIN", {}) from exc
        return conn

    def _wrapped(self, exc: Any, sql: str, params: Mapping[str, Any]) -> sa_exc.StatementError:
        dialect = self.engine.dialect
        conn, lost = self._conn, False
        if conn is not None and dialect.is_disconnect(exc, conn.dbapi_connection, None):
            conn.invalidate(exc)
            self._conn, lost = None, True
        return _driver_error(dialect, exc, sql, params, lost)

    def close(self) -> None:
        self._closed = True
        conn, self._conn = self._conn, None
        if conn is None:
            return
        if self._autocommit:  # as the pool hands its connections out
            self._autocommit = False
            try:
                conn.driver_connection.autocommit = False  # type: ignore[union-attr]
            except Exception as exc:  # a connection that cannot say where it is: not kept
                conn.invalidate(exc)
                return
        conn.close()  # back to the pool, which rolls a transaction back


class WouldWait(Exception):
    """An inline read (:class:`InlineReads`, on the event loop) met something that belongs in
    a worker thread: a statement other than the game row's (a cache miss: the board or a
    state document, and their parsing), a write or a session, or the database itself (busy,
    or any error of its own). Or an inline write (:class:`app.db.engine.LoopWriter`) could
    not begin without waiting, or met a state document or a board to read. Nothing was
    written; the caller runs the request again in a worker thread, where it goes as it
    always did."""


INLINE_STATEMENTS = frozenset({"read", "read_as"})
"""What an inline read may run: the game row, with the token's seat (:func:`_plans`)."""


class InlineReads(DirectReads):
    """:class:`DirectReads` on the calling thread's own SQLite connection
    (:class:`app.db.engine.LoopConnections`) that runs the game row's statement only: any
    other statement, and any error of the database, raises :class:`WouldWait` (the
    connection that failed is dropped). One ``BEGIN`` and a ``ROLLBACK`` at the end, as a
    pooled read does."""

    def __init__(self, engine: Engine, connections: LoopConnections) -> None:
        super().__init__(engine)
        self._source = connections

    def one(self, name: str, params: Mapping[str, Any]) -> tuple[Any, ...] | None:
        if name not in INLINE_STATEMENTS:
            raise WouldWait(f"statement {name!r}")
        return super().one(name, params)

    def many(self, name: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        raise WouldWait(f"statement {name!r}")

    def document(self, game_id: str, name: str, version: int) -> Any:
        raise WouldWait(f"document {name!r}")

    def _run(self, plan: _Plan, params: Mapping[str, Any], *, all_rows: bool) -> Any:
        try:
            return super()._run(plan, params, all_rows=all_rows)
        except sa_exc.StatementError as exc:  # the driver's error, as _wrapped made it
            self._lost()
            raise WouldWait("the database") from exc

    def _wrapped(self, exc: Any, sql: str, params: Mapping[str, Any]) -> sa_exc.StatementError:
        return _driver_error(self.engine.dialect, exc, sql, params, False)

    def _connection(self) -> PoolProxiedConnection:
        conn = self._conn
        if conn is not None:
            return conn
        if self._closed:
            raise RuntimeError("a read's statement run after its transaction ended")
        try:
            raw = self._source.get()
            raw.execute("BEGIN")  # one snapshot for the read, as a pooled read has
        except sqlite3.Error as exc:
            self._source.drop()
            raise WouldWait("the database") from exc
        self._conn = cast(PoolProxiedConnection, raw)  # what _run asks of it: cursor()
        return self._conn

    def _lost(self) -> None:
        self._conn = None
        self._source.drop()

    def close(self) -> None:
        self._closed = True
        conn, self._conn = self._conn, None
        if conn is None:
            return
        raw = cast(sqlite3.Connection, conn)
        try:
            if raw.in_transaction:
                raw.execute("ROLLBACK")
        except sqlite3.Error:
            self._source.drop()


@dataclass(frozen=True)
class TokenMatch:
    """What a token hash matched at one game: a seat (its name and stored hash) and/or a live
    spectator token (its stored hash); None where nothing matched."""

    seat: str | None
    seat_hash: str | None
    spectator_hash: str | None


class GameRepository:
    """Games, their scenario, seats and events, through one SQLAlchemy session."""

    def __init__(
        self,
        session: Session | None,
        direct: DirectReads | None = None,
        connection: Connection | None = None,
        session_of: Callable[[], Session] | None = None,
        stage: Callable[[str, int], None] | None = None,
        inline: bool = False,
    ) -> None:
        """``direct``: the transaction reads the game only, by :class:`DirectReads` (its
        session, None, may not be used). ``connection``: the connection of the transaction,
        as the unit of work began it (see :meth:`_connection`). ``session_of``: makes the
        session on first use (a write's, on that connection). ``stage(game, seq)``: announces
        an appended event once the transaction commits (else :func:`notify.stage` on the
        session). ``inline``: an inline write's (:class:`app.db.uow.SqlAlchemyUnitOfWork`):
        a state document or a board to read raises :class:`WouldWait`."""
        self._session = session
        self.direct = direct
        self._conn = connection
        self._session_of = session_of
        self._stage = stage
        self._detached = False
        """Its transaction has ended (:meth:`detach`)."""
        self._inline = inline
        self.in_driver_transaction = False
        """The unit of work began the write transaction on the driver (SQLite; see
        ``app.db.uow._begin_write``) and it is open: :meth:`_connection` is its connection
        though SQLAlchemy's ``Connection`` has not begun one."""

    def _connection(self) -> Connection:
        """The session's connection, for a Core statement in its transaction: the one the
        transaction began on while it is open (asking the session for it costs 15 us, three
        or four times a write), else the session's (a transaction begun after a commit)."""
        conn = self._conn
        if conn is not None and self.in_driver_transaction:
            if conn.invalidated or conn.closed:  # lost: its transaction is gone
                raise sa_exc.PendingRollbackError(
                    "the write's connection was lost: its transaction was rolled back"
                )
            return conn
        if conn is not None and not conn.closed and conn.in_transaction():
            return conn
        return self.session.connection()

    def _read(
        self, name: str, params: Mapping[str, Any], lock: bool
    ) -> tuple[Sequence[Any] | None, Later | None]:
        """The game row of read ``name`` (``read`` or ``read_as``, :func:`_plans`) and what
        converts its timestamps and option texts (:class:`Later`): a write's locked read
        (``lock``), the direct read on the driver where the engine has one, else the Core
        statement on the session's connection (no converter: the row's own types)."""
        if lock:
            return self._locked(f"{name}_locked", params)
        if self.direct is not None:
            return self.direct.one(name, params), self.direct.later(name)
        return self._connection().execute(_CORE_READS[name], params).first(), None

    def _locked(
        self, name: str, params: Mapping[str, Any]
    ) -> tuple[tuple[Any, ...] | None, Later | None]:
        """A write's locked read of its game (statement ``name`` of :func:`_plans`) on the
        driver, in the session's transaction: the row (processed as :class:`DirectReads`
        does) and what converts its timestamps and option texts."""
        conn = self._connection()
        plan = _plans(conn.engine)[name]
        raw = self._execute(conn, plan.sql, plan.args(params), params, fetch=True)
        row = None if raw is None else plan.row(cast(Sequence[Any], raw))
        return row, plan.later

    def _execute(
        self,
        conn: Connection,
        sql: str,
        args: Any,
        params: Mapping[str, Any],
        *,
        fetch: bool = False,
    ) -> Any:
        """Run ``sql`` on the driver's connection of ``conn`` (the session's, in its
        transaction): the first row with ``fetch``, else the row count. The engine's
        statement observers (``before_cursor_execute``) see it; a driver error is raised as
        SQLAlchemy raises it (its ``DBAPIError`` subclass: a lost race on a unique index is
        an ``IntegrityError``), a connection lost is invalidated."""
        engine = conn.engine
        dbapi = conn.connection
        dialect = engine.dialect
        try:
            keep = dialect.driver == "psycopg"
            cursor = _kept_cursor(dbapi) if keep else dbapi.cursor()
            try:
                if engine.dispatch.before_cursor_execute:
                    engine.dispatch.before_cursor_execute(conn, cursor, sql, args, None, False)
                if engine.echo:
                    _SQL_LOG.info("%s %r (driver)", sql, args)
                cursor.execute(sql, args)
                return cursor.fetchone() if fetch else int(cursor.rowcount)
            finally:
                if not keep:
                    cursor.close()
        except dialect.loaded_dbapi.Error as exc:
            lost = dialect.is_disconnect(exc, dbapi.dbapi_connection, None)
            if lost:
                conn.invalidate(exc)
            raise _driver_error(dialect, exc, sql, params, lost) from exc

    def _on_driver(
        self, key: Any, make: Callable[[Dialect], _Write], params: Mapping[str, Any]
    ) -> int:
        """Run a write statement (:class:`_Write`, made once per engine and ``key``) on the
        driver's connection in the session's transaction; its row count. The engine's
        statement observers (``before_cursor_execute``) see it; a driver error is raised as
        SQLAlchemy raises it (its ``DBAPIError`` subclass: a lost race on a unique index is
        an ``IntegrityError``), a connection lost is invalidated."""
        conn = self._connection()
        plan = _write_plan(conn.engine, key, make)
        return int(self._execute(conn, plan.sql, plan.args(params), params))

    def detach(self) -> None:
        """Forget the unit of work's ``session_of`` and ``stage`` (and the write's session)
        once its transaction has ended. Both refer back to the unit of work, which refers to
        this repository: left in place, every write left one such cycle behind, which only
        the garbage collector could free -- tens of thousands of objects freed at once in a
        young collection, 20-40 ms every few thousand writes, the submissions' p99
        (docs/PERFORMANCE.md, issue 28, session 18). Freed by reference counting instead,
        with the request."""
        self._session_of = None
        self._stage = None
        self._session = None  # the write's, closed with it
        self._detached = True

    @property
    def session(self) -> Session:
        if self._session is None and self._session_of is not None:
            self._session = self._session_of()
        if self._session is None:
            if self._detached:
                raise RuntimeError("unit of work used outside its `with` block")
            raise RuntimeError(
                "this read transaction reads its game only (uow.begin(direct=True)): "
                "it has no session"
            )
        return self._session

    def _document(self, game_id: str, name: str, version: int) -> Any:
        """A state document of the game read in this transaction (see :class:`GameRecord`;
        the state as it was at ``version``). Never read inline or in a loop call: reading
        and parsing it is a worker thread's."""
        if self._inline or on_loop():
            raise WouldWait(f"document {name!r}")
        if self.direct is not None:
            return self.direct.document(game_id, name, version)
        conn = self._conn
        in_write = (
            conn is not None
            and not conn.closed
            and (self.in_driver_transaction or conn.in_transaction())
        )
        if not in_write and not self.session.in_transaction():
            raise RuntimeError(
                f"games.{name} of {game_id} read after its transaction ended (it is read on "
                "first access, inside the transaction that read the game)"
            )
        if name in ("state", "stored_state"):
            return _state_at(game_id, version, self._one, self._many, chain=name != "state")
        return self._connection().execute(_DOCUMENT[name], {"game_id": game_id}).scalar_one()

    def stored_state(self, game_id: str, version: int) -> dict[str, Any] | str | deltas.StoredChain:
        """The state of ``game_id`` at ``version`` as :meth:`GameRecord.stored_state` gives
        it (its stored text where the row holds it whole, else its document rebuilt from the
        deltas), read in this transaction: for a game row read otherwise (an ORM
        :class:`GameRow`, whose ``state`` column alone is not the current state once
        ``state_seq`` is set)."""
        return cast(
            dict[str, Any] | str | deltas.StoredChain,
            self._document(game_id, "stored_state", version),
        )

    def chain_weight(self, game_id: str) -> tuple[int, int]:
        """The weight of ``game_id``'s chain in this transaction: the length of the deltas'
        JSON texts written since the snapshot the game row holds, and that snapshot's text
        (:func:`app.db.deltas.snapshot_by_weight`; read at a checkpoint, 1 write in 32)."""
        found = self._connection().execute(_CHAIN_WEIGHT, {"game_id": game_id}).one()
        return int(found[0] or 0), int(found[1] or 0)

    def _one(self, name: str, params: Mapping[str, Any]) -> Sequence[Any] | None:
        return self._connection().execute(_DOCUMENT[name], params).first()

    def _many(self, name: str, params: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
        return self._connection().execute(_CHAINS[name], params).all()

    # -- create ---------------------------------------------------------------------------

    def add(self, scenario: ScenarioRow, game: GameRow, seats: Sequence[SeatRow]) -> None:
        """Stage a new game with its scenario and seats."""
        self.session.add(scenario)
        self.session.flush()
        self.session.add(game)
        self.session.flush()
        self.session.add_all(seats)
        self.session.flush()

    # -- read -----------------------------------------------------------------------------

    def get(self, game_id: str, *, lock: bool = False) -> tuple[GameFields, str] | None:
        """The game's current row (a :class:`GameRecord`) and its board digest (the board
        JSON is not loaded).

        ``lock`` (write transactions): ``SELECT ... FOR UPDATE`` of the game row on
        PostgreSQL, so concurrent writes of one game queue here and each reads the version
        the one before it committed (SQLite's ``BEGIN IMMEDIATE`` already serializes them).
        Read with a Core statement on the session's connection: a write changes its game
        with Core statements too (:meth:`advance`), never through an ORM entity, and the
        ORM's entity loading was a sixth of a small submission's CPU (docs/PERFORMANCE.md,
        issue 28, session 10)."""
        found, later = self._read("read", {"game_id": game_id}, lock)
        if found is None:
            return None
        return GameRecord(found, self._document, later), found[_FIELDS]

    def get_as(
        self, game_id: str, token_hash: str, *, lock: bool = False
    ) -> tuple[GameFields, str, TokenMatch, bool] | None:
        """:meth:`get` and, in the same query, who holds ``token_hash`` at the game and
        whether the game has any webhook or confirmed email subscription (a write with
        neither skips the outbox queries).

        Seat and live spectator tokens are found by index on their hash
        (``ix_seats_game_id_token_hash``, ``ix_access_tokens_token_hash``), read afresh on
        every request: a rotated or revoked token is refused from the commit that changed it
        on, in every process."""
        params = {"game_id": game_id, "token_hash": token_hash}
        found, later = self._read("read_as", params, lock)  # locked: a write's (see :meth:`get`)
        if found is None:
            return None
        n = _FIELDS
        return (
            GameRecord(found, self._document, later),
            found[n],
            TokenMatch(found[n + 1], found[n + 2], found[n + 3]),
            bool(found[n + 4]),
        )

    def holder(self, game_id: str, token_hash: str) -> TokenMatch | None:
        """Who holds ``token_hash`` at the game now (None: no such game): the credential
        part of :meth:`get_as` alone, read afresh, for streams re-checking theirs."""
        row = self.session.execute(_HOLDER, {"game_id": game_id, "token_hash": token_hash}).first()
        return None if row is None else TokenMatch(row[1], row[2], row[3])

    def board_json(self, scenario_id: str) -> dict[str, Any]:
        """The stored board document of a scenario (read on a board-cache miss only; never
        inline or in a loop call: reading and parsing it is a worker thread's)."""
        if self._inline or on_loop():
            raise WouldWait("a board")
        if self.direct is not None:
            row = self.direct.one("board", {"sid": scenario_id})
            if row is None:
                raise LookupError(f"no scenario {scenario_id!r}")
            return dict(row[0])
        stmt = select(ScenarioRow.board).where(ScenarioRow.id == scenario_id)
        return dict(self.session.execute(stmt).scalar_one())

    def scenario(self, scenario_id: str) -> ScenarioRow:
        return self.session.get_one(ScenarioRow, scenario_id)

    def seats(self, game_id: str) -> list[SeatRow]:
        """Every seat of a game (a handful: one per side plus the umpire)."""
        stmt = select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.id)
        return list(self.session.execute(stmt).scalars())

    def event_by_key(self, game_id: str, seat: str, key: str) -> EventRow | None:
        """The event ``seat`` appended with Idempotency-Key ``key`` (keys are per seat)."""
        stmt = select(EventRow).where(
            EventRow.game_id == game_id, EventRow.seat == seat, EventRow.idempotency_key == key
        )
        return self.session.execute(stmt).scalars().first()

    def events(self, game_id: str, *, after: int, limit: int) -> list[EventRow]:
        stmt = (
            select(EventRow)
            .where(EventRow.game_id == game_id, EventRow.seq > after)
            .order_by(EventRow.seq)
            .limit(limit)
        )
        return list(self.session.execute(stmt).scalars())

    def event(self, game_id: str, seq: int) -> EventRow | None:
        stmt = select(EventRow).where(EventRow.game_id == game_id, EventRow.seq == seq)
        return self.session.execute(stmt).scalars().first()

    def state_after(
        self, game_id: str, seq: int, initial: Mapping[str, Any] | None
    ) -> dict[str, Any] | None:
        """The state event ``seq`` left (``seq`` 0: ``initial``, the game's initial state),
        as the database hands a stored document back; None when it was not kept. Rebuilt
        from the nearest snapshot at or before ``seq`` and the deltas after it
        (:mod:`app.db.deltas`): one query, at most N rows (a snapshot every N events)."""
        if seq <= 0:
            return dict(initial) if initial is not None else None
        # the chain starts at the last event without a delta: a snapshot, or an event that
        # kept no state (its JSON ``null``; the states after it are then not kept either)
        rows = self.session.execute(_CHAIN_FROM_SNAPSHOT, {"game_id": game_id, "upto": seq}).all()
        if not rows or rows[-1][0] != seq or rows[-1][0] - rows[0][0] != len(rows) - 1:
            return None
        if rows[0][1] is None and rows[0][0] != 1:
            return None  # no snapshot before it, and the log does not start here
        return self._rebuilt(initial, [(r[1], r[2]) for r in rows])[-1]

    def states_after(
        self, game_id: str, rows: Sequence[EventRow], initial: Mapping[str, Any] | None
    ) -> list[dict[str, Any] | None]:
        """The state each of ``rows`` left (consecutive events, oldest first, as
        :meth:`events` pages them), in one pass: what an export, an audit or an upgrade's
        replay reads for the whole log."""
        if not rows:
            return []
        first = rows[0].seq
        base = initial if first == 1 else self.state_after(game_id, first - 1, initial)
        return self._rebuilt(base, [(r.state_after, r.state_delta) for r in rows])

    def _rebuilt(
        self,
        base: Mapping[str, Any] | None,
        stored: Sequence[tuple[dict[str, Any] | None, dict[str, Any] | None]],
    ) -> list[dict[str, Any] | None]:
        return deltas.rebuild(base, stored)

    def count_events(self, game_id: str) -> int:
        stmt = select(func.count()).select_from(EventRow).where(EventRow.game_id == game_id)
        return int(self.session.execute(stmt).scalar_one())

    # -- write ----------------------------------------------------------------------------

    def advance(
        self,
        game_id: str,
        *,
        expected_version: int,
        state: dict[str, Any] | None,
        status: str,
        now: datetime | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> bool:
        """Move the game on if it is still at ``expected_version``.

        One conditional ``UPDATE ... WHERE version = :expected``: of two concurrent writers
        holding the same version exactly one matches a row; the other gets ``False``.
        ``extra`` sets further game columns in the same statement (``dice_counter``,
        ``clock``, ``winner``, ``seed_revealed``), so they change atomically with the version.

        ``state``: the new state whole, written to the row. None: the write's event stores
        the change as a delta (``events.state_delta``, appended in the same transaction), and
        the row keeps the state it holds -- its ``state_seq`` then names the event whose state
        that is, and a reader rebuilds the current state from it and the deltas after it
        (:func:`_state_at`). A write then does not rewrite a state-sized column for a
        one-unit change (issue 28 item 3)."""
        params, columns, whole = _advance_params(
            game_id, expected_version, state, status, now, extra
        )
        stmt = _advance_statement(columns, whole)
        key = ("advance", columns, whole)
        return self._on_driver(key, lambda d: _Write(stmt, d), params) == 1

    def advance_with_event(
        self,
        game_id: str,
        event: NewEvent,
        *,
        expected_version: int,
        state: dict[str, Any] | None,
        status: str,
        now: datetime | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> bool:
        """:meth:`advance` and, if it moved the game on, :meth:`append_event` of ``event``:
        False (and nothing written) when the game is no longer at ``expected_version``.

        On PostgreSQL, in a write transaction of the unit of work (its connection, and
        ``stage`` to note the event for this process's wake-ups), this is one statement
        (:func:`_advance_with_event_statement`: the ``UPDATE``, the ``INSERT`` and
        ``pg_notify``), one round trip where they were three: a lost race still matches no
        row and writes nothing, a duplicate Idempotency-Key is still the ``IntegrityError``
        of the unique index, and the notification is still delivered by the commit only.
        Elsewhere (SQLite) the two statements, as they were."""
        if self._stage is None or self._conn is None or self._conn.dialect.name != "postgresql":
            if not self.advance(
                game_id,
                expected_version=expected_version,
                state=state,
                status=status,
                now=now,
                extra=extra,
            ):
                return False
            self.append_event(event)
            return True
        params, columns, whole = _advance_params(
            game_id, expected_version, state, status, now, extra
        )
        for name, value in _event_values(event).items():
            params[f"e_{name}"] = value
        params.update(notify.message(event.game_id, event.seq))
        key = ("advance+event", columns, whole)

        def plan(dialect: Dialect) -> _Write:
            return _Write(_advance_with_event_statement(columns, whole), dialect)

        if self._on_driver(key, plan, params) != 1:
            return False  # the game moved on: no row updated, no event, no notification
        self._stage(event.game_id, event.seq)
        return True

    def append_event(self, event: EventRow | NewEvent) -> None:
        """Stage an event; readers are woken when (and only if) the transaction commits:
        ``pg_notify`` on PostgreSQL (every process), after-commit callbacks in this process
        (see :mod:`app.db.notify`). One Core ``INSERT`` on the session's connection (the
        ORM's statement machinery is not needed for it); in a write transaction of the unit
        of work the ``pg_notify`` runs on the driver too, and ``stage`` notes the event."""
        values = _event_values(event)
        keys = tuple(values)
        self._on_driver(("event", keys), lambda d: _Write(_INSERT_EVENT, d, list(keys)), values)
        if self._stage is None:
            notify.stage(self.session, event.game_id, event.seq)
            return
        if self._connection().dialect.name == "postgresql":
            message = notify.message(event.game_id, event.seq)
            self._on_driver("notify", lambda d: _Write(_NOTIFY, d), message)
        self._stage(event.game_id, event.seq)

    def set_response(self, event: EventRow | NewEvent, body: str) -> None:
        """Store the answer of an appended event's request once it is known (the event row
        is written at once, not tracked by the session: this is its one later change)."""
        event.response = body
        table = cast(Table, EventRow.__table__)
        self.session.execute(
            update(table)
            .where(table.c.game_id == event.game_id, table.c.seq == event.seq)
            .values(response=body)
        )
