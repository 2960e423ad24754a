"""A throwaway PostgreSQL cluster for the test session.

``initdb``/``pg_ctl`` are found on PATH or in ``pg_config --bindir``. When running as root (CI
does), the cluster runs as the ``postgres`` OS user (``runuser``), its temp directory chowned to
it. It listens on 127.0.0.1 on a free port with its unix socket inside the temp directory, has
fsync off (it is thrown away), and is stopped with ``pg_ctl stop -m immediate``.
:meth:`PgCluster.halt` / :meth:`PgCluster.restart` stop and start its server on the same data
directory and port (database outage tests).
"""

from __future__ import annotations

import atexit
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from psycopg import sql


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL binaries, or the cluster did not start."""


def find_bindir() -> Path | None:
    """The directory holding initdb and pg_ctl, or None. ``REFEREE_TEST_PG_BINDIR`` overrides
    the search (a directory without initdb means: no PostgreSQL here)."""
    override = os.environ.get("REFEREE_TEST_PG_BINDIR")
    if override is not None:
        return Path(override) if (Path(override) / "initdb").exists() else None
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(initdb).resolve().parent
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, check=True, timeout=30
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            out = ""
        if out and (Path(out) / "initdb").exists():
            return Path(out)
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "initdb").exists():
            return candidate
    return None


PORT_RANGE = range(20_000, 30_000)
"""Below Linux's ephemeral range (32768-60999): the kernel never hands these out by itself."""
PORT_CLAIMS = Path(tempfile.gettempdir()) / "referee-test-ports"


def _claim(port: int) -> bool:
    """Claim ``port`` for this process with an exclusive claim file (a claim whose process is
    gone is taken over)."""
    PORT_CLAIMS.mkdir(exist_ok=True)
    path = PORT_CLAIMS / str(port)
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                owner = int(path.read_text() or "0")
                os.kill(owner, 0)  # the owner is alive: the port stays claimed
                return False
            except (ValueError, ProcessLookupError, FileNotFoundError):
                path.unlink(missing_ok=True)  # stale claim: try once more
                continue
            except PermissionError:
                return False
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        atexit.register(path.unlink, missing_ok=True)
        return True
    return False


def free_port() -> int:
    """A loopback port for a server a test starts, handed out without races: taken from a
    range the kernel never assigns to other sockets, claimed by an exclusive file shared by
    every test process on the machine, and checked free with a bind."""
    start = PORT_RANGE.start + (os.getpid() * 7919 + uuid.uuid4().int) % len(PORT_RANGE)
    for n in range(len(PORT_RANGE)):
        port = PORT_RANGE.start + (start - PORT_RANGE.start + n) % len(PORT_RANGE)
        if not _claim(port):
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # in use by something else: keep the claim, try the next port
        return port
    raise RuntimeError("no free loopback port")


@dataclass
class PgCluster:
    root: Path
    bindir: Path
    port: int
    run_as: str | None
    user: str = "postgres"
    options: str = ""
    """The server options ``pg_ctl start -o`` got (port, socket directory, …)."""
    _stopped: bool = field(default=False, repr=False)

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def sockets(self) -> Path:
        return self.root / "sock"

    def url(self, dbname: str) -> str:
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/{dbname}"

    def _connect(self) -> psycopg.Connection[tuple[object, ...]]:
        return psycopg.connect(
            host="127.0.0.1", port=self.port, user=self.user, dbname="postgres", autocommit=True
        )

    def create_database(self, name: str | None = None, template: str | None = None) -> str:
        name = name or f"t_{uuid.uuid4().hex[:16]}"
        stmt = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template:
            stmt = sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(name), sql.Identifier(template)
            )
        with self._connect() as conn:
            conn.execute(stmt)
        return name

    def drop_database(self, name: str) -> None:
        with self._connect() as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )

    def _cmd(self, *args: str) -> list[str]:
        if self.run_as:
            return ["runuser", "-u", self.run_as, "--", *args]
        return list(args)

    def halt(self, mode: str = "fast") -> None:
        """Stop the server but keep the cluster (``pg_ctl stop -m fast``: sessions are
        terminated, committed work is kept); :meth:`restart` brings it back."""
        _run(
            self._cmd(str(self.bindir / "pg_ctl"), "-D", str(self.data), "stop", "-m", mode, "-w"),
            "pg_ctl stop",
        )

    def restart(self) -> None:
        """Start the server again on the same data directory and port."""
        self._start()

    def _start(self) -> None:
        _run(
            self._cmd(
                str(self.bindir / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.root / "server.log"),
                "-o",
                self.options,
                "-w",
                "-t",
                "60",
                "start",
            ),
            "pg_ctl start",
        )

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        try:
            subprocess.run(
                self._cmd(
                    str(self.bindir / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "stop",
                    "-m",
                    "immediate",
                    "-w",
                ),
                capture_output=True,
                timeout=60,
                check=False,
            )
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def start_cluster() -> PgCluster:
    """Start a fresh cluster or raise :class:`PostgresUnavailable` saying why."""
    bindir = find_bindir()
    if bindir is None:
        raise PostgresUnavailable("initdb/pg_ctl not found on PATH nor via pg_config --bindir")
    root = Path(tempfile.mkdtemp(prefix="referee-pg-"))
    run_as: str | None = None
    if os.geteuid() == 0:
        try:
            pw = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(root, ignore_errors=True)
            raise PostgresUnavailable("running as root but there is no `postgres` user") from None
        run_as = "postgres"
        os.chown(root, pw.pw_uid, pw.pw_gid)
    cluster = PgCluster(root=root, bindir=bindir, port=free_port(), run_as=run_as)
    try:
        (root / "sock").mkdir()
        if run_as:
            pw = pwd.getpwnam(run_as)
            os.chown(root / "sock", pw.pw_uid, pw.pw_gid)
        _run(
            cluster._cmd(
                str(bindir / "initdb"),
                "-D",
                str(cluster.data),
                "-U",
                cluster.user,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ),
            "initdb",
        )
        cluster.options = " ".join(
            [
                f"-p {cluster.port}",
                f"-k {cluster.sockets}",
                "-c listen_addresses=127.0.0.1",
                "-c fsync=off",
                "-c synchronous_commit=off",
                "-c full_page_writes=off",
                "-c max_connections=200",
            ]
        )
        cluster._start()
    except Exception as exc:
        log = root / "server.log"
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        try:
            cluster.stop()
        except Exception as stop_exc:  # the cluster may never have started
            tail += f"\n(stopping it failed too: {stop_exc})"
        raise PostgresUnavailable(f"{exc}\n{tail}") from exc
    return cluster


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if proc.returncode != 0:
        raise PostgresUnavailable(
            f"{what} failed ({proc.returncode}): {proc.stderr.strip() or proc.stdout.strip()}"
        )


def cluster_for_tests() -> Iterator[PgCluster]:
    """A fresh cluster for a fixture to yield (``yield from``), stopped afterwards. Where
    PostgreSQL cannot start the test is skipped, but in CI (``CI=true``), which must run it,
    it fails."""
    try:
        cluster = start_cluster()
    except PostgresUnavailable as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"PostgreSQL is required in CI but did not start: {exc}")
        pytest.skip(f"PostgreSQL unavailable: {exc}")
    try:
        yield cluster
    finally:
        cluster.stop()
