"""Issue 9 item 2 and 8: every stored JSON document is finite and bounded, commands are
strictly typed -- refused with a 422 naming the field, and nothing written."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from app.db.engine import make_engine
from app.db.models import ScenarioRow
from tests.match.flowkit import new_game, problem, tiny_scenario

pytestmark = pytest.mark.anyio


async def _games(client: httpx.AsyncClient) -> int:
    app = client._transport.app  # type: ignore[attr-defined]
    with app.state.engine.connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM games")).scalar_one())


@pytest.mark.parametrize(
    ("control", "field"),
    [
        ({"budget_seconds": 1e308, "increment_seconds": 1e308}, "/match/clock/budget_seconds"),
        ({"budget_seconds": 60, "increment_seconds": 1e308}, "/match/clock/increment_seconds"),
        ({"budget_seconds": 60, "cap_seconds": 1e300}, "/match/clock/cap_seconds"),
        ({"budget_seconds": "60"}, "/match/clock/budget_seconds"),
    ],
)
async def test_clock_fields_are_finite_and_bounded(
    client: httpx.AsyncClient, control: dict[str, Any], field: str
) -> None:
    match = {"clock": control}
    r = await client.post(
        "/games", json={"ruleset": "tiny", "scenario": tiny_scenario(), "match": match}
    )
    body = problem(r, 422, "request.invalid")
    assert field in [e["location"] for e in body["errors"]], body
    assert await _games(client) == 0


async def test_a_long_clock_keeps_every_later_write_and_read_working(
    client: httpx.AsyncClient,
) -> None:
    year = 366 * 24 * 3600
    g = await new_game(client, match={"clock": {"budget_seconds": year, "increment_seconds": year}})
    for _ in range(3):
        assert (await g.act("red", {"kind": "step", "pawn": "r1", "n": 1})).status_code == 201
    view = await g.view()
    assert all(math.isfinite(v) and v <= year for v in view["clock"]["remaining"].values())


@pytest.mark.parametrize(
    ("scenario", "location", "error"),
    [
        ({"title": "x" * 900_000}, "/scenario/title", "json.unsupported_text"),
        ({"turn": int("9" * 4000)}, "/scenario/turn", "json.number_too_large"),
    ],
)
async def test_huge_numbers_and_texts_are_refused(
    client: httpx.AsyncClient, scenario: dict[str, Any], location: str, error: str
) -> None:
    # sent as raw JSON: a 4,000-digit integer is valid JSON
    body = json.dumps({"ruleset": "zoc", "scenario": scenario})
    r = await client.post("/games", content=body, headers={"Content-Type": "application/json"})
    got = problem(r, 422, "scenario.invalid")
    assert [(e["location"], e["type"]) for e in got["errors"]] == [(location, error)]
    assert await _games(client) == 0


async def test_rollback_to_version_is_strictly_an_integer(client: httpx.AsyncClient) -> None:
    g = await new_game(client)
    assert (await g.act("red", {"kind": "step", "pawn": "r1", "n": 1})).status_code == 201
    r = await g.post("/rollback", "umpire", json={"to_version": "1"})
    body = problem(r, 422, "request.invalid")
    assert [e["location"] for e in body["errors"]] == ["/to_version"]
    assert await g.version() == 2  # no rollback happened


async def test_finish_winner_and_create_public_are_strict(client: httpx.AsyncClient) -> None:
    g = await new_game(client)
    problem(await g.post("/finish", "umpire", json={"winner": 1}), 422, "request.invalid")
    r = await client.post(
        "/games", json={"ruleset": "tiny", "scenario": tiny_scenario(), "public": "false"}
    )
    problem(r, 422, "request.invalid")
    assert await _games(client) == 1


def test_the_storage_boundary_refuses_non_finite_json(db_url: str) -> None:
    """Below the service checks: a JSON column never stores NaN or Infinity."""
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            session.add(
                ScenarioRow(
                    id="s-nan",
                    ruleset_id="tiny",
                    ruleset_version="1",
                    digest="d",
                    scenario={"x": math.inf},
                    board={},
                    created_at=datetime.now(UTC),
                )
            )
            with pytest.raises(Exception, match="Out of range float values are not JSON"):
                session.commit()
    finally:
        engine.dispose()
