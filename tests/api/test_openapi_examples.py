"""Every request example of the OpenAPI document, posted to a real server over HTTP: each gets
the answer its ``x-referee-exercise`` documents (status and a subset of the body)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests.support.blind import BLIND
from tests.support.server import running_server
from tests.support.tiny import TINY

SHIPPED = {"zoc", "zoi", "objective-zones", "terrain"}


def _document() -> dict[str, Any]:
    app = create_app(Settings(database_url="sqlite://"))
    doc: dict[str, Any] = app.openapi()
    app.state.engine.dispose()
    return doc


def _request_examples() -> list[tuple[str, str, str, dict[str, Any]]]:
    found = []
    for path, item in _document()["paths"].items():
        for method, op in item.items():
            for media in op.get("requestBody", {}).get("content", {}).values():
                for name, example in media.get("examples", {}).items():
                    found.append((method.upper(), path, name, example))
    return found


EXAMPLES = _request_examples()


def test_the_document_has_the_examples_the_docs_promise() -> None:
    operations = {(m, p) for m, p, _, _ in EXAMPLES}
    assert operations == {
        ("POST", "/games"),
        ("POST", "/games/{game_id}/rulings"),
        ("POST", "/games/{game_id}/actions"),
        ("POST", "/games/{game_id}/rollback"),
        ("POST", "/games/{game_id}/finish"),
        ("POST", "/games/{game_id}/sealed/{decision}"),
    }
    for _, _, name, example in EXAMPLES:
        assert "x-referee-exercise" in example, name
        ruleset = example["value"].get("ruleset") if isinstance(example["value"], dict) else None
        assert ruleset in (None, *SHIPPED), f"{name} uses a ruleset that is not shipped"
        assert ruleset not in (TINY.id, BLIND.id)


def _subset(expected: Any, actual: Any, where: str = "") -> None:
    """Every key of ``expected`` is in ``actual`` with a matching value; a list matches when
    each expected item matches some item of the actual list."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r} is not an object"
        for key, value in expected.items():
            assert key in actual, f"{where}/{key} missing in {actual!r}"
            _subset(value, actual[key], f"{where}/{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{where}: {actual!r} is not a list"
        for i, item in enumerate(expected):
            found = any(_matches(item, a) for a in actual)
            assert found, f"{where}/{i}: {item!r} not in {actual!r}"
    else:
        assert expected == actual, f"{where}: expected {expected!r}, got {actual!r}"


def _matches(expected: Any, actual: Any) -> bool:
    try:
        _subset(expected, actual)
    except AssertionError:
        return False
    return True


def _example_body(method: str, path: str, name: str) -> Any:
    for m, p, n, example in EXAMPLES:
        if (m, p, n) == (method, path, name):
            return example["value"]
    raise KeyError(name)


class Setups:
    """The games the examples apply to, reached through the API itself."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http

    def _headers(self, game: dict[str, Any], seat: str) -> dict[str, str]:
        etag = self.http.get(f"/games/{game['id']}").headers["etag"]
        return {"Authorization": f"Bearer {game['seats'][seat]}", "If-Match": etag}

    def create(self, ruleset: str) -> dict[str, Any]:
        r = self.http.post("/games", json=_example_body("POST", "/games", ruleset))
        assert r.status_code == 201, r.text
        game: dict[str, Any] = r.json()
        return game

    def zoc_moved(self) -> dict[str, Any]:
        game = self.create("zoc")
        move = _example_body("POST", "/games/{game_id}/actions", "zoc-move")
        r = self.http.post(
            f"/games/{game['id']}/actions", json=move, headers=self._headers(game, "axis")
        )
        assert r.status_code == 201, r.text
        return game

    def objective_zones_combat(self) -> dict[str, Any]:
        game = self.create("objective-zones")
        declare = {"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-2", "us-3"]}
        r = self.http.post(
            f"/games/{game['id']}/actions", json=declare, headers=self._headers(game, "union")
        )
        assert r.status_code == 201, r.text
        for _ in range(4):
            r = self.http.post(
                f"/games/{game['id']}/phase/advance", headers=self._headers(game, "umpire")
            )
            assert r.status_code == 201, r.text
        return game

    def game_for(self, setup: str) -> dict[str, Any] | None:
        if setup == "none":
            return None
        if setup in SHIPPED:
            return self.create(setup)
        return {"zoc-moved": self.zoc_moved, "objective-zones-combat": self.objective_zones_combat}[
            setup
        ]()


@pytest.fixture
def base_url(db_url: str) -> Iterator[str]:
    app = create_app(Settings(database_url=db_url))
    with running_server(app) as url:
        yield url
    app.state.engine.dispose()


@pytest.mark.parametrize(
    ("method", "path", "name", "example"),
    EXAMPLES,
    ids=[f"{m} {p} {n}" for m, p, n, _ in EXAMPLES],
)
def test_request_example_gets_its_documented_answer(
    base_url: str, method: str, path: str, name: str, example: dict[str, Any]
) -> None:
    exercise = example["x-referee-exercise"]
    with httpx.Client(base_url=base_url, timeout=30) as http:
        setups = Setups(http)
        game = setups.game_for(exercise["setup"])
        url = path.format(**exercise.get("path", {}), **({"game_id": game["id"]} if game else {}))
        seat = exercise.get("seat")
        headers = setups._headers(game, seat) if seat and game else {}
        r = http.request(method, url, json=example["value"], headers=headers)
    assert r.status_code == exercise["status"], r.text
    _subset(exercise["answer"], r.json())
