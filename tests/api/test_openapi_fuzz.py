"""Schemathesis fuzzes every operation of the OpenAPI document: no input is a server error.

The app runs on a fresh SQLite database with one real game of each ruleset, so generated
requests reach the rules core, not only the 404 path.
"""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from collections.abc import Iterator
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


_DB = Path(tempfile.gettempdir()) / f"referee-fuzz-{os.getpid()}-{uuid.uuid4().hex}.db"
"""Where the module's database will be; nothing is created before the module's tests run."""
APP = create_app(
    Settings(
        database_url=f"sqlite:///{_DB}",
        max_body_bytes=64 * 1024,
        sse_max_seconds=1,
        # No delivery thread: schemathesis may enter the app's lifespan while tests are still
        # being collected, before the database exists, and a thread logging tracebacks while
        # pytest parses source crashes CPython 3.11's parser ("AST constructor recursion
        # depth mismatch").
        webhook_worker=False,
    )
)  # connects lazily: importing this module writes nothing
SCHEMA = schemathesis.openapi.from_dict(APP.openapi())  # the document only: no app lifespan
SCHEMA.app = APP  # calls go to the app in process, once the module's fixture has built the db
SCHEMA.location = "/openapi.json"


@pytest.fixture(scope="module")
def game_ids() -> Iterator[list[str]]:
    """The database with a real zoc and zoi game, built when the module's tests run (never at
    import: the tests may run in any order, interleaved with others), removed after."""
    from fastapi.testclient import TestClient

    upgrade(f"sqlite:///{_DB}")
    ids: list[str] = []
    with TestClient(APP) as client:
        for ruleset, path in (
            ("zoc", "scenarios/zoc/seed-example.json"),
            ("zoi", "scenarios/zoi/example.json"),
        ):
            scenario = json.loads((ROOT / path).read_text())
            r = client.post("/games", json={"ruleset": ruleset, "scenario": scenario})
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
    yield ids
    APP.state.engine.dispose()
    _DB.unlink(missing_ok=True)


@SCHEMA.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_no_operation_answers_a_server_error(
    case: schemathesis.Case[Any], game_ids: list[str]
) -> None:
    params = case.path_parameters or {}
    ids = game_ids
    if "game_id" in params and len(repr(case.body)) % 3:
        # most cases address a real game, so bodies and queries reach the rules core
        params["game_id"] = ids[len(repr(case.query)) % len(ids)]
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


def test_every_integer_parameter_is_bounded_to_int4(game_ids: list[str]) -> None:
    """Out-of-range integers are 422s, never database overflows: every integer parameter and
    request-body field of the API declares 0 <= value <= 2_147_483_647, and a value just past
    it is refused by each query and path parameter (the stream's included)."""
    from fastapi.testclient import TestClient

    from app.service.errors import INT4_MAX

    doc = APP.openapi()
    components = doc["components"]["schemas"]
    checked: list[str] = []
    with TestClient(APP) as client:
        game = game_ids[0]
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
                        assert any(e["location"] == f"/{name}" for e in r.json()["errors"]), (
                            label,
                            r.text,
                        )
    assert len(checked) >= 5, checked
