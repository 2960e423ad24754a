"""Schemathesis fuzzes every operation of the OpenAPI document: no input is a server error.

The app runs on a fresh SQLite database with one real game of each ruleset, so generated
requests reach the rules core, not only the 404 path.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from app.config import Settings
from app.db.migrate import upgrade
from app.main import create_app

ROOT = Path(__file__).resolve().parents[2]
_DIR = Path(tempfile.mkdtemp(prefix="referee-fuzz-"))
GAME_IDS: list[str] = []


def _app() -> Any:
    url = f"sqlite:///{_DIR / 'fuzz.db'}"
    upgrade(url)
    application = create_app(
        Settings(database_url=url, max_body_bytes=64 * 1024, sse_max_seconds=1)
    )
    return application


APP = _app()
SCHEMA = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module", autouse=True)
def games() -> Any:
    """Create a zoc and a zoi game so {game_id} paths can hit real games."""
    from fastapi.testclient import TestClient

    with TestClient(APP) as client:
        for ruleset, path in (("zoc", "scenarios/zoc/seed-example.json"),
                              ("zoi", "scenarios/zoi/example.json")):
            scenario = json.loads((ROOT / path).read_text())
            r = client.post("/games", json={"ruleset": ruleset, "scenario": scenario})
            assert r.status_code == 201, r.text
            GAME_IDS.append(r.json()["id"])
    yield
    shutil.rmtree(_DIR, ignore_errors=True)


@SCHEMA.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_no_operation_answers_a_server_error(case: schemathesis.Case) -> None:
    params = case.path_parameters or {}
    if "game_id" in params and GAME_IDS and len(repr(case.body)) % 3:
        # most cases address a real game, so bodies and queries reach the rules core
        params["game_id"] = GAME_IDS[len(repr(case.query)) % len(GAME_IDS)]
    case.call_and_validate(checks=[not_a_server_error])


def _integer_fields(schema: dict[str, Any], components: dict[str, Any]) -> list[dict[str, Any]]:
    """Every integer (sub)schema of ``schema``, following $refs and anyOf."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    out = [schema] if schema.get("type") == "integer" else []
    for sub in schema.get("anyOf", []):
        out += _integer_fields(sub, components)
    for sub in schema.get("properties", {}).values():
        out += _integer_fields(sub, components)
    return out


def test_every_integer_parameter_is_bounded_to_int4() -> None:
    """Out-of-range integers are 422s, never database overflows: every integer parameter and
    request-body field of the API declares 0 <= value <= 2_147_483_647, and a value just past
    it is refused by each query and path parameter (the stream's included)."""
    from fastapi.testclient import TestClient

    from app.service.errors import INT4_MAX

    doc = APP.openapi()
    components = doc["components"]["schemas"]
    checked: list[str] = []
    with TestClient(APP) as client:
        game = GAME_IDS[0] if GAME_IDS else "00000000-0000-0000-0000-000000000000"
        for path, item in doc["paths"].items():
            for method, op in item.items():
                params = op.get("parameters", [])
                body = op.get("requestBody", {}).get("content", {}).get("application/json", {})
                schemas = [(p["name"], p["in"], p["schema"]) for p in params]
                if body:
                    schemas.append(("body", "body", body["schema"]))
                for name, where, schema in schemas:
                    for field in _integer_fields(schema, components):
                        label = f"{method.upper()} {path} {where}:{name}"
                        assert field.get("maximum", INT4_MAX + 1) <= INT4_MAX, label
                        assert field.get("minimum", -1) >= 0, label
                        checked.append(label)
                        if where not in ("query", "path"):
                            continue
                        url = path.replace("{game_id}", game)
                        query = {}
                        if where == "path":
                            url = url.replace("{" + name + "}", str(INT4_MAX + 1))
                        else:
                            query[name] = str(INT4_MAX + 1)
                        r = client.request(method.upper(), url, params=query)
                        assert r.status_code == 422, (label, r.text)
                        assert any(
                            e["location"] == f"/{name}" for e in r.json()["errors"]
                        ), (label, r.text)
    assert len(checked) >= 5, checked
