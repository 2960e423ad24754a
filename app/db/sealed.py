"""Queries on sealed orders (table ``sealed_orders``), through the unit of work's session."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CursorResult, delete, or_, select, update
from sqlalchemy.orm import Session

from app.db.models import SealedOrderRow
from app.db.uow import AbstractUnitOfWork


class SealedOrderRepository:
    """Sealed orders of games. A reveal stamps ``revealed_at``; a rollback to before an
    unrevealed order deletes it (:meth:`withdraw`): it is never revealed, and its side may
    submit again. Revealed orders are never deleted."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def for_game(self, game_id: str) -> list[SealedOrderRow]:
        """Every sealed order of a game, in order of receipt."""
        stmt = (
            select(SealedOrderRow)
            .where(SealedOrderRow.game_id == game_id)
            .order_by(SealedOrderRow.id)
        )
        return list(self.session.execute(stmt).scalars())

    def for_decision(self, game_id: str, decision: str) -> list[SealedOrderRow]:
        """Orders of every instance of a decision: key ``decision`` or ``decision#<n>``."""
        stmt = (
            select(SealedOrderRow)
            .where(
                SealedOrderRow.game_id == game_id,
                or_(
                    SealedOrderRow.decision == decision,
                    SealedOrderRow.decision.startswith(decision + "#", autoescape=True),
                ),
            )
            .order_by(SealedOrderRow.id)
        )
        return list(self.session.execute(stmt).scalars())

    def add(self, row: SealedOrderRow) -> None:
        self.session.add(row)
        self.session.flush()

    def mark_revealed(self, game_id: str, key: str, when: datetime) -> int:
        """Stamp every unrevealed order of one decision instance; returns how many."""
        stmt = (
            update(SealedOrderRow)
            .where(
                SealedOrderRow.game_id == game_id,
                SealedOrderRow.decision == key,
                SealedOrderRow.revealed_at.is_(None),
            )
            .values(revealed_at=when)
            .execution_options(synchronize_session=False)
        )
        result = self.session.execute(stmt)
        assert isinstance(result, CursorResult)
        return int(result.rowcount)

    def withdraw(self, game_id: str, key: str, seat: str) -> int:
        """Delete ``seat``'s unrevealed order of one decision instance; returns how many."""
        stmt = (
            delete(SealedOrderRow)
            .where(
                SealedOrderRow.game_id == game_id,
                SealedOrderRow.decision == key,
                SealedOrderRow.seat == seat,
                SealedOrderRow.revealed_at.is_(None),
            )
            .execution_options(synchronize_session=False)
        )
        result = self.session.execute(stmt)
        assert isinstance(result, CursorResult)
        return int(result.rowcount)


def sealed_orders(uow: AbstractUnitOfWork) -> SealedOrderRepository:
    """The sealed-order repository of an open unit of work (shares its transaction)."""
    return SealedOrderRepository(uow.games.session)
