"""Token scopes: spectator tokens, rotation, the umpire's reissue."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query, Response
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import SeatDep, UowDep
from app.api.problems import responses
from app.api.schemas import Line
from app.service import access as uc
from app.service.access import IssuedSeatToken, MintedToken, TokenList

router = APIRouter(prefix="/games/{game_id}", tags=["tokens"])


class MintRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scope: str = Field(default="spectator", pattern="^spectator$", description="Only spectator.")
    label: Line | None = Field(default=None, max_length=100, description="A note for the minter.")


@router.post(
    "/tokens",
    summary="Mint a read-only spectator token",
    status_code=201,
    response_model=MintedToken,
    responses=responses(400, 401, 403, 404, 409, 413, 415, 422),
)
def mint(
    game_id: str,
    uow: UowDep,
    token: SeatDep,
    body: Annotated[MintRequest | None, Body()] = None,
) -> MintedToken:
    """A seat (a side or the umpire) mints a token that may read the game -- as an anonymous
    reader of a public game does, even when the game is private -- and never write (403
    `token.read_only`). The token is shown once. At most 100 live tokens per game."""
    request = body or MintRequest()
    return uc.mint_spectator(uow, game_id, token=token, label=request.label)


@router.get(
    "/tokens",
    summary="List spectator tokens",
    response_model=TokenList,
    responses=responses(401, 403, 404, 422),
)
def list_tokens(game_id: str, uow: UowDep, token: SeatDep) -> TokenList:
    """The spectator tokens this seat minted (the umpire sees every one), revoked ones too;
    never the tokens themselves."""
    return uc.list_tokens(uow, game_id, token=token)


@router.delete(
    "/tokens/{token_id}",
    summary="Revoke a spectator token",
    status_code=204,
    response_class=Response,
    responses=responses(401, 403, 404, 422),
)
def revoke(game_id: str, token_id: str, uow: UowDep, token: SeatDep) -> Response:
    """Its minter or the umpire revokes a spectator token: it gets 401 from now on."""
    uc.revoke(uow, game_id, token_id, token=token)
    return Response(status_code=204)


@router.post(
    "/tokens/rotate",
    summary="Rotate your seat token",
    response_model=IssuedSeatToken,
    responses=responses(400, 401, 403, 404, 413, 422),
)
def rotate(
    game_id: str,
    uow: UowDep,
    token: SeatDep,
    revoke_minted: Annotated[
        bool,
        Query(
            description="Also revoke the spectator tokens this seat minted and remove the "
            "webhooks it registered (as a reissue does by default)."
        ),
    ] = False,
) -> IssuedSeatToken:
    """Issue a new token for the presented seat token's seat; the old token gets 401 from
    now on, and open streams opened with it end. Not idempotent: if the answer is lost, the
    umpire can reissue the seat's token."""
    return uc.rotate(uow, game_id, token=token, revoke_minted=revoke_minted)


@router.post(
    "/seats/{seat}/token",
    summary="Reissue a seat's token (umpire)",
    response_model=IssuedSeatToken,
    responses=responses(400, 401, 403, 404, 413, 422),
)
def reissue(
    game_id: str,
    seat: str,
    uow: UowDep,
    token: SeatDep,
    revoke_minted: Annotated[
        bool,
        Query(
            description="Also revoke the spectator tokens the seat minted and remove the "
            "webhooks it registered: whoever held the old token may have made them. "
            "`false` keeps them (a token merely lost)."
        ),
    ] = True,
) -> IssuedSeatToken:
    """The umpire replaces a seat's token (lost or leaked); the old one gets 401 from now on
    and open streams opened with it end; by default the spectator tokens and webhooks that
    seat made go with it (`revoke_minted`)."""
    return uc.reissue(uow, game_id, seat, token=token, revoke_minted=revoke_minted)
