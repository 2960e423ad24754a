"""Every ``python`` block of docs/CLIENT.md runs against a real server (both databases)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import Settings
from app.main import create_app
from tests.support.server import running_server

DOC = Path(__file__).resolve().parents[1] / "docs" / "CLIENT.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


@pytest.fixture
def base_url(db_url: str) -> Iterator[str]:
    app = create_app(Settings(database_url=db_url, sse_keepalive_seconds=0.2))
    with running_server(app) as url:
        yield url
    app.state.engine.dispose()


def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("block", range(len(BLOCKS)))
def test_doc_example_runs(base_url: str, block: int) -> None:
    code = compile(BLOCKS[block], f"{DOC.name}[{block}]", "exec")
    exec(code, {"BASE_URL": base_url, "__name__": "docs_example"})
