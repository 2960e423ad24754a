"""Session-wide fixtures: the tiny test ruleset and a fresh, migrated database per test.

``db_url`` is parametrized over SQLite (a temp file) and PostgreSQL (a throwaway cluster this
session starts itself; see tests/support/postgres.py). Each database is migrated once into a
template; every test gets a copy (a file copy for SQLite, ``CREATE DATABASE ... TEMPLATE`` for
PostgreSQL). With ``CI=true`` a PostgreSQL that cannot start fails the run; elsewhere those
tests are skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import Phase
from hypothesis import settings as hypothesis_settings

from app.db.migrate import upgrade
from app.rules import registry
from tests.support.blind import BLIND
from tests.support.postgres import PgCluster, cluster_for_tests
from tests.support.tiny import TINY

IN_CI = os.environ.get("CI", "").lower() == "true"

# Every write of every test checks that the state it keeps for the next request, as the
# ruleset made it, is the state a reader would parse from the database (app.service.pipeline
# remember_state): a ruleset whose states do not survive their own dump fails loudly here.
os.environ.setdefault("REFEREE_CHECK_KEPT_STATE", "1")

# Property tests: a fixed seed in CI (the same examples every run, so a red run is a real
# regression and reproducible), random locally, many more examples under `make test-long`
# (tests/support/props.py scales the per-test example counts). No deadline anywhere: a
# per-example time limit is a timed assertion, and fails on a loaded machine. docs/TESTING.md.
hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
hypothesis_settings.register_profile("dev", deadline=None)
# bench/mutate.py's pytest step: the ci examples without shrinking (a mutant's failing example
# is a kill however small it is, and shrinking one costs more than the run that found it)
hypothesis_settings.register_profile(
    "mutate",
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
)
hypothesis_settings.register_profile("long", deadline=None, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if IN_CI else "dev"))


def pytest_report_header() -> str:
    """Which build of the zoc search the run uses (compiled, or pure and why:
    app/native.py; ``make install-dev`` compiles it again after an edit)."""
    from app import native

    return native.describe()


@pytest.fixture(scope="session", autouse=True)
def tiny_ruleset() -> Iterator[None]:
    """Register the tiny and blind (sealed bids) test rulesets for the whole session."""
    registry.register(TINY)
    registry.register(BLIND)
    yield
    registry.unregister(BLIND.id)
    registry.unregister(TINY.id)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    yield from cluster_for_tests()


@pytest.fixture(scope="session")
def pg_template(pg_cluster: PgCluster) -> str:
    """A database migrated to head, used as the template of every test database."""
    name = pg_cluster.create_database("referee_template")
    upgrade(pg_cluster.url(name))
    return name


@pytest.fixture
def pg_url(pg_cluster: PgCluster, pg_template: str) -> Iterator[str]:
    """A PostgreSQL database of its own, migrated (a copy of the template), dropped after."""
    name = pg_cluster.create_database(template=pg_template)
    try:
        yield pg_cluster.url(name)
    finally:
        pg_cluster.drop_database(name)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.pg)])
def db_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def db_url(db_kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database at the schema's head revision."""
    if db_kind == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "referee.db"
        shutil.copyfile(template, path)
        yield f"sqlite:///{path}"
        return
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    name = cluster.create_database(template=request.getfixturevalue("pg_template"))
    try:
        yield cluster.url(name)
    finally:
        cluster.drop_database(name)


@pytest.fixture
def empty_db_url(db_kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database with no tables at all (for migration tests)."""
    if db_kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    name = cluster.create_database(template="template0")
    try:
        yield cluster.url(name)
    finally:
        cluster.drop_database(name)
