"""Token scopes: read-only spectator tokens, rotation and revocation.

* A seat (a side or the umpire) mints **spectator** tokens for its game: read-only, they read
  the game as an anonymous reader of a public game does (the public view, redacted events),
  even when the game is private, and every write with one is 403 ``token.read_only``.
  A seat lists and revokes the tokens it minted; the umpire lists and revokes them all.
* A seat **rotates** its own token: a new one is issued and the old one is refused (401) from
  the commit on. The umpire may **reissue** any seat's token (a lost or leaked token).
* A reissue (by default) also revokes what the old credential may have left behind: every
  spectator token the seat minted and every webhook the seat registered, since whoever held
  the leaked token may have made them (``revoke_minted``; a rotation keeps them by default,
  the seat's own choice, and takes ``revoke_minted=true`` too).
* Every revocation, rotation and reissue bumps the game's access epoch and wakes its open
  streams in every process, which re-check their credential and end (an ``event: revoked``)
  when it no longer holds (:mod:`app.service.stream`).

Every token is 256 random bits, shown once and stored only as SHA-256 (see
:mod:`app.service.identity` for the constant-time comparison).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from pydantic import BaseModel, Field

from app.db.access import access
from app.db.models import AccessTokenRow
from app.db.uow import AbstractUnitOfWork
from app.rules.base import UMPIRE
from app.service.errors import Conflict, Forbidden, NotFound, Unauthenticated
from app.service.identity import identify, require_seat
from app.service.pipeline import aware_utc, find_game, valid_game_id
from app.service.tokens import hash_token, new_token

SPECTATOR = "spectator"
MAX_LIVE_TOKENS = 100
"""Unrevoked spectator tokens one game may have (each read compares against all of them)."""


class SpectatorToken(BaseModel):
    """A spectator token's record (the token itself is shown only when minted)."""

    id: str
    scope: str = SPECTATOR
    label: str | None = None
    created_by: str = Field(description="The seat that minted it.")
    created_at: datetime
    revoked_at: datetime | None = None


class MintedToken(SpectatorToken):
    token: str = Field(description="The bearer token. Shown once; only its hash is stored.")


class TokenList(BaseModel):
    items: list[SpectatorToken]


class IssuedSeatToken(BaseModel):
    """A seat's new token after a rotation or reissue; the previous one no longer works."""

    game: str
    seat: str
    token: str = Field(description="Shown once; only its hash is stored.")
    revoked_tokens: int = Field(
        0, description="Spectator tokens the seat had minted, revoked with the old token."
    )
    removed_webhooks: int = Field(
        0, description="Webhooks the seat had registered, removed with the old token."
    )


def _record(row: AccessTokenRow) -> SpectatorToken:
    return SpectatorToken(
        id=row.id,
        label=row.label,
        created_by=row.created_by,
        created_at=aware_utc(row.created_at),
        revoked_at=None if row.revoked_at is None else aware_utc(row.revoked_at),
    )


def writer_seat(
    uow: AbstractUnitOfWork, game_id: str, token: str | None, what: str
) -> tuple[str, str]:
    """Inside an open transaction: (game id, seat) of a seat token; 401/403/404 otherwise."""
    if token is None:
        raise Unauthenticated(f"{what} needs a seat token", code="auth.required")
    row, _ = find_game(uow, game_id)
    return row.id, require_seat(identify(uow, row, token))


def mint_spectator(
    uow: AbstractUnitOfWork, game_id: str, *, token: str | None, label: str | None
) -> MintedToken:
    """A new read-only token for the game, minted by one of its seats."""
    with uow.begin(write=True):
        gid, seat = writer_seat(uow, game_id, token, "minting a spectator token")
        repo = access(uow)
        if len(repo.live_tokens(gid)) >= MAX_LIVE_TOKENS:
            raise Conflict(
                f"this game already has {MAX_LIVE_TOKENS} live spectator tokens; revoke some",
                code="token.limit",
            )
        secret = new_token()
        row = AccessTokenRow(
            id=str(uuid.uuid4()),
            game_id=gid,
            token_hash=hash_token(secret),
            scope=SPECTATOR,
            created_by=seat,
            label=label,
            created_at=datetime.now(UTC),
        )
        repo.add_token(row)
        minted = MintedToken(**_record(row).model_dump(), token=secret)
        uow.commit()
        return minted


def list_tokens(uow: AbstractUnitOfWork, game_id: str, *, token: str | None) -> TokenList:
    """The spectator tokens this seat minted (the umpire: every one), revoked ones too."""
    with uow.begin():
        gid, seat = writer_seat(uow, game_id, token, "listing spectator tokens")
        rows = access(uow).tokens(gid, None if seat == UMPIRE else seat)
        return TokenList(items=[_record(r) for r in rows])


def revoke(uow: AbstractUnitOfWork, game_id: str, token_id: str, *, token: str | None) -> None:
    """Revoke a spectator token (its minter or the umpire); it is refused (401) from now on.
    Revoking a revoked token again changes nothing."""
    with uow.begin(write=True):
        gid, seat = writer_seat(uow, game_id, token, "revoking a spectator token")
        row = access(uow).token(gid, token_id) if valid_game_id(token_id) else None
        if row is None:
            raise NotFound(f"game {gid!r} has no token {token_id!r}", code="token.not_found")
        if seat not in (row.created_by, UMPIRE):
            raise Forbidden(
                "only the seat that minted a token, or the umpire, may revoke it",
                code="token.not_yours",
            )
        if row.revoked_at is None:
            row.revoked_at = datetime.now(UTC)
            repo = access(uow)
            repo.session.flush()
            repo.access_changed(gid)
        uow.commit()


def rotate(
    uow: AbstractUnitOfWork, game_id: str, *, token: str | None, revoke_minted: bool = False
) -> IssuedSeatToken:
    """Replace the presented seat token with a new one (``revoke_minted``: also revoke the
    spectator tokens this seat minted and remove the webhooks it registered)."""
    with uow.begin(write=True):
        gid, seat = writer_seat(uow, game_id, token, "rotating a token")
        return _issue(uow, gid, seat, revoke_minted=revoke_minted)


def reissue(
    uow: AbstractUnitOfWork,
    game_id: str,
    seat: str,
    *,
    token: str | None,
    revoke_minted: bool = True,
) -> IssuedSeatToken:
    """The umpire replaces any seat's token (e.g. one a player lost or leaked); by default
    what the old token may have minted and registered goes with it (``revoke_minted``)."""
    with uow.begin(write=True):
        gid, caller = writer_seat(uow, game_id, token, "reissuing a seat token")
        if caller != UMPIRE:
            raise Forbidden("only the umpire may reissue a seat's token", code="token.umpire_only")
        if seat not in {r.seat for r in uow.games.seats(gid)}:
            raise NotFound(f"game {gid!r} has no seat {seat!r}", code="seat.not_found")
        return _issue(uow, gid, seat, revoke_minted=revoke_minted)


def _issue(
    uow: AbstractUnitOfWork, game_id: str, seat: str, *, revoke_minted: bool
) -> IssuedSeatToken:
    secret = new_token()
    repo = access(uow)
    repo.set_seat_hash(game_id, seat, hash_token(secret))
    revoked = removed = 0
    if revoke_minted:
        revoked = repo.revoke_tokens_of(game_id, seat, datetime.now(UTC))
        removed = repo.delete_webhooks_of(game_id, seat)
        repo.delete_email_subscriptions_of(game_id, seat)  # a leaked token's addresses too
    repo.access_changed(game_id)
    uow.commit()
    return IssuedSeatToken(
        game=game_id,
        seat=seat,
        token=secret,
        revoked_tokens=revoked,
        removed_webhooks=removed,
    )
