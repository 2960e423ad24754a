"""The game repository: every query the service needs, and nothing else."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import CursorResult, bindparam, func, select, update
from sqlalchemy.orm import Session, defer
from sqlalchemy.sql.elements import BindParameter

from app.db import notify
from app.db.models import (
    AccessTokenRow,
    EventRow,
    GameRow,
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
        select(WebhookRow.id).where(WebhookRow.game_id == GameRow.id).exists(),
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
        whether the game has any webhook (a write with none skips the outbox query).

        Seat and live spectator tokens are found by index on their hash
        (``ix_seats_game_id_token_hash``, ``ix_access_tokens_token_hash``), read afresh on
        every request: a rotated or revoked token is refused from the commit that changed it
        on, in every process."""
        stmt = _GET_AS_LOCKED if lock else _GET_AS
        row = self.session.execute(stmt, {"game_id": game_id, "token_hash": token_hash}).first()
        if row is None:
            return None
        return row[0], row[1], TokenMatch(row[2], row[3], row[4]), bool(row[5])

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
        stmt = (
            update(GameRow)
            .where(GameRow.id == game_id, GameRow.version == expected_version)
            .values(
                version=expected_version + 1,
                state=state,
                status=status,
                updated_at=now or utcnow(),
                **dict(extra or {}),
            )
            .execution_options(synchronize_session=False)
        )
        result = self.session.execute(stmt)
        assert isinstance(result, CursorResult)
        return result.rowcount == 1

    def append_event(self, event: EventRow) -> None:
        """Stage an event; readers are woken when (and only if) the transaction commits:
        ``pg_notify`` on PostgreSQL (every process), after-commit callbacks in this process
        (see :mod:`app.db.notify`)."""
        self.session.add(event)
        self.session.flush()
        notify.stage(self.session, event.game_id, event.seq)
