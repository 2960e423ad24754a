"""HTTP benchmarks under wrk (a load generator in its own process) against a real uvicorn.

Every figure is a ratio to two baselines measured in the same run: a bare endpoint of the
same app, ``GET /_bench/read/{id}`` (one row read) for reads and dry runs, ``POST
/_bench/write/{id}`` (one row updated and one inserted) for submissions (``bench/server.py``);
and the same endpoints of a bare FastAPI app with raw ``sqlite3`` / ``psycopg`` and no project
code (``bench/bare.py``), the honest floor.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, insert, select, text, update

from bench.report import Row

ROOT = Path(__file__).resolve().parents[1]
LUA = ROOT / "bench" / "lua"
WRK_MISSING = (
    "wrk, the HTTP load generator, is not installed: the HTTP benchmarks are skipped. "
    "Install it with `sudo apt-get install wrk` (Debian/Ubuntu), `brew install wrk` (macOS) "
    "or from https://github.com/wg/wrk, then run `make bench` again."
)


def wrk_path() -> str | None:
    return shutil.which("wrk")


@dataclass
class Load:
    """One wrk run: requests per second, latency percentiles and answers by status."""

    rps: float
    p50_ms: float
    p99_ms: float
    statuses: dict[str, int]
    errors: int
    cpu_ms: float = float("nan")
    """Server CPU time (every process) per answered request: steadier than throughput on a
    shared machine, where the server gets a varying share of the cores."""
    other_cpu_ms: float = float("nan")
    """CPU time per answered request of a further process measured alongside (PostgreSQL)."""

    def count(self, *codes: str) -> int:
        return sum(self.statuses.get(c, 0) for c in codes)


@dataclass
class Measured:
    """Repeated wrk runs of one request: median and spread of the throughput."""

    runs: list[Load] = field(default_factory=list)

    @property
    def rps(self) -> float:
        return statistics.median(r.rps for r in self.runs)

    @property
    def spread(self) -> tuple[float, float]:
        return min(r.rps for r in self.runs), max(r.rps for r in self.runs)

    @property
    def p50_ms(self) -> float:
        return statistics.median(r.p50_ms for r in self.runs)

    @property
    def p99_ms(self) -> float:
        return statistics.median(r.p99_ms for r in self.runs)

    def statuses(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.runs:
            for k, v in r.statuses.items():
                out[k] = out.get(k, 0) + v
        return out

    @property
    def errors(self) -> int:
        return sum(r.errors for r in self.runs)

    @property
    def cpu_ms(self) -> float:
        return statistics.median(r.cpu_ms for r in self.runs)


def _script(name: str, tmp: Path) -> Path:
    path = tmp / f"{name}.lua"
    path.write_text((LUA / "common.lua").read_text() + "\n" + (LUA / f"{name}.lua").read_text())
    return path


def run_wrk(
    url: str,
    script: Path,
    *,
    env: dict[str, str],
    threads: int,
    connections: int,
    seconds: float,
    cpus: str | None = None,
    also: int | None = None,
) -> Load:
    """``cpus``: run wrk on those CPUs only (``taskset -c``); ``also``: a further process whose
    CPU time (with its children's) per request is measured too (``Load.other_cpu_ms``)."""
    print(f"  wrk {connections} connections, {seconds:g} s: {url}", file=sys.stderr, flush=True)
    pid = _SERVERS.get(url.split("/", 3)[2])
    cpu_before = server_cpu_seconds(pid)
    other_before = server_cpu_seconds(also)
    cmd = [
        *(["taskset", "-c", cpus] if cpus else []),
        "nice",
        "-n",
        "5",
        str(wrk_path()),
        f"-t{threads}",
        f"-c{connections}",
        f"-d{seconds}s",
        "--latency",
        "--timeout",
        "10s",
        "-s",
        str(script),
        url,
    ]
    done = subprocess.run(
        cmd, env={**os.environ, **env}, capture_output=True, text=True, timeout=seconds + 60
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("BENCH ")), None)
    if line is None:
        raise RuntimeError(f"wrk gave no result: {done.stdout}\n{done.stderr}")
    data = json.loads(line[6:])
    answered = sum(data["statuses"].values())
    return Load(
        rps=data["requests"] / (data["duration_us"] / 1e6),
        p50_ms=data["p50_us"] / 1e3,
        p99_ms=data["p99_us"] / 1e3,
        statuses=data["statuses"],
        errors=data["errors"],
        cpu_ms=(server_cpu_seconds(pid) - cpu_before) * 1e3 / answered if answered else math.nan,
        other_cpu_ms=(server_cpu_seconds(also) - other_before) * 1e3 / answered
        if answered
        else math.nan,
    )


_SERVERS: dict[str, int] = {}
"""host:port -> the pid of the uvicorn started there (its workers are its children)."""


def server_cpu_seconds(pid: int | None) -> float:
    """User + system CPU seconds of a process and its children so far (Linux /proc; NaN
    elsewhere)."""
    if pid is None:
        return math.nan
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        total = 0.0
        for p in (pid, *map(int, children)):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    except (OSError, ValueError, IndexError):
        return math.nan
    return total / os.sysconf("SC_CLK_TCK")


# -- databases and servers -------------------------------------------------------------------


@contextmanager
def sqlite_database(tmp: Path) -> Iterator[str]:
    yield f"sqlite:///{tmp}/bench.db"


@contextmanager
def postgres_database() -> Iterator[str | None]:
    """A throwaway PostgreSQL cluster (the test suite's helper); None if it cannot start."""
    sys.path.insert(0, str(ROOT))
    from tests.support.postgres import PostgresUnavailable, start_cluster

    try:
        cluster = start_cluster()
    except PostgresUnavailable as exc:
        print(f"  (PostgreSQL benchmarks skipped: {exc})")
        yield None
        return
    try:
        yield cluster.url(cluster.create_database("bench"))
    finally:
        cluster.stop()


def prepare(url: str) -> None:
    from app.db.migrate import upgrade
    from bench.server import create_bare_tables

    upgrade(url)
    engine = create_engine(url)
    try:
        create_bare_tables(engine)
    finally:
        engine.dispose()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def server(
    url: str,
    workers: int = 1,
    extra: dict[str, str] | None = None,
    app: str = "bench.server",
    cpus: str | None = None,
    root: Path = ROOT,
) -> Iterator[str]:
    """uvicorn serving ``app``'s ``create`` factory (the Referee app plus its bare endpoints,
    or ``bench.bare``: the bare app, ``BARE_DATABASE_URL`` = ``url``); ``cpus``: on those
    CPUs only (``taskset -c``); ``root``: the checkout whose code it serves (another one's:
    before and after compared in one sitting, ``bench/reads.py``)."""
    port = _free_port()
    env = {
        **os.environ,
        "REFEREE_DATABASE_URL": url,
        "BARE_DATABASE_URL": url,
        "REFEREE_GC_TUNING": "true",  # as `referee serve` runs
        "PYTHONPATH": str(root),
        **(extra or {}),
    }
    cmd = [
        *(["taskset", "-c", cpus] if cpus else []),
        sys.executable,
        "-m",
        "uvicorn",
        f"{app}:create",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--log-level",
        "warning",
        "--no-access-log",
    ]
    log = tempfile.TemporaryFile()  # noqa: SIM115 -- never a pipe: a full one stalls the server
    proc = subprocess.Popen(cmd, cwd=root, env=env, stderr=log)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError(f"server did not start: {log.read()[-2000:]!r}")
            time.sleep(0.2)
        _SERVERS[base.split("/", 3)[2]] = proc.pid
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        log.close()


@dataclass
class BenchGame:
    id: str
    umpire: str
    etag: str
    unit: str
    hexes: tuple[str, str]
    dry_run: dict[str, Any]


def new_game(
    base: str,
    url: str,
    ruleset: str,
    scenario: dict[str, Any],
    unit: str,
    hexes: tuple[str, str],
    dry_run: dict[str, Any],
) -> BenchGame:
    r = httpx.post(f"{base}/games", json={"ruleset": ruleset, "scenario": scenario}, timeout=120)
    r.raise_for_status()
    body = r.json()
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(
                text("INSERT INTO bench_counter (id, n) VALUES (:id, 0)"), {"id": body["id"]}
            )
    finally:
        engine.dispose()
    return BenchGame(
        body["id"], body["seats"]["umpire"], f'W/"{body["version"]}"', unit, hexes, dry_run
    )


def add_events(base: str, url: str, game: BenchGame, total: int) -> BenchGame:
    """Grow a game's log to ``total`` events: submit one real action, then copy its event row
    (bulk insert) and move the game's version on to match."""
    from app.db.models import EventRow, GameRow
    from app.db.repository import DirectReads

    r = httpx.post(
        f"{base}/games/{game.id}/actions",
        json={"kind": "place_unit", "unit": game.unit, "hex": game.hexes[0]},
        headers={"Authorization": f"Bearer {game.umpire}", "If-Match": game.etag},
        timeout=30,
    )
    r.raise_for_status()
    engine = create_engine(url)
    try:
        reads = DirectReads(engine)  # the state the real action left (the row may hold an
        try:  # older one and the delta since: migration 0013)
            state = reads.document(game.id, "state", int(r.json()["version"]))
        finally:
            reads.close()
        with engine.begin() as conn:
            row = conn.execute(select(EventRow).where(EventRow.game_id == game.id)).first()
            assert row is not None
            data = dict(row._mapping)
            data.pop("id")
            # the copies carry the action and ruling, not the state snapshot (rollback only)
            data.update(
                idempotency_key=None,
                request_digest=None,
                response=None,
                state_after=None,
                state_delta=None,
            )
            base_seq, base_version = data["seq"], data["version"]
            rows = []
            for i in range(1, total):
                rows.append({**data, "seq": base_seq + i, "version": base_version + i})
            for start in range(0, len(rows), 2000):
                conn.execute(insert(EventRow), rows[start : start + 2000])
            version = base_version + total - 1
            # the copies keep no state: the row holds the current one whole
            conn.execute(
                update(GameRow)
                .where(GameRow.id == game.id)
                .values(version=version, state=state, state_seq=None)
            )
    finally:
        engine.dispose()
    game.etag = f'W/"{version}"'
    return game


# -- measurements -----------------------------------------------------------------------------


@dataclass
class Settings:
    seconds: float = 3.0
    repeat: int = 3
    read_threads: int = 2
    read_connections: int = 16
    write_connections: int = 4


class Bench:
    """wrk runs against one server: reads, dry runs, submissions and the bare endpoints."""

    def __init__(
        self,
        base: str,
        tmp: Path,
        settings: Settings,
        db_url: str | None = None,
        wrk_cpus: str | None = None,
        also: int | None = None,
    ) -> None:
        self.wrk_cpus = wrk_cpus
        self.also = also
        self.base = base
        self.db_url = db_url
        self.tmp = tmp
        self.s = settings
        self.fixed = _script("fixed", tmp)
        self.submit = _script("submit", tmp)

    def _repeat(self, path: str, env: dict[str, str], script: Path, t: int, c: int) -> Measured:
        body = env.get("BENCH_BODY")
        httpx.request(  # warm up: the first request of a board fills the per-board caches
            env.get("BENCH_METHOD", "GET"),
            self.base + path,
            content=body,
            headers={"Content-Type": "application/json"} if body else {},
            timeout=300,
        )
        out = Measured()
        for _ in range(self.s.repeat):
            out.runs.append(
                run_wrk(
                    self.base + path,
                    script,
                    env=env,
                    threads=t,
                    connections=c,
                    seconds=self.s.seconds,
                    cpus=self.wrk_cpus,
                    also=self.also,
                )
            )
        return out

    def get(self, path: str, token: str | None = None) -> Measured:
        env = {"BENCH_METHOD": "GET"}
        if token:
            env["BENCH_TOKEN"] = token
        return self._repeat(path, env, self.fixed, self.s.read_threads, self.s.read_connections)

    def post(self, path: str, body: dict[str, Any], *, writers: bool = False) -> Measured:
        env = {"BENCH_METHOD": "POST", "BENCH_BODY": json.dumps(body)}
        t, c = (
            (self.s.write_connections, self.s.write_connections)
            if writers
            else (self.s.read_threads, self.s.read_connections)
        )
        return self._repeat(path, env, self.fixed, t, c)

    def submissions(
        self,
        games: list[BenchGame],
        threads: int,
        connections: int,
        seconds: float | None = None,
        warmup: float = 0,
        prefer: str | None = None,
    ) -> Measured:
        """Legal submissions with If-Match; every game's ETag follows its version. With
        ``warmup``, one unmeasured run of that many seconds first (so the measured runs see
        the steady state, not every connection's first request queued at once)."""
        games_file = self.tmp / "games.txt"
        self._write_games(games, games_file)
        env = {"BENCH_GAMES": str(games_file), "BENCH_THREADS": str(threads)}
        if prefer:
            env["BENCH_PREFER"] = prefer
        if warmup:
            run_wrk(
                self.base + "/",
                self.submit,
                env=env,
                threads=threads,
                connections=connections,
                seconds=warmup,
                cpus=self.wrk_cpus,
            )
            self._write_games(games, games_file)
        out = Measured()
        for _ in range(self.s.repeat):
            out.runs.append(
                run_wrk(
                    self.base + "/",
                    self.submit,
                    env=env,
                    threads=threads,
                    connections=connections,
                    seconds=seconds or self.s.seconds,
                    cpus=self.wrk_cpus,
                    also=self.also,
                )
            )
            self._write_games(games, games_file)  # the next run starts from the current versions
        return out

    def _write_games(self, games: list[BenchGame], path: Path) -> None:
        """The games file of ``submit.lua``: one game a line, with its current ETag (read from
        the database in one query when the bench knows it: 200 GETs took seconds per run)."""
        lines = []
        versions = self._versions([g.id for g in games]) if self.db_url else {}
        for g in games:
            etag = (
                f'W/"{versions[g.id]}"'
                if g.id in versions
                else httpx.get(f"{self.base}/games/{g.id}", timeout=30).headers["etag"]
            )
            lines.append(f"{g.id} {g.umpire} {g.unit} {g.hexes[0]} {g.hexes[1]} {etag}")
        path.write_text("\n".join(lines) + "\n")

    def _versions(self, ids: list[str]) -> dict[str, int]:
        from app.db.models import GameRow

        engine = create_engine(str(self.db_url))
        try:
            with engine.connect() as conn:
                rows = conn.execute(select(GameRow.id, GameRow.version).where(GameRow.id.in_(ids)))
                return {row[0]: int(row[1]) for row in rows}
        finally:
            engine.dispose()

    def writers(self, games: list[BenchGame], prefer: str | None = None) -> Measured:
        n = self.s.write_connections
        return self.submissions(games[:n], threads=n, connections=n, prefer=prefer)


# -- suites ---------------------------------------------------------------------------------


def _rps(m: Measured) -> str:
    lo, hi = m.spread
    return (
        f"{m.rps:.0f}/s ({lo:.0f}-{hi:.0f}) p50 {m.p50_ms:.1f} p99 {m.p99_ms:.1f} ms, "
        f"CPU {m.cpu_ms:.2f} ms/req"
    )


def _target(name: str) -> float:
    """The issue's target for a row: a submission on the 100x100 map >= 0.3x (a write in
    proportion to its change, on a state of 501 units), every other row >= 0.5x."""
    return 0.3 if name.startswith("submission") and "100x100" in name else 0.5


def _vs(section: str, name: str, m: Measured, bare: Measured, note: str = "") -> Row:
    target = _target(name)
    ratio = m.rps / bare.rps
    tail = m.p99_ms / m.p50_ms if m.p50_ms else float("inf")
    bare_tail = bare.p99_ms / bare.p50_ms if bare.p50_ms else float("inf")
    bad = {k: v for k, v in m.statuses().items() if not k.startswith("2")}
    extra = f"; non-2xx {bad}" if bad else ""
    return Row(
        section,
        name,
        _rps(m),
        _rps(bare),
        f"{ratio:.2f}x thr, p99/p50 {tail:.1f} (bare {bare_tail:.1f}); "
        f"{bare.cpu_ms / m.cpu_ms:.2f}x CPU",
        f">={target:.2f}x, p99<4x p50",
        ratio >= target and tail < 4,
        note + extra,
    )


def seed_game(base: str, url: str) -> BenchGame:
    scenario = json.loads((ROOT / "scenarios/zoc/seed-example.json").read_text())
    return new_game(
        base,
        url,
        "zoc",
        scenario,
        "de-inf-2",
        ("e3307", "e3207"),
        {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]},
    )


def big_game(base: str, url: str, size: int = 100, enemies: int = 500, **kw: Any) -> BenchGame:
    from bench.scenarios import hex_id, mover_step, zoc_scenario

    scenario = zoc_scenario(size, enemies, **kw)
    step = mover_step(scenario)
    id_size = kw.get("id_size") or size
    return new_game(
        base,
        url,
        "zoc",
        scenario,
        "mover",
        (hex_id(1, 1, id_size), hex_id(1, 2, id_size)),
        {"kind": "move", "unit": "mover", "path": step},
    )


def _state_text(url: str, game_id: str) -> str:
    """The game's state as JSON text (the bare app's row holds a text of the same size)."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            state = conn.execute(
                text("SELECT state FROM games WHERE id = :id"), {"id": game_id}
            ).scalar()
    finally:
        engine.dispose()
    return state if isinstance(state, str) else json.dumps(state, separators=(",", ":"))


def main_suite(db: str, url: str, tmp: Path, s: Settings) -> list[Row]:
    """Every row twice: against the in-app bare endpoints (``bench/server.py``) and against
    the bare app (``bench/bare.py``: raw driver, no project code), on the same data."""
    from bench.bare import seed

    rows: list[Row] = []
    floor: list[Row] = []
    load = f"wrk: reads {s.read_connections} connections, writes {s.write_connections}"
    section = f"HTTP, {db}, 1 process ({load})"
    floor_section = f"HTTP, {db}, 1 process, against the bare app (bench/bare.py; {load})"
    measured: list[tuple[str, str, Measured, str]] = []
    with server(url) as base:
        bench = Bench(base, tmp, s)
        health = bench.get("/healthz")
        in_app_read = bench.get(f"/_bench/read/{seed_game(base, url).id}")
        rows.append(_vs(section, "GET /healthz", health, in_app_read))
        measured.append(("GET /healthz", "health", health, ""))
        for label, make in (("seed example", seed_game), ("100x100, 501 units", big_game)):
            games = [make(base, url) for _ in range(s.write_connections)]
            g = games[0]
            seed(url, {x.id: _state_text(url, x.id) for x in games})
            bare_read = bench.get(f"/_bench/read/{g.id}")
            got = bench.get(f"/games/{g.id}")
            dry = bench.post(f"/games/{g.id}/rulings", g.dry_run)
            bare_write = bench.post(f"/_bench/write/{g.id}", {"n": 1}, writers=True)
            sub = bench.writers(games)
            small = bench.writers(games, prefer="return=minimal")
            minimal = "place_unit with If-Match, Prefer: return=minimal"
            rows.append(_vs(section, f"GET game ({label})", got, bare_read))
            rows.append(_vs(section, f"dry run ({label})", dry, bare_read))
            rows.append(
                _vs(section, f"submission ({label})", sub, bare_write, "place_unit with If-Match")
            )
            rows.append(_vs(section, f"submission, minimal ({label})", small, bare_write, minimal))
            measured += [
                (f"in-app bare read ({label})", f"read:{g.id}", bare_read, "bench/server.py"),
                (f"in-app bare write ({label})", f"write:{g.id}", bare_write, "bench/server.py"),
                (f"GET game ({label})", f"read:{g.id}", got, ""),
                (f"dry run ({label})", f"read:{g.id}", dry, ""),
                (f"submission ({label})", f"write:{g.id}", sub, "place_unit with If-Match"),
                (f"submission, minimal ({label})", f"write:{g.id}", small, minimal),
            ]
    with server(url, app="bench.bare") as bare_base:
        bare = Bench(bare_base, tmp, s)
        floors: dict[str, Measured] = {"health": bare.get("/healthz")}
        for _, key, _, _ in measured:
            if key not in floors:
                kind, doc = key.split(":")
                floors[key] = (
                    bare.get(f"/bare/read/{doc}")
                    if kind == "read"
                    else bare.post(f"/bare/write/{doc}", {"n": 1}, writers=True)
                )
    for name, key, m, note in measured:
        floor.append(_vs(floor_section, name, m, floors[key], note))
    return rows + floor


def _growth(section: str, name: str, small: Measured, big: Measured, limit: float) -> Row:
    cost = small.rps / big.rps
    return Row(
        section,
        name,
        _rps(big),
        _rps(small),
        f"{cost:.2f}x cost ({big.cpu_ms / small.cpu_ms:.2f}x CPU)",
        f"<={limit}x",
        cost <= limit,
    )


def growth_suite(url: str, tmp: Path, s: Settings) -> list[Row]:
    section = "Growth (SQLite, 1 process; ratio = cost of the big case over the small one)"
    rows: list[Row] = []
    with server(url) as base:
        bench = Bench(base, tmp, s)
        few = seed_game(base, url)
        many = seed_game(base, url)
        add_events(base, url, few, 10)
        add_events(base, url, many, 10_000)
        for what, fn in (
            ("GET game", lambda g: bench.get(f"/games/{g.id}")),
            ("dry run", lambda g: bench.post(f"/games/{g.id}/rulings", g.dry_run)),
            ("submission", lambda g: bench.submissions([g], 1, 1)),
        ):
            rows.append(_growth(section, f"{what}: 10,000 events vs 10", fn(few), fn(many), 1.1))
        small = big_game(base, url, 10, 5, units_within=10, id_size=100)
        large = big_game(base, url, 100, 5, units_within=10, id_size=100)
        for what, fn in (
            ("GET game", lambda g: bench.get(f"/games/{g.id}")),
            ("dry run", lambda g: bench.post(f"/games/{g.id}/rulings", g.dry_run)),
        ):
            rows.append(_growth(section, f"{what}: 10,000 hexes vs 100", fn(small), fn(large), 1.5))
        few_units = big_game(base, url, 100, 20)
        many_units = big_game(base, url, 100, 500)
        for what, fn in (
            ("GET game", lambda g: bench.get(f"/games/{g.id}")),
            ("dry run", lambda g: bench.post(f"/games/{g.id}/rulings", g.dry_run)),
        ):
            rows.append(
                Row(
                    section,
                    f"{what}: 500 units vs 20 (100x100)",
                    _rps(fn(many_units)),
                    _rps(fn(few_units)),
                    "",
                    "",
                    None,
                )
            )
        for row in rows[-2:]:
            row.ratio = "see measured"
    return rows


def concurrency_suite(
    url: str, tmp: Path, s: Settings, seconds: float, warmup: float, repeat: int
) -> list[Row]:
    """200 games, two wrk connections each (400), on 1, 2 and 4 server processes: after an
    unmeasured warm-up run, ``repeat`` measured runs of ``seconds`` each."""
    section = "Concurrency (PostgreSQL, 200 games, two clients each, submissions)"
    rows: list[Row] = []
    one: float | None = None
    games: list[BenchGame] = []
    for workers in (1, 2, 4):
        with server(url, workers) as base:
            games = games or [seed_game(base, url) for _ in range(200)]
            bench = Bench(base, tmp, Settings(seconds=seconds, repeat=repeat), db_url=url)
            m = bench.submissions(games, threads=2, connections=400, seconds=seconds, warmup=warmup)
        st = m.statuses()
        per_run = [r.statuses.get("201", 0) / seconds for r in m.runs]
        accepted = statistics.median(per_run)
        other = {k: v for k, v in st.items() if k not in ("201", "412", "200")}
        one = one or accepted
        scale = accepted / one
        rows.append(
            Row(
                section,
                f"{workers} process(es)",
                f"{accepted:.0f} accepted/s ({min(per_run):.0f}-{max(per_run):.0f}), "
                f"{m.rps:.0f} req/s, p50 {m.p50_ms:.0f} p99 {m.p99_ms:.0f} ms, "
                f"CPU {m.cpu_ms:.2f} ms/req",
                "1 process" if workers > 1 else "-",
                f"{scale:.2f}x",
                ">=1.6x" if workers == 2 else "",
                (scale >= 1.6) if workers == 2 else None,
                f"412: {st.get('412', 0)}, other errors: {other or 0}, socket errors: {m.errors}",
            )
        )
    return rows


def _emit(rows: list[Row]) -> list[Row]:
    """Print a suite's rows as soon as it ends (a long run keeps what it measured)."""
    from bench.report import markdown

    print(markdown(rows), flush=True)
    return rows


def run_all(quick: bool = False) -> list[Row]:
    if wrk_path() is None:
        print(WRK_MISSING)
        return []
    s = (
        Settings(seconds=2, repeat=2, write_connections=2)
        if quick
        else Settings(seconds=3, repeat=3)
    )
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        url = f"sqlite:///{tmp}/bench.db"
        prepare(url)
        rows += _emit(main_suite("SQLite", url, tmp, s))
        rows += _emit(growth_suite(url, tmp, s))
        with postgres_database() as pg:
            if pg is not None:
                prepare(pg)
                rows += _emit(main_suite("PostgreSQL", pg, tmp, s))
                rows += _emit(concurrency_suite(pg, tmp, s, *((5, 3, 2) if quick else (15, 5, 3))))
    return rows
