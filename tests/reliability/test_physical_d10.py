"""A d10 that shows 0 is entered as it reads (``Referee-Dice: 0``) and recorded as its ten,
like a derived d10 (issue 10's request; dice input validation belongs to issue 9)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import httpx
import pytest

from app.rules import registry
from tests.match.flowkit import new_game, problem
from tests.support.tiny import Roll, TinyBoard, TinyRuleset, TinyState

pytestmark = pytest.mark.anyio

ROLL = {"kind": "roll", "pawn": "r1"}


class TenSided(TinyRuleset):
    """The tiny ruleset rolling a d10 instead of a d6."""

    id = "tiny-d10"

    def dice_needed(self, board: TinyBoard, state: TinyState, action: Any) -> Sequence[int]:
        return (10,) if isinstance(action, Roll) else ()


@pytest.fixture(autouse=True)
def ten_sided() -> Iterator[None]:
    registry.register(TenSided())
    yield
    registry.unregister(TenSided.id)


async def test_a_d10_showing_zero_is_its_ten(client: httpx.AsyncClient) -> None:
    g = await new_game(client, ruleset="tiny-d10", length=30, match={"physical_dice": True})
    problem(await g.act("umpire", ROLL, **{"Referee-Dice": "11"}), 422, "dice.invalid")
    problem(await g.act("umpire", ROLL, **{"Referee-Dice": "0,3"}), 422, "dice.invalid")
    r = await g.act("umpire", ROLL, **{"Referee-Dice": "0"})
    assert r.status_code == 201, r.text
    assert r.json()["state"]["positions"]["r1"] == 10
    event = (await client.get(f"/games/{g.id}/events/1")).json()
    assert event["dice"] == [
        {"n": 0, "sides": 10, "value": 10, "client_seed": None, "entered_by": "umpire"}
    ]


async def test_zero_is_still_refused_for_a_d6(client: httpx.AsyncClient) -> None:
    g = await new_game(client, length=30, match={"physical_dice": True})
    problem(await g.act("umpire", ROLL, **{"Referee-Dice": "0"}), 422, "dice.invalid")
    assert await g.version() == 1
