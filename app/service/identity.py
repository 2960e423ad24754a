"""Who a bearer token is at one game: a seat (a side or the umpire) or a spectator.

Seat tokens are issued by ``POST /games``; spectator tokens (read-only) are minted by a seat
(:mod:`app.service.access`). Both are stored only as SHA-256 hashes. :func:`identify` compares
the presented token's hash in constant time with every seat and every live spectator token of
the game, without stopping at a match. The reads of a game (:func:`identity_of`) find the
token by an index on its hash in the same query as the game row, and confirm the match in
constant time: what an index look-up's timing could tell is about the hash of the guess, and
a stored hash is no use without a preimage of 256 random bits.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.db.access import access
from app.db.models import GameFields
from app.db.repository import TokenMatch
from app.db.uow import AbstractUnitOfWork
from app.service.errors import Forbidden, Unauthenticated
from app.service.tokens import hash_token, same_hash


@dataclass(frozen=True)
class Identity:
    """``seat`` is a side or ``umpire``; a spectator has no seat and may only read."""

    seat: str | None
    spectator: bool = False


def identify(uow: AbstractUnitOfWork, game: GameFields, token: str) -> Identity:
    """The identity ``token`` holds at ``game``; 401 if it holds none (or was revoked)."""
    presented = hash_token(token)
    seat: str | None = None
    for row in uow.games.seats(game.id):
        if same_hash(row.token_hash, presented):
            seat = row.seat
    spectator = False
    for token_row in access(uow).live_tokens(game.id):
        if same_hash(token_row.token_hash, presented):
            spectator = True
    if seat is not None:
        return Identity(seat)
    if spectator:
        return Identity(None, spectator=True)
    raise Unauthenticated("the token is not a seat of this game")


def identity_of(presented: str, match: TokenMatch) -> Identity:
    """The identity of a token whose hash ``presented`` was looked up by index (``match``,
    from :meth:`GameRepository.get_as`), each match confirmed in constant time; 401 if none."""
    if match.seat is not None and same_hash(match.seat_hash or "", presented):
        return Identity(match.seat)
    if match.spectator_hash is not None and same_hash(match.spectator_hash, presented):
        return Identity(None, spectator=True)
    raise Unauthenticated("the token is not a seat of this game")


def require_seat(identity: Identity) -> str:
    """The seat of a writer; a spectator token is read-only (403)."""
    if identity.seat is None:
        raise Forbidden(
            "this is a read-only spectator token: it cannot write", code="token.read_only"
        )
    return identity.seat
