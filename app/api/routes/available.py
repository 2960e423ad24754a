"""What can I do now: the actions open to the reader's seat."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import BoardsDep, NowDep, SeatDep, UowDep
from app.api.problems import responses
from app.service.available import AvailableView, available

router = APIRouter(prefix="/games/{game_id}", tags=["actions"])


@router.get(
    "/actions/available",
    summary="What can I do now",
    response_model=AvailableView,
    responses=responses(401, 403, 404, 422, 503),
)
def available_actions(
    game_id: str, uow: UowDep, token: SeatDep, boards: BoardsDep, now: NowDep
) -> AvailableView:
    """For the presented seat: whether the sequence of play lets it act now, the action kinds
    open to it, the units that may act with their kinds, whether it may end the phase and
    the open sealed decisions it takes part in -- each answer cited (the sequence of play,
    the sections the ruleset names). A hint for front ends: a ruling remains the authority
    (`POST /games/{id}/rulings` judges any one action)."""
    return available(uow, game_id, token=token, boards=boards, now=now)
