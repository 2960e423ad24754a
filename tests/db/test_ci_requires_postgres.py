"""With CI=true a PostgreSQL that cannot start fails the run; elsewhere it is skipped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = (
    "tests/db/test_migrations.py::test_programmatic_upgrade_check_downgrade_roundtrip[postgresql]"
)


def _run_without_postgres(ci: str | None) -> subprocess.CompletedProcess[str]:
    """Run one PostgreSQL test in a child pytest that finds no PostgreSQL binaries."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["REFEREE_TEST_PG_BINDIR"] = str(ROOT / "no-such-postgres")
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


def test_ci_fails_when_postgres_cannot_start() -> None:
    proc = _run_without_postgres("true")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "PostgreSQL is required in CI but did not start" in out


def test_outside_ci_the_postgres_half_is_skipped_with_the_reason() -> None:
    proc = _run_without_postgres(None)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "1 skipped" in out and "PostgreSQL unavailable" in out
