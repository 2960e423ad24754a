"""The console's routes: the page at /, its static files, the shipped scenarios."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from app.web.routes import STATIC_DIR, shipped_scenarios

pytestmark = pytest.mark.anyio

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


async def test_the_console_page_and_its_modules_are_served(client: httpx.AsyncClient) -> None:
    r = await client.get("/")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/console/static/app.js">' in r.text
    for name in sorted(p.name for p in STATIC_DIR.glob("*.js")):
        js = await client.get(f"/console/static/{name}")
        assert js.status_code == 200, name
        assert "javascript" in js.headers["content-type"], name
    missing = await client.get("/console/static/nope.js")
    assert missing.status_code == 404


async def test_no_page_asset_comes_from_another_origin(client: httpx.AsyncClient) -> None:
    for path in STATIC_DIR.iterdir():
        text = path.read_text()
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", ""), path.name
        assert "https://" not in text, path.name
        assert "access_token" not in text, path.name  # the token never goes in a URL


async def test_shipped_scenarios_are_listed_per_ruleset(client: httpx.AsyncClient) -> None:
    r = await client.get("/console/scenarios")
    assert r.status_code == 200
    listed = {(s["ruleset"], s["name"]): s for s in r.json()}
    on_disk = {(p.parent.name, p.stem): p for p in SCENARIOS.glob("*/*.json")}
    assert set(listed) == set(on_disk)
    zoc = listed[("zoc", "seed-example")]
    assert zoc["scenario"] == json.loads(on_disk[("zoc", "seed-example")].read_text())
    assert zoc["title"] == "Cernauti: the section 8 example"


def test_without_a_scenarios_folder_the_list_is_empty(tmp_path: Path) -> None:
    assert shipped_scenarios((tmp_path / "absent",)) == []
    (tmp_path / "zoc").mkdir()
    (tmp_path / "zoc" / "broken.json").write_text("{not json")
    (tmp_path / "zoc" / "list.json").write_text("[]")
    (tmp_path / "zoc" / "ok.json").write_text('{"name": "Named"}')
    assert [(s.name, s.title) for s in shipped_scenarios((tmp_path,))] == [("ok", "Named")]
