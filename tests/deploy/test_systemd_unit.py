"""deploy/referee.service: parsed and checked; ``systemd-analyze verify`` accepts it (with its
paths pointed at this checkout) where systemd is installed."""

from __future__ import annotations

import configparser
import getpass
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "deploy" / "referee.service"
ENV = ROOT / "deploy" / "referee.env.example"


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(UNIT.read_text())
    return parser


def _env() -> dict[str, str]:
    lines = [line for line in ENV.read_text().splitlines() if line and not line.startswith("#")]
    return dict(line.split("=", 1) for line in lines)


def test_the_unit_migrates_then_serves_on_loopback_only() -> None:
    service = _unit()["Service"]
    assert shlex.split(service["ExecStartPre"])[1:] == ["migrate"]
    serve = shlex.split(service["ExecStart"])
    assert serve[1] == "serve"
    assert serve[serve.index("--host") + 1] == "127.0.0.1", "players come through Caddy"
    assert service["User"] != "root"
    assert service["EnvironmentFile"] == "/etc/referee/referee.env"
    assert service["Restart"] == "on-failure"


def test_the_env_example_trusts_proxy_headers_from_loopback_only() -> None:
    env = _env()
    assert env["REFEREE_FORWARDED_ALLOW_IPS"] == "127.0.0.1"
    assert env["REFEREE_PUBLIC_URL"].startswith("https://")
    assert env["REFEREE_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert int(env["REFEREE_WORKERS"]) >= 1


def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("no systemd-analyze here: the structural checks above stand")
    venv = Path(sys.executable).parent.parent
    text = (
        UNIT.read_text()
        .replace("/opt/referee/.venv", str(venv))
        .replace("/opt/referee", str(tmp_path))
        .replace("/etc/referee/referee.env", str(tmp_path / "referee.env"))
        .replace("User=referee", f"User={getpass.getuser()}")
        .replace("Group=referee", "Group=")
    )
    (tmp_path / "referee.env").write_text(ENV.read_text())
    unit = tmp_path / "referee.service"
    unit.write_text(text)
    done = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
