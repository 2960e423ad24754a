"""The game repository: every query the service needs, and nothing else."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, Update, bindparam, func, insert, or_, select, update
from sqlalchemy.orm import Session, defer
from sqlalchemy.sql.elements import BindParameter

from app.db import deltas, notify
from app.db.models import (
    AccessTokenRow,
    EmailSubscriptionRow,
    EventRow,
    GameRow,
    NewEvent,
    ScenarioRow,
    SeatRow,
    WebhookRow,
    utcnow,
)

# The statements of every request, built once (building loader options per call costs more
# than running the query). The (large) state documents are deferred: they load on first
# access only, and the service keeps parsed states per game version, so most requests never
# read them.
_GET = (
    select(GameRow, ScenarioRow.digest)
    .join(ScenarioRow, ScenarioRow.id == GameRow.scenario_id)
    .where(GameRow.id == bindparam("game_id"))
    .options(defer(GameRow.state), defer(GameRow.initial_state))
)
_GET_LOCKED = _GET.with_for_update(of=GameRow)
_TOKEN: BindParameter[str] = bindparam("token_hash")
_GET_AS = (
    select(
        GameRow,
        ScenarioRow.digest,
        SeatRow.seat,
        SeatRow.token_hash,
        AccessTokenRow.token_hash,
        or_(
            select(WebhookRow.id).where(WebhookRow.game_id == GameRow.id).exists(),
            select(EmailSubscriptionRow.id)
            .where(
                EmailSubscriptionRow.game_id == GameRow.id,
                EmailSubscriptionRow.status == "confirmed",
            )
            .exists(),
        ),
    )
    .join(ScenarioRow, ScenarioRow.id == GameRow.scenario_id)
    .outerjoin(SeatRow, (SeatRow.game_id == GameRow.id) & (SeatRow.token_hash == _TOKEN))
    .outerjoin(
        AccessTokenRow,
        (AccessTokenRow.game_id == GameRow.id)
        & (AccessTokenRow.token_hash == _TOKEN)
        & AccessTokenRow.revoked_at.is_(None),
    )
    .where(GameRow.id == bindparam("game_id"))
    .options(defer(GameRow.state), defer(GameRow.initial_state))
    .limit(1)
)
_GET_AS_LOCKED = _GET_AS.with_for_update(of=GameRow)
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
batch (the same index look-ups as :data:`_GET_AS`)."""
_INSERT_EVENT = insert(cast(Table, EventRow.__table__))
_EVENT_COLUMNS = tuple(c for c in EventRow.__table__.columns if c.key != "id")
_ADVANCES: dict[frozenset[str], Update] = {}
"""The conditional UPDATE of :meth:`GameRepository.advance`, built once per set of extra
columns it sets (a handful: dice counter and clock, winner, seed...)."""


def _advance_statement(extra: frozenset[str]) -> Update:
    stmt = _ADVANCES.get(extra)
    if stmt is None:
        table = cast(Table, GameRow.__table__)
        stmt = (
            update(table)
            .where(table.c.id == bindparam("p_id"), table.c.version == bindparam("p_expected"))
            .values(
                {
                    name: bindparam(f"p_{name}")
                    for name in ("version", "state", "status", "updated_at", *sorted(extra))
                }
            )
        )
        _ADVANCES[extra] = stmt
    return stmt


def jsonb_order(doc: Any) -> Any:
    """``doc`` as PostgreSQL's ``jsonb`` gives it back: every object's keys shorter first, keys
    of one length by their UTF-8 bytes; and a float Python writes with an exponent of 16 or
    more (``1e+16``) read back as the integer ``jsonb`` prints for it."""
    if type(doc) is float and abs(doc) >= 1e16 and doc.is_integer():
        return int(doc)
    if isinstance(doc, dict):
        keys = sorted(doc, key=lambda k: (len(k.encode()), k.encode()))
        return {k: jsonb_order(doc[k]) for k in keys}
    if isinstance(doc, list):
        return [jsonb_order(v) for v in doc]
    return doc


def _jsonb_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len(pairs) > 1:
        pairs.sort(key=lambda kv: (len(kv[0].encode()), kv[0].encode()))
    return dict(pairs)


def _jsonb_float(text: str) -> float | int:
    value = float(text)
    return int(value) if abs(value) >= 1e16 and value.is_integer() else value


def _jsonb_reorder(doc: dict[str, Any]) -> dict[str, Any]:
    """One object's keys in ``jsonb``'s order (its values are already in order)."""
    return _jsonb_object(list(doc.items()))


def jsonb_loads(text: str) -> Any:
    """``jsonb_order(json.loads(text))`` in one pass of the C parser (the objects are put in
    order as they are made, and no Python call is made per scalar)."""
    return json.loads(text, object_pairs_hook=_jsonb_object, parse_float=_jsonb_float)


@dataclass(frozen=True)
class TokenMatch:
    """What a token hash matched at one game: a seat (its name and stored hash) and/or a live
    spectator token (its stored hash); None where nothing matched."""

    seat: str | None
    seat_hash: str | None
    spectator_hash: str | None


class GameRepository:
    """Games, their scenario, seats and events, through one SQLAlchemy session."""

    def __init__(self, session: Session) -> None:
        self.session = session

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

    def get(self, game_id: str, *, lock: bool = False) -> tuple[GameRow, str] | None:
        """The game's current row and its board digest (the board JSON is not loaded).

        ``lock`` (write transactions): ``SELECT ... FOR UPDATE`` of the game row on
        PostgreSQL, so concurrent writes of one game queue here and each reads the version
        the one before it committed (SQLite's ``BEGIN IMMEDIATE`` already serializes them)."""
        stmt = _GET_LOCKED if lock else _GET
        row = self.session.execute(stmt, {"game_id": game_id}).first()
        if row is None:
            return None
        return row[0], row[1]

    def get_as(
        self, game_id: str, token_hash: str, *, lock: bool = False
    ) -> tuple[GameRow, str, TokenMatch, bool] | None:
        """:meth:`get` and, in the same query, who holds ``token_hash`` at the game and
        whether the game has any webhook or confirmed email subscription (a write with
        neither skips the outbox queries).

        Seat and live spectator tokens are found by index on their hash
        (``ix_seats_game_id_token_hash``, ``ix_access_tokens_token_hash``), read afresh on
        every request: a rotated or revoked token is refused from the commit that changed it
        on, in every process."""
        stmt = _GET_AS_LOCKED if lock else _GET_AS
        row = self.session.execute(stmt, {"game_id": game_id, "token_hash": token_hash}).first()
        if row is None:
            return None
        return row[0], row[1], TokenMatch(row[2], row[3], row[4]), bool(row[5])

    def holder(self, game_id: str, token_hash: str) -> TokenMatch | None:
        """Who holds ``token_hash`` at the game now (None: no such game): the credential
        part of :meth:`get_as` alone, read afresh, for streams re-checking theirs."""
        row = self.session.execute(_HOLDER, {"game_id": game_id, "token_hash": token_hash}).first()
        return None if row is None else TokenMatch(row[1], row[2], row[3])

    def board_json(self, scenario_id: str) -> dict[str, Any]:
        """The stored board document of a scenario (read on a board-cache miss only)."""
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
        (:mod:`app.db.deltas`): one query, at most ``REFEREE_SNAPSHOT_EVERY`` rows."""
        if seq <= 0:
            return dict(initial) if initial is not None else None
        table = cast(Table, EventRow.__table__)
        # the chain starts at the last event without a delta: a snapshot, or an event that
        # kept no state (its JSON ``null``; the states after it are then not kept either)
        nearest = (
            select(func.coalesce(func.max(table.c.seq), 0))
            .where(
                table.c.game_id == game_id,
                table.c.seq <= seq,
                table.c.state_delta.is_(None),
            )
            .scalar_subquery()
        )
        stmt = (
            select(table.c.seq, table.c.state_after, table.c.state_delta)
            .where(table.c.game_id == game_id, table.c.seq <= seq, table.c.seq >= nearest)
            .order_by(table.c.seq)
        )
        rows = self.session.execute(stmt).all()
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
        reorder = None if self.keeps_documents() else _jsonb_reorder
        return deltas.rebuild(base, stored, reorder)

    def count_events(self, game_id: str) -> int:
        stmt = select(func.count()).select_from(EventRow).where(EventRow.game_id == game_id)
        return int(self.session.execute(stmt).scalar_one())

    # -- write ----------------------------------------------------------------------------

    def advance(
        self,
        game_id: str,
        *,
        expected_version: int,
        state: dict[str, Any],
        status: str,
        now: datetime | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> bool:
        """Store a new state if the game is still at ``expected_version``.

        One conditional ``UPDATE ... WHERE version = :expected``: of two concurrent writers
        holding the same version exactly one matches a row; the other gets ``False``.
        ``extra`` sets further game columns in the same statement (``dice_counter``,
        ``clock``, ``winner``, ``seed_revealed``), so they change atomically with the version.
        """
        extra = dict(extra or {})
        params = {
            "p_id": game_id,
            "p_expected": expected_version,
            "p_version": expected_version + 1,
            "p_state": state,
            "p_status": status,
            "p_updated_at": now or utcnow(),
            **{f"p_{name}": value for name, value in extra.items()},
        }
        stmt = _advance_statement(frozenset(extra))
        result = self.session.connection().execute(stmt, params)  # Core: no ORM machinery
        return result.rowcount == 1

    def append_event(self, event: EventRow | NewEvent) -> None:
        """Stage an event; readers are woken when (and only if) the transaction commits:
        ``pg_notify`` on PostgreSQL (every process), after-commit callbacks in this process
        (see :mod:`app.db.notify`). One Core ``INSERT`` on the session's connection (the
        ORM's statement machinery is not needed for it)."""
        if isinstance(event, NewEvent):
            values = event.values()
        else:
            values = {c.key: getattr(event, c.key) for c in _EVENT_COLUMNS}
        if values["created_at"] is None:
            values["created_at"] = utcnow()
        self.session.connection().execute(_INSERT_EVENT, values)
        notify.stage(self.session, event.game_id, event.seq)

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

    def keeps_documents(self) -> bool:
        """True when a JSON document comes back from this database as it was written
        (SQLite keeps the text); False on PostgreSQL (``jsonb`` reorders object keys)."""
        return self.session.get_bind().dialect.name != "postgresql"

    def stored_text_as_read(self, text: str) -> dict[str, Any]:
        """The document of a JSON ``text`` this session wrote, as the database will hand it
        back (see :meth:`as_stored`), parsed from the text."""
        doc = jsonb_loads(text) if not self.keeps_documents() else json.loads(text)
        assert isinstance(doc, dict)
        return doc

    def as_stored(self, doc: dict[str, Any]) -> dict[str, Any]:
        """A JSON document as this database will hand it back once stored: the same on
        SQLite (the text is kept), keys reordered on PostgreSQL (``jsonb``)."""
        if self.session.get_bind().dialect.name == "postgresql":
            return dict(jsonb_order(doc))
        return doc
