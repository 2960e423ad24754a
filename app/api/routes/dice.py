"""Verifiable dice: the commitment and rolls, the umpire's reveal, verification."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.api.deps import BoardsDep, NowDep, SeatDep, UowDep
from app.api.problems import responses
from app.api.routes._outcome import APPENDED, WriteDep, appended
from app.service import flow as uc
from app.service.results import ActionResult, DiceInfo, DiceVerification

router = APIRouter(prefix="/games/{game_id}/dice", tags=["dice"])


@router.get(
    "",
    summary="Dice commitment and rolls",
    response_model=DiceInfo,
    responses=responses(401, 404, 422, 503),
)
def dice_info(
    game_id: str, uow: UowDep, boards: BoardsDep, token: SeatDep, now: NowDep
) -> DiceInfo:
    """The recipe (`referee-dice-v1`), the SHA-256 commitment published at creation, every
    roll recorded in the events this reader may see (with its number `n`, die size, value,
    client seed, and `entered_by` for physical dice), and the `seed` -- null until the game
    is over (for everyone) or, for the umpire only, after `POST .../dice/reveal`."""
    return uc.dice_info(uow, game_id, token=token, boards=boards, now=now)


@router.get(
    "/verify",
    summary="Re-derive every roll from the revealed seed",
    response_model=DiceVerification,
    responses=responses(401, 403, 404, 422, 503),
)
def verify_dice(
    game_id: str, uow: UowDep, boards: BoardsDep, token: SeatDep, now: NowDep
) -> DiceVerification:
    """Checks `sha256(seed) == commitment` and re-derives every derived roll; entered
    (physical) dice are counted, not derived. 403 `dice.seed_sealed` while the seed is not
    revealed to this reader."""
    return uc.verify_dice(uow, game_id, token=token, boards=boards, now=now)


@router.post(
    "/reveal",
    summary="Reveal the seed to the umpire",
    status_code=201,
    response_model=ActionResult,
    responses=APPENDED,
)
def reveal_seed(game_id: str, write: WriteDep) -> Any:
    """Umpire only. Appends a `seed_revealed` event that every reader sees (it does not
    hold the seed), so the players know the umpire can now work out later rolls; from then
    on `GET .../dice` shows the seed to the umpire. 409 `dice.already_revealed` if done."""
    outcome = uc.reveal_seed(write)
    return appended(game_id, outcome)
