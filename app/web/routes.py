"""Routes of the console: the page at ``/``, its static files, the shipped scenarios."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse
from pydantic import BaseModel

from app.api.problems import responses

STATIC_DIR = Path(__file__).resolve().parent / "static"
SCENARIOS_DIR = Path(__file__).resolve().parents[2] / "scenarios"
"""The repository's ``scenarios/`` folder (present in a source checkout and the image)."""

router = APIRouter()


class ShippedScenario(BaseModel):
    """One scenario file shipped in ``scenarios/<ruleset>/``."""

    ruleset: str
    name: str
    title: str
    scenario: dict[str, Any]


def shipped_scenarios(root: Path = SCENARIOS_DIR) -> list[ShippedScenario]:
    """Every ``scenarios/<ruleset>/<name>.json`` that parses as a JSON object, sorted."""
    out: list[ShippedScenario] = []
    if not root.is_dir():
        return out
    for path in sorted(root.glob("*/*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        title = data.get("title") or data.get("name") or path.stem
        out.append(
            ShippedScenario(
                ruleset=path.parent.name, name=path.stem, title=str(title), scenario=data
            )
        )
    return out


@router.get("/", include_in_schema=False)
def console_page() -> FileResponse:
    """The console's single page."""
    return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})


@router.get(
    "/console/scenarios",
    tags=["rulesets"],
    summary="Scenarios shipped with the server",
    response_model=list[ShippedScenario],
    responses=responses(503),
)
def list_scenarios() -> list[ShippedScenario]:
    """The scenario files shipped in the repository's `scenarios/` folder, per ruleset, for the
    console's lobby (each ruleset's own example is in GET /rulesets/{id})."""
    return shipped_scenarios()
