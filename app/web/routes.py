"""Routes of the console: the page at ``/``, its static files, the shipped scenarios."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse
from pydantic import BaseModel

from app.api.problems import responses
from app.rules import registry
from app.rules.base import shipped_scenarios as shipped_in_package

STATIC_DIR = Path(__file__).resolve().parent / "static"
SCENARIO_DIRS = (Path(__file__).resolve().parents[2] / "scenarios", Path("scenarios"))
"""Where ``scenarios/`` may be: the source checkout's, or the working directory's (the image
installs the package into site-packages and keeps ``/app/scenarios``)."""

router = APIRouter()


class ShippedScenario(BaseModel):
    """One scenario file shipped in ``scenarios/<ruleset>/``."""

    ruleset: str
    name: str
    title: str
    scenario: dict[str, Any]


def shipped_scenarios(roots: tuple[Path, ...] = SCENARIO_DIRS) -> list[ShippedScenario]:
    """Every ``scenarios/<ruleset>/<name>.json`` that parses as a JSON object, sorted, from
    the first of ``roots`` that exists (none: an empty list; the lobby then offers each
    ruleset's own example)."""
    out: list[ShippedScenario] = []
    root = next((r for r in roots if r.is_dir()), None)
    if root is None:
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


def packaged_scenarios() -> list[ShippedScenario]:
    """Every scenario a ruleset package ships (``app/rules/<package>/scenarios/*.json``, package
    data), per ruleset, sorted."""
    out: list[ShippedScenario] = []
    for ruleset in registry.all_rulesets():
        for name, data in shipped_in_package(type(ruleset).__module__).items():
            title = data.get("title") or data.get("name") or name
            out.append(
                ShippedScenario(ruleset=ruleset.id, name=name, title=str(title), scenario=data)
            )
    return out


def all_shipped_scenarios() -> list[ShippedScenario]:
    """The packaged scenarios, then those of the ``scenarios/`` folder not among them."""
    out = packaged_scenarios()
    seen = {(s.ruleset, s.name) for s in out}
    out += [s for s in shipped_scenarios() if (s.ruleset, s.name) not in seen]
    return sorted(out, key=lambda s: (s.ruleset, s.name))


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
    """The scenario files shipped with each ruleset (and in the `scenarios/` folder), per
    ruleset, for the console's lobby (each ruleset's own example is in GET /rulesets/{id})."""
    return all_shipped_scenarios()
