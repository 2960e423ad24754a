"""The typed per-ruleset OpenAPI document, end to end: a client generated from
``GET /rulesets/{id}/openapi.json`` with an off-the-shelf generator (openapi-python-client),
a program written against it that mypy accepts (and a misspelt action field mypy refuses),
and that program playing a turn against the real server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests.support.server import running_server

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "support" / "generated"
BIN = Path(sys.executable).parent
SEED = ROOT / "scenarios" / "zoc" / "seed-example.json"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def base_url(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("generated") / "referee.db"
    shutil.copyfile(sqlite_template, db)
    app = create_app(Settings(database_url=f"sqlite:///{db}"))
    with running_server(app) as url:
        yield url
    app.state.engine.dispose()


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _generate(base_url: str, ruleset: str, out: Path) -> Path:
    doc = httpx.get(f"{base_url}/rulesets/{ruleset}/openapi.json").json()
    (out / f"{ruleset}.json").write_text(json.dumps(doc))
    package = out / f"{ruleset.replace('-', '_')}_client"
    gen = _run(
        [
            str(BIN / "openapi-python-client"),
            "generate",
            "--path",
            f"{ruleset}.json",
            "--meta",
            "none",
            "--output-path",
            package.name,
        ],
        out,
    )
    assert gen.returncode == 0, gen.stdout + gen.stderr
    assert "Warning" not in gen.stdout + gen.stderr, gen.stdout + gen.stderr
    return package


@pytest.mark.parametrize("ruleset", ["zoi", "objective-zones", "terrain", "battlefield"])
def test_every_shipped_ruleset_generates_a_client(
    base_url: str, ruleset: str, tmp_path: Path
) -> None:
    package = _generate(base_url, ruleset, tmp_path)
    api = package / "api" / ruleset.replace("-", "_")
    operations = {p.stem for p in api.glob("*.py")} - {"__init__"}
    assert {"create_game", "get_game", "dry_run", "submit_action", "end_phase"} <= operations
    assert any(op.startswith("query_") for op in operations)


def test_a_program_against_the_generated_zoc_client_type_checks_and_plays(
    base_url: str, tmp_path: Path
) -> None:
    _generate(base_url, "zoc", tmp_path)
    for program in ("play_zoc.py", "typo_zoc.py"):
        shutil.copy(PROGRAMS / program, tmp_path / program)

    checked = _run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            "play_zoc.py",
            "typo_zoc.py",
        ],
        tmp_path,
    )
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert errors and all(e.startswith("typo_zoc.py") for e in errors), checked.stdout
    assert any('"unti"' in e for e in errors), checked.stdout

    played = _run([sys.executable, "play_zoc.py", base_url, str(SEED)], tmp_path)
    assert played.returncode == 0, played.stderr
    out: dict[str, Any] = json.loads(played.stdout)
    assert out["legal"] is True
    assert {"8.1.negation", "8.2.operational"} <= set(out["cited"])
    assert (out["version"], out["moved_to"]) == (2, "e3307")
    assert out["phase_after_end"] == "combat"
    assert "e3307" in out["ezoc_hexes"]
