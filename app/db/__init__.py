"""Persistence: SQLAlchemy models, the game repository and the unit of work."""

from __future__ import annotations

from app.db.engine import make_engine, make_session_factory, normalize_url
from app.db.uow import AbstractUnitOfWork, SqlAlchemyUnitOfWork

__all__ = [
    "AbstractUnitOfWork",
    "SqlAlchemyUnitOfWork",
    "make_engine",
    "make_session_factory",
    "normalize_url",
]
