"""A program written against a client generated (openapi-python-client) from
``GET /rulesets/zoc/openapi.json``: it plays one turn of the seed example and prints what it
saw as JSON. ``tests/api/test_generated_client.py`` type-checks it with mypy, then runs it
against the real server: ``python play_zoc.py BASE_URL SCENARIO_JSON``."""

from __future__ import annotations

import json
import sys

from zoc_client import AuthenticatedClient, Client
from zoc_client.api.zoc import (
    create_game,
    dry_run,
    end_phase,
    get_game,
    query_ezoc_map,
    submit_action,
)
from zoc_client.models import (
    CreatedGame,
    MoveAction,
    Ruling,
    Scenario,
    ZocActionResult,
    ZocCreateGame,
    ZocEzocMapResult,
    ZocGameView,
)
from zoc_client.types import Unset


def play(base_url: str, scenario_file: str) -> dict[str, object]:
    with open(scenario_file) as f:
        scenario = Scenario.from_dict(json.load(f))
    created = create_game.sync(
        client=Client(base_url=base_url), body=ZocCreateGame(ruleset="zoc", scenario=scenario)
    )
    assert isinstance(created, CreatedGame)
    token = created.seats.additional_properties["axis"]
    axis = AuthenticatedClient(base_url=base_url, token=token)

    view = get_game.sync(created.id, client=axis)
    assert isinstance(view, ZocGameView)
    move = MoveAction(unit="de-inf-2", path=["e3207", "e3307"])
    ruling = dry_run.sync(created.id, client=axis, body=move)
    assert isinstance(ruling, Ruling) and not isinstance(ruling.citations, Unset)

    etag = f'W/"{view.version}"'
    result = submit_action.sync(created.id, client=axis, body=move, if_match=etag)
    assert isinstance(result, ZocActionResult)
    units = result.state.units
    assert not isinstance(units, Unset)
    moved_to = next(u.hex_ for u in units if u.id == "de-inf-2")

    ended = end_phase.sync(created.id, client=axis, if_match=f'W/"{result.version}"')
    assert isinstance(ended, ZocActionResult)
    zones = query_ezoc_map.sync(created.id, client=axis, side="axis")
    assert isinstance(zones, ZocEzocMapResult)
    return {
        "legal": ruling.legal,
        "cited": sorted({c.section for c in ruling.citations}),
        "version": result.version,
        "moved_to": moved_to,
        "phase_after_end": ended.state.phase,
        "ezoc_hexes": sorted(zones.result.hexes.additional_properties),
    }


if __name__ == "__main__":
    print(json.dumps(play(sys.argv[1], sys.argv[2])))
