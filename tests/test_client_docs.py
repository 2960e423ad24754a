"""Every ``python`` block of docs/CLIENT.md runs against a real server (on SQLite: the client
itself is tested on both databases in tests/test_client.py)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import Settings
from app.main import create_app
from tests.support.server import running_server

DOC = Path(__file__).resolve().parents[1] / "docs" / "CLIENT.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


@pytest.fixture
def base_url(sqlite_template: Path, tmp_path: Path) -> Iterator[str]:
    db = tmp_path / "referee.db"
    shutil.copyfile(sqlite_template, db)
    settings = Settings(database_url=f"sqlite:///{db}", sse_keepalive_seconds=0.2)
    app = create_app(settings)
    with running_server(app) as url:
        yield url
    app.state.engine.dispose()


def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("block", range(len(BLOCKS)))
def test_doc_example_runs(base_url: str, block: int) -> None:
    code = compile(BLOCKS[block], f"{DOC.name}[{block}]", "exec")
    exec(code, {"BASE_URL": base_url, "__name__": "docs_example"})
