"""Sealed orders: submit (commitment published), list, and the umpire's early opening."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse

from app.api.deps import (
    BoardsDep,
    ClientSeedDep,
    EnteredDiceDep,
    IfMatchDep,
    NowDep,
    SeatDep,
    UowDep,
)
from app.api.etags import format_etag
from app.api.examples import SEALED_EXAMPLES
from app.api.problems import responses
from app.api.routes._outcome import WriteDep, appended, appended_responses
from app.service import match as mt
from app.service import sealed as uc
from app.service.sealed import OrderCheck, RevealView, SealedListing, SubmitResult

router = APIRouter(prefix="/games/{game_id}/sealed", tags=["sealed orders"])


@router.get(
    "",
    summary="List sealed decisions",
    response_model=SealedListing,
    responses=responses(401, 404, 422, 503),
)
def list_sealed(game_id: str, uow: UowDep, boards: BoardsDep, token: SeatDep, now: NowDep) -> Any:
    """Open decisions with who has submitted and their commitments -- never another side's
    order -- and every past reveal (orders, nonces, canonical texts, commitments, ruling).
    A seat that has submitted sees its own order under `own`."""
    listing = uc.list_sealed(uow, game_id, token=token, boards=boards, now=now)
    return JSONResponse(
        listing.model_dump(mode="json"),
        headers={
            "ETag": format_etag(listing.version),
            "Vary": "Authorization",
            "Cache-Control": "private, no-cache",
        },
    )


@router.post(
    "/{decision}",
    summary="Submit a sealed order",
    status_code=201,
    response_model=SubmitResult,
    responses=appended_responses(
        "Received: the commitment is published; when this order completed the set, every "
        "order is revealed and judged (`reveal`).",
        *(400, 401, 403, 404, 409, 412, 413, 415, 422, 428, 503),
        location="/games/{id}/events/{seq} of the receipt.",
    ),
)
def submit_order(
    game_id: str,
    decision: str,
    order: Annotated[
        dict[str, Any],
        Body(
            description="The order, validated by the decision's `order_schema`.",
            openapi_examples=SEALED_EXAMPLES,
        ),
    ],
    write: WriteDep,
    client_seed: ClientSeedDep,
) -> Any:
    """Needs the token of a side the decision lists, and If-Match (`*` is fine: orders of
    different sides do not conflict). The answer -- for the submitting seat only -- holds the
    order, its nonce and canonical text and the commitment every reader now sees. An order
    is final: a second one for the same decision is 409 `sealed.already_submitted`."""
    outcome = uc.submit_order(write, decision, order, client_seed=client_seed)
    return appended(game_id, outcome, {"Cache-Control": "no-store"})


@router.post(
    "/{decision}/check",
    summary="Check a sealed order without submitting it (dry run)",
    response_model=OrderCheck,
    responses=responses(400, 401, 403, 404, 409, 413, 415, 422, 503),
)
def check_order(
    game_id: str,
    decision: str,
    order: Annotated[
        dict[str, Any],
        Body(description="The order, as it would be submitted (see the submit examples)."),
    ],
    uow: UowDep,
    boards: BoardsDep,
    token: SeatDep,
    now: NowDep,
) -> Any:
    """The ruling the order would get if the seat's side submitted it now: legal, or every
    rule it breaks with codes, citations and the sector it concerns. Needs the token of a
    side the decision lists; nothing is stored or published, and no If-Match is needed."""
    result = uc.check_order(uow, game_id, decision, order, token=token, boards=boards, now=now)
    return JSONResponse(
        result.model_dump(mode="json"),
        headers={"Cache-Control": "no-store", "Vary": "Authorization"},
    )


@router.post(
    "/{decision}/open",
    summary="Open a sealed decision now (umpire)",
    response_model=RevealView,
    responses={
        200: {"headers": {"ETag": {"description": "The new version."}}},
        **responses(400, 401, 403, 404, 409, 412, 413, 422, 428, 503),
    },
)
def open_decision(
    game_id: str,
    decision: str,
    uow: UowDep,
    boards: BoardsDep,
    token: SeatDep,
    if_match: IfMatchDep,
    client_seed: ClientSeedDep,
    dice: EnteredDiceDep,
    now: NowDep,
) -> Any:
    """The umpire reveals every order received so far (missing sides are listed) and the
    ruleset judges them as in a complete reveal. Needs If-Match."""
    reveal = uc.open_decision(
        uow,
        game_id,
        decision,
        token=token,
        if_match=if_match,
        client_seed=client_seed,
        entered_dice=mt.parse_entered_dice(dice),
        boards=boards,
        now=now,
    )
    return JSONResponse(
        reveal.model_dump(mode="json"), headers={"ETag": format_etag(reveal.version)}
    )
