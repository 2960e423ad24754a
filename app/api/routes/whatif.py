"""Interpretation what-if: the game's log replayed under other readings (issue 26 item 3)."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import BoardsDep, SeatDep, UowDep
from app.api.problems import responses
from app.service import whatif as uc
from app.service.whatif import WhatIfReport, WhatIfRequest

router = APIRouter(prefix="/games/{game_id}", tags=["audit"])


@router.post(
    "/what-if",
    summary="Replay the log under other readings (umpire; players once the game is over)",
    response_model=WhatIfReport,
    responses=responses(400, 401, 403, 404, 409, 413, 415, 422, 503),
)
def what_if(
    game_id: str, body: WhatIfRequest, uow: UowDep, boards: BoardsDep, token: SeatDep
) -> WhatIfReport:
    """Replays the game's log from its initial state under the game's options with
    `options` set -- each interpretation of the ruleset names the option selecting its other
    reading -- and lists every event whose ruling differs (`changed`: what differs, the
    recorded and the replayed ruling side by side), stopping at the first event that becomes
    impossible (`stopped`: "from event N on the game could not have gone this way").
    Nothing is written. The umpire at any time; a player once the game is over (403
    `whatif.not_yet` before; spectators 403 `token.read_only`); a player sees only the events
    they may read (`hidden_changes` counts the others). An unknown option or a bad value:
    422 `whatif.invalid_options`, each field named (`/options/<name>`)."""
    return uc.what_if(uow, game_id, body.options, token=token, boards=boards)
