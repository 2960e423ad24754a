"""Judge actions: dry runs (rulings) and real submissions (actions)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from fastapi.responses import Response

from app.api.deps import CallDep
from app.api.etags import format_etag
from app.api.examples import ruling_examples
from app.api.problems import responses
from app.api.routes._outcome import RollingWriteDep, appended, appended_responses
from app.rules.ruling import Ruling
from app.service import actions as uc
from app.service.match import parse_entered_dice
from app.service.results import ActionResult, DryRun

router = APIRouter(prefix="/games/{game_id}", tags=["actions"])

ACTION_DESCRIPTION = (
    "The action document: `kind` plus that kind's fields (schemas: GET /rulesets/{id} -> "
    "schemas.actions; typed per ruleset: GET /rulesets/{id}/openapi.json)."
)
DryRunBody = Annotated[
    dict[str, Any],
    Body(description=ACTION_DESCRIPTION, openapi_examples=ruling_examples(submit=False)),
]
ActionBody = Annotated[
    dict[str, Any],
    Body(description=ACTION_DESCRIPTION, openapi_examples=ruling_examples(submit=True)),
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
def dry_run(game_id: str, action: DryRunBody, call: CallDep) -> Any:
    """Judge the action against the current state and return the ruling (200 whether legal
    or not). Anyone who may read the game may ask, for any side's action: a dry run reveals
    nothing a reader could not work out from the state. Nothing is written. A dry run never
    rolls dice: an action that needs dice is judged on legality only, and the
    `Referee-Dice-Needed` header lists the die sizes a real submission would roll."""
    result = uc.dry_run(
        call.uow, game_id, action, token=call.token, boards=call.boards, now=call.now
    )
    return ruling_answer(result)


def ruling_answer(result: DryRun) -> Response:
    """The answer of a dry run (also served by :mod:`app.api.fast`)."""
    headers = {"ETag": format_etag(result.version)}
    if result.dice_needed:
        headers["Referee-Dice-Needed"] = ",".join(str(s) for s in result.dice_needed)
    return Response(result.ruling.model_dump_json(), headers=headers, media_type="application/json")


@router.post(
    "/actions",
    summary="Submit an action",
    status_code=201,
    response_model=ActionResult,
    responses=appended_responses(
        "Accepted: applied and appended to the log.",
        *(400, 401, 403, 404, 409, 412, 413, 415, 422, 428, 503),
    ),
)
def submit_action(game_id: str, action: ActionBody, request: RollingWriteDep) -> Any:
    """Needs a seat token (the seat comes from the token, never from the body) and If-Match.
    Checks, in order: token, game, seat, If-Match present, action well-formed, the seat owns
    the action (its side, or the umpire; umpire-only actions need the umpire), the ruling is
    legal (else 422 with the ruling, nothing written), the version is still current (else 412,
    nothing written). Then the new state and the event are stored in one transaction.

    Match flow: out of sequence is 409 `phase.not_your_turn` citing the sequence rule; a
    finished game is 409 `game.finished`. Dice the action needs are derived from the game's
    committed seed (mixed with `Referee-Client-Seed` when sent) and recorded with the event;
    with match option `physical_dice` the umpire enters them in `Referee-Dice`.

    `Prefer: return=minimal` answers the change alone (`ActionChange`: event, version,
    ruling, position, clock; no state) with `Preference-Applied: return=minimal`."""
    outcome = uc.submit_action(
        request.write,
        uc.SubmitAction(action, request.roll.client_seed, parse_entered_dice(request.roll.dice)),
    )
    return appended(game_id, outcome, minimal=request.minimal)
