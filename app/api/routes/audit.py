"""Audit replay: re-adjudicate a game's whole log (umpire)."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import BoardsDep, SeatDep, UowDep
from app.api.problems import responses
from app.service import audit as uc
from app.service.results import AuditReport

router = APIRouter(prefix="/games/{game_id}", tags=["audit"])


@router.get(
    "/audit",
    summary="Re-adjudicate the whole log (umpire)",
    response_model=AuditReport,
    responses=responses(401, 403, 404, 409, 422, 503),
)
def audit(game_id: str, uow: UowDep, boards: BoardsDep, token: SeatDep) -> AuditReport:
    """Replays every event from the game's initial state with the ruleset this server runs
    now and the dice recorded in the log, and reports every event whose ruling, resulting
    state or dice come out different -- `first_difference` names the first. Nothing is
    written. Umpire only (403 `audit.umpire_only`). Same as `referee audit GAME_ID`."""
    return uc.audit_game(uow, game_id, boards=boards, token=token)
