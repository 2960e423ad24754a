"""The container files: no Docker engine runs here, so parse them and check their wiring."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from urllib.parse import urlsplit

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _dockerfile_instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text()
    text = re.sub(r"\\\n", " ", text)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def _start_command() -> str:
    cmds = [rest for word, rest in _dockerfile_instructions() if word == "CMD"]
    assert len(cmds) == 1, "the image has exactly one start command"
    argv = json.loads(cmds[0])
    assert argv[:2] == ["sh", "-c"], "start command runs through the shell (migrate && serve)"
    return str(argv[2])


def test_dockerfile_uses_slim_python_and_non_root_user() -> None:
    instr = _dockerfile_instructions()
    base = [rest for word, rest in instr if word == "FROM"]
    assert base and re.match(r"python:3\.1[1-9][\w.-]*-slim", base[0]), base
    users = [rest for word, rest in instr if word == "USER"]
    assert users, "the image must switch to a non-root user"
    assert users[-1] not in {"root", "0"}


def test_image_starts_with_migrations_then_uvicorn_on_all_interfaces() -> None:
    cmd = _start_command()
    steps = [s.strip() for s in cmd.split("&&")]
    assert steps[0] == "referee migrate"
    serve = shlex.split(steps[1])
    assert serve[:2] == ["referee", "serve"]
    assert serve[serve.index("--host") + 1] == "0.0.0.0"


def test_readme_documents_the_image_start_command() -> None:
    readme = (ROOT / "README.md").read_text()
    assert _start_command() in readme


def test_compose_app_points_at_db_service_and_waits_for_its_health() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    db, app = services["db"], services["app"]
    assert str(db["image"]).startswith("postgres:15")
    assert "healthcheck" in db and "pg_isready" in " ".join(db["healthcheck"]["test"])
    volume_names = set(compose.get("volumes", {}))
    mounted = {str(v).split(":", 1)[0] for v in db.get("volumes", [])}
    assert volume_names & mounted, "the database keeps its data in a named volume"
    url = app["environment"]["REFEREE_DATABASE_URL"]
    parts = urlsplit(url)
    assert parts.scheme.startswith("postgresql")
    assert parts.hostname == "db"
    assert app["depends_on"]["db"]["condition"] == "service_healthy"
    assert app.get("build") == "." or app.get("build", {}).get("context") == "."
