"""With CI=true a missing Caddy fails the deployment tests; elsewhere they are skipped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = "tests/deploy/test_caddy_proxy.py::test_caddy_validates_the_shipped_caddyfile"


def _run_without_caddy(ci: str | None) -> subprocess.CompletedProcess[str]:
    """Run one Caddy test in a child pytest that finds no caddy binary."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["REFEREE_TEST_CADDY"] = str(ROOT / "no-such-caddy")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", TARGET],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_ci_fails_when_caddy_is_missing() -> None:
    proc = _run_without_caddy("true")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "CI=true but Caddy is missing" in out


def test_outside_ci_the_caddy_tests_are_skipped_with_the_reason() -> None:
    proc = _run_without_caddy(None)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "1 skipped" in out and "no caddy on PATH" in out
