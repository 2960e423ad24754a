"""Run the Alembic migrations programmatically (``referee migrate``, tests)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config


def _project_root() -> Path:
    """Where ``migrations/`` lives: beside the package in a source checkout (editable install),
    else the working directory (the container image copies it to ``/app``)."""
    for candidate in (Path(__file__).resolve().parents[2], Path.cwd()):
        if (candidate / "migrations" / "env.py").exists():
            return candidate
    return Path(__file__).resolve().parents[2]


ROOT = _project_root()
MIGRATIONS = ROOT / "migrations"
ALEMBIC_INI = ROOT / "alembic.ini"


def alembic_config(url: str) -> Config:
    """An Alembic config for ``url`` that works from any working directory."""
    cfg = Config(str(ALEMBIC_INI)) if ALEMBIC_INI.exists() else Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    # ConfigParser interpolation: a literal % in a password must be doubled.
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` up to ``revision``."""
    command.upgrade(alembic_config(url), revision)


def check(url: str) -> None:
    """Raise if the models and the migrations disagree (``alembic check``)."""
    command.check(alembic_config(url))
