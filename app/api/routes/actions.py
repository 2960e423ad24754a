"""Judge actions: dry runs (rulings) and real submissions (actions)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse, Response

from app.api.deps import BoardsDep, IdempotencyKeyDep, IfMatchDep, SeatDep, UowDep
from app.api.etags import format_etag
from app.api.problems import responses
from app.api.schemas import ACTION_EXAMPLES
from app.rules.ruling import Ruling
from app.service import games as uc
from app.service.results import ActionResult

router = APIRouter(prefix="/games/{game_id}", tags=["actions"])

ActionBody = Annotated[
    dict[str, Any],
    Body(
        description="The action document: `kind` plus that kind's fields "
        "(schemas: GET /rulesets/{id} -> schemas.actions).",
        openapi_examples=ACTION_EXAMPLES,
    ),
]


@router.post(
    "/rulings",
    summary="Dry run: judge an action, write nothing",
    response_model=Ruling,
    responses={
        200: {
            "description": "The ruling, legal or not.",
            "headers": {"ETag": {"description": "Version judged"}},
        },
        **responses(400, 401, 404, 413, 415, 422, 503),
    },
)
def dry_run(
    game_id: str, action: ActionBody, uow: UowDep, boards: BoardsDep, token: SeatDep
) -> Any:
    """Judge the action against the current state and return the ruling (200 whether legal
    or not). Anyone who may read the game may ask, for any side's action: a dry run reveals
    nothing a reader could not work out from the state. Nothing is written."""
    result = uc.dry_run(uow, game_id, action, token=token, boards=boards)
    return JSONResponse(
        result.ruling.model_dump(mode="json"), headers={"ETag": format_etag(result.version)}
    )


@router.post(
    "/actions",
    summary="Submit an action",
    status_code=201,
    response_model=ActionResult,
    responses={
        201: {
            "description": "Accepted: applied and appended to the log.",
            "headers": {
                "ETag": {"description": "The new version."},
                "Location": {"description": "/games/{id}/events/{seq}"},
                "Idempotent-Replayed": {"description": "`true` on a replayed retry."},
            },
        },
        **responses(400, 401, 403, 404, 412, 413, 415, 422, 428, 503),
    },
)
def submit_action(
    game_id: str,
    action: ActionBody,
    uow: UowDep,
    boards: BoardsDep,
    token: SeatDep,
    if_match: IfMatchDep,
    idempotency_key: IdempotencyKeyDep,
) -> Any:
    """Needs a seat token (the seat comes from the token, never from the body) and If-Match.
    Checks, in order: token, game, seat, If-Match present, action well-formed, the seat owns
    the action (its side, or the umpire; umpire-only actions need the umpire), the ruling is
    legal (else 422 with the ruling, nothing written), the version is still current (else 412,
    nothing written). Then the new state and the event are stored in one transaction."""
    outcome = uc.submit_action(
        uow,
        game_id,
        action,
        token=token,
        if_match=if_match,
        idempotency_key=idempotency_key,
        boards=boards,
    )
    headers = {
        "ETag": format_etag(outcome.version),
        "Location": f"/games/{game_id}/events/{outcome.event}",
    }
    if outcome.replayed:
        headers["Idempotent-Replayed"] = "true"
    return Response(
        outcome.body, status_code=outcome.status, headers=headers, media_type="application/json"
    )
