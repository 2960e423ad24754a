"""The games a set of bearer tokens holds: ``GET /games`` and the multi-game event stream.

A client presents one or more tokens (each a seat or spectator token of one game). Each is
looked up by its SHA-256 through an index and the match is confirmed with a constant-time
comparison; a token that holds nothing (wrong, rotated or revoked) is a 401 naming which
one, so a bot notices a stale token at once. Every (game, seat) a token holds is one
*holding*; two seats of one game are two holdings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, Field

from app.db.access import access
from app.db.models import GameRow
from app.db.sealed import sealed_orders
from app.db.uow import AbstractUnitOfWork
from app.rules.base import UMPIRE
from app.service import match as mt
from app.service.boards import BoardCache
from app.service.errors import FieldError, InvalidInput, Unauthenticated
from app.service.pipeline import aware_utc, game_from_row, guard, turn_of
from app.service.results import PositionView
from app.service.sealed import current_instance
from app.service.tokens import hash_token, same_hash
from app.service.turns import awaited

SPECTATOR = "spectator"


@dataclass(frozen=True)
class Holding:
    game: GameRow
    seat: str | None
    """A side or ``umpire``; None for a spectator token."""
    digest: str
    """The game's board digest (the board cache key)."""
    token_hash: str = ""
    """The hash of the token that holds it (streams re-check it on every batch)."""

    @property
    def key(self) -> str:
        """``<game id>/<seat>`` (``-`` for a spectator): stable, sortable, cursor-safe."""
        return f"{self.game.id}/{self.seat or '-'}"


class GameSummary(BaseModel):
    id: str
    ruleset: str
    ruleset_version: str
    status: str
    public: bool
    seat: str | None = Field(description="The seat held; null for a spectator token.")
    scope: str = Field(description="`seat` or `spectator`.")
    version: int
    position: PositionView | None = None
    waiting_for: list[str] = Field(
        description="Seats the game waits for: the sides of the current phase and those "
        "yet to submit an open sealed order; empty once finished."
    )
    my_turn: bool = Field(description="This seat is among `waiting_for`.")
    winner: str | None = None
    created_at: datetime
    updated_at: datetime


class GameList(BaseModel):
    items: list[GameSummary]
    next: str | None = Field(
        description="Pass as `after` for the next page; null on the last page."
    )


def too_many_tokens(limit: int) -> InvalidInput:
    """The refusal of a request presenting more than ``limit`` tokens (422)."""
    return InvalidInput(
        f"present at most {limit} tokens",
        [FieldError("/Referee-Tokens", f"more than {limit} tokens", "too_long", "header")],
        code="auth.too_many_tokens",
    )


def holdings(uow: AbstractUnitOfWork, tokens: Sequence[str], *, limit: int) -> list[Holding]:
    """Inside an open transaction: every holding of ``tokens``, sorted by key."""
    if not tokens:
        raise Unauthenticated(
            "present one or more tokens (Authorization: Bearer, Referee-Tokens)",
            code="auth.required",
        )
    unique = list(dict.fromkeys(tokens))
    if len(unique) > limit:
        raise too_many_tokens(limit)
    hashes = [hash_token(t) for t in unique]
    repo = access(uow)
    seats = repo.seats_by_hashes(hashes)
    spectators = repo.spectators_by_hashes(hashes)
    found: dict[str, Holding] = {}
    matched: set[int] = set()
    for index, presented in enumerate(hashes):
        for seat, game, digest in seats:
            if same_hash(seat.token_hash, presented):
                matched.add(index)
                h = Holding(game, seat.seat, digest, presented)
                found[h.key] = h
        for token, game, digest in spectators:
            if same_hash(token.token_hash, presented):
                matched.add(index)
                h = Holding(game, None, digest, presented)
                found[h.key] = h
    missing = [i + 1 for i in range(len(hashes)) if i not in matched]
    if missing:
        raise Unauthenticated(
            f"token(s) {missing} of {len(hashes)} (in the order presented) hold no seat",
            code="auth.invalid_token",
            tokens=missing,
        )
    return [found[k] for k in sorted(found)]


def _waiting(uow: AbstractUnitOfWork, holding: Holding, boards: BoardCache) -> GameSummary:
    game = game_from_row(uow, holding.game, holding.digest, boards)  # the row is read already
    active = game.row.status == "active"
    submitted: dict[str, list[str]] = {}
    with guard("state"):
        if active:
            repo = sealed_orders(uow)
            for decision in game.ruleset.sealed_decisions(game.board, game.state):
                _, rows = current_instance(repo, game.row.id, decision)
                submitted[decision] = [r.seat for r in rows]
        waiting = awaited(game.ruleset, game.board, game.state, active=active, submitted=submitted)
    turn = turn_of(game, game.state)
    return GameSummary(
        id=game.row.id,
        ruleset=game.row.ruleset_id,
        ruleset_version=game.row.ruleset_version,
        status=game.row.status,
        public=game.row.public,
        seat=holding.seat,
        scope="seat" if holding.seat is not None else SPECTATOR,
        version=game.row.version,
        position=mt.position_view(turn),
        waiting_for=sorted(waiting, key=lambda s: (s == UMPIRE, s)),
        my_turn=holding.seat is not None and holding.seat in waiting,
        winner=game.row.winner,
        created_at=aware_utc(game.row.created_at),
        updated_at=aware_utc(game.row.updated_at),
    )


def list_games(
    uow: AbstractUnitOfWork,
    tokens: Sequence[str],
    *,
    boards: BoardCache,
    status: str | None = None,
    my_turn: bool | None = None,
    after: str | None = None,
    limit: int,
    max_tokens: int,
) -> GameList:
    """A page of the holdings of ``tokens`` (ordered by game id, then seat), filtered."""
    with uow.begin():
        page: list[GameSummary] = []
        more = False
        for holding in holdings(uow, tokens, limit=max_tokens):
            if after is not None and holding.key <= after:
                continue
            if status is not None and holding.game.status != status:
                continue
            summary = _waiting(uow, holding, boards)
            if my_turn is not None and summary.my_turn != my_turn:
                continue
            if len(page) == limit:
                more = True
                break
            page.append(summary)
        last = page[-1] if page else None
        next_key = f"{last.id}/{last.seat or '-'}" if more and last is not None else None
        return GameList(items=page, next=next_key)
