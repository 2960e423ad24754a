"""Export a game to one portable file, verify such a file, import a verified one (issue 26)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse

from app.api.deps import BoardsDep, NowDep, SeatDep, SettingsDep, UowDep
from app.api.problems import responses
from app.api.routes.games import created_answer
from app.service import export as uc
from app.service import importing
from app.service.export import ExportFile, VerifyReport
from app.service.results import CreatedGame

router = APIRouter(tags=["export"])

FileBody = Annotated[
    dict[str, Any],
    Body(description="An export file (format `referee-export-1`, docs/EXPORT.md)."),
]


@router.get(
    "/games/{game_id}/export",
    summary="Export the game as one portable file",
    response_model=ExportFile,
    responses=responses(401, 404, 422, 503),
)
def export_game(game_id: str, uow: UowDep, boards: BoardsDep, token: SeatDep) -> Any:
    """The whole game as one JSON file (format `referee-export-1`, schema in docs/EXPORT.md):
    ruleset id and versions, scenario, options, match settings, initial state, every event
    with its ruling, dice, state snapshot and ruleset version, the dice commitment (and the
    seed once this reader may see it), the sealed commitments and reveals. A reader gets only
    what its seat may see (hidden events redacted, no seed before it is revealed to it, no
    sealed order before its reveal); the umpire's file is complete (`complete: true`) and is
    the one `POST /games/import` takes."""
    exported = uc.export_game(uow, game_id, token=token, boards=boards)
    return JSONResponse(
        exported.model_dump(mode="json"),
        headers={
            "Content-Disposition": f'attachment; filename="referee-{game_id}.json"',
            "Cache-Control": "private, no-store",
            "Vary": "Authorization",
        },
    )


@router.post(
    "/verify",
    summary="Verify an export file with this instance's rulesets",
    response_model=VerifyReport,
    responses=responses(400, 413, 415, 422),
)
def verify(body: FileBody) -> VerifyReport:
    """Re-adjudicates the file from its scenario's setup with the rulesets this instance runs,
    checks every derived roll against the dice commitment (when the seed is in the file) and
    every sealed reveal against its receipt's commitment. `first_difference` names the first
    event that differs (seq, kind, what); events judged by another ruleset version than this
    instance runs are reported as a version change (`version_changed`, `version_note`), not as
    an edited file. A seat's file is verified as far as it goes: `unchecked` lists what it
    withholds (hidden events, an unrevealed seed). Anyone may verify; nothing is written.
    Same as `referee verify FILE`."""
    return uc.verify_file(body)


@router.post(
    "/games/import",
    summary="Import a game from the umpire's export file and continue it",
    status_code=201,
    response_model=CreatedGame,
    responses={
        201: {
            "description": "Created. `seats` holds each seat's new token; never shown again.",
            "headers": {"Location": {"description": "/games/{id}"}},
        },
        **responses(400, 413, 415, 422),
    },
)
def import_game(
    body: FileBody, uow: UowDep, now: NowDep, settings: SettingsDep, request: Request
) -> Any:
    """Verifies the umpire's export file (422 `import.unverified` naming the first event
    that differs, `import.unverifiable` when something could not be checked -- a seed not
    yet revealed, `import.incomplete` for a seat's file, `import.sealed_pending` for an
    order still sealed) and creates a game holding its scenario, options, match settings
    and log, with an `imported` event recording where it came from and a fresh dice seed.
    New seat tokens are issued and shown once, as by `POST /games`."""
    created = importing.import_game(uow, body, now=now)
    return created_answer(request, settings.public_url, created)


__all__ = ["CreatedGame", "router"]
