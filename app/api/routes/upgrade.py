"""The umpire's ruleset upgrade: preview, then upgrade (issue 22 item 10)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.api.deps import BoardsDep, SeatDep, UowDep
from app.api.problems import responses
from app.api.routes._outcome import APPENDED, WriteDep, appended
from app.service import upgrade as uc
from app.service.results import ActionResult, UpgradePreview

router = APIRouter(prefix="/games/{game_id}", tags=["upgrade"])


@router.get(
    "/upgrade",
    summary="Preview a ruleset upgrade (umpire)",
    response_model=UpgradePreview,
    responses=responses(401, 403, 404, 409, 422, 503),
)
def preview_upgrade(game_id: str, uow: UowDep, boards: BoardsDep, token: SeatDep) -> UpgradePreview:
    """When the game is played under another version of its ruleset than the one this
    server runs (`upgrade_available` in the game view), replays the log under the running
    version, as the audit does, and lists every event it judges differently (`changed`:
    seq, kind, recorded and replayed ruling). Nothing is written. Umpire only (403
    `upgrade.umpire_only`)."""
    return uc.preview_upgrade(uow, game_id, token=token, boards=boards)


@router.post(
    "/upgrade",
    summary="Upgrade the game to the running ruleset version (umpire)",
    status_code=201,
    response_model=ActionResult,
    responses=APPENDED,
)
def upgrade(game_id: str, write: WriteDep) -> Any:
    """The umpire moves the game to the ruleset version this server runs: a
    `ruleset_upgraded` event is appended (payload `from`, `to`, `changed`: the events the new
    version judges differently, bounded, and `truncated`) and the game's `ruleset_version`
    becomes the running one; from then on its writes are judged again. A game already on the
    running version: 409 `ruleset.up_to_date`; another seat: 403 `upgrade.umpire_only`."""
    outcome = uc.upgrade_game(write)
    return appended(game_id, outcome)
