"""A request's CPU cost in process: the app called as ASGI, no network, no load generator.

The HTTP rows of ``make bench`` swing with the server's share of a shared machine; the CPU
time a request costs the process does not. Here the application (``app.main.create_app``,
its lifespan run, as ``referee serve`` runs it) and the bare app (``bench/bare.py``) are
called as ASGI apps, one request after another, on the same database and documents, and each
request's CPU time is the process's CPU time over ``--requests`` requests (the median of
``--batches`` batches). ``--profile NAME`` prints cProfile's top functions for one row.

Rows: ``GET /healthz``, GET game and a dry run on the seed example and on the 100x100 map
with 501 units, and the bare app's read of a row of the same size; GET game and the
``reachable`` query of the dry run's unit also cold (the parsed state forgotten first: the
state read, parsed and indexed, as on a cache miss). With ``--write-rows``: submissions
(umpire ``place_unit``, each after the last), with a GET game after each, and the bare app's
write (``POST /bare/write/{id}``: its UPDATE and INSERT, as the HTTP rows' baseline), and
GET game cold on a game between snapshots (its row's state and 10 deltas after it).

Run: ``python -m bench.inproc [--postgres] [--requests 1500] [--batches 5]``. ``--root DIR``
measures the application of another checkout (``DIR/app``) with this harness: before and
after alternated in one sitting.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import gc
import io
import itertools
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, cast

HERE = Path(__file__).resolve().parents[1]

Call = Callable[[], Awaitable[tuple[int, bytes]]]


def asgi_call(
    app: Any, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> Call:
    """A request to ``app`` as a server would make it (status and body returned)."""
    path, _, query = path.partition("?")
    raw = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    raw.append((b"host", b"bench"))
    if body:
        raw.append((b"content-length", str(len(body)).encode()))
    scope_base = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query.encode(),
        "headers": raw,
        "client": ("127.0.0.1", 5000),
        "server": ("bench", 80),
    }

    async def call() -> tuple[int, bytes]:
        sent = False
        status = 0
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await app(dict(scope_base), receive, send)
        return status, b"".join(chunks)

    return call


class GcWatch:
    """The garbage collector's passes while a row runs: how many per generation and their
    time (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.count = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            gen = info["generation"]
            self.count[gen] += 1
            self.seconds[gen] += time.perf_counter() - self._started

    def __enter__(self) -> GcWatch:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)

    def report(self, requests: int) -> str:
        return ", ".join(
            f"gen{g} {self.count[g]} ({self.seconds[g] * 1e6 / requests:.1f} us/req)"
            for g in range(3)
        )


async def measure(call: Call, n: int, batches: int, watch: bool = False) -> tuple[float, str]:
    """CPU ms per request: the median over ``batches`` batches of ``n`` requests; and what the
    garbage collector did meanwhile (``watch``)."""
    status, body = await call()
    if status >= 300:
        raise RuntimeError(f"{status}: {body[:300]!r}")
    for _ in range(20):
        await call()
    out = []
    with GcWatch() as gcw:
        for _ in range(batches):
            start = time.process_time()
            for _ in range(n):
                await call()
            out.append((time.process_time() - start) * 1000 / n)
    return statistics.median(out), gcw.report(n * batches) if watch else ""


async def instructions(call: Call, n: int) -> str:
    """``n`` requests, each run inside one C call (``itertools.starmap``'s ``next``), for
    ``valgrind --tool=callgrind --collect-atstart=no --toggle-collect=starmap_next``: the
    instructions of the requests alone, the same on every run (a request that would wait
    for anything -- a worker thread, the network -- is refused: run on SQLite)."""
    for _ in range(20):
        await call()

    def drive() -> None:
        coro = cast(Coroutine[Any, Any, tuple[int, bytes]], call())
        try:
            coro.send(None)
        except StopIteration as done:
            status = done.value[0]
            if status >= 300:
                raise RuntimeError(f"{status}: {done.value[1][:300]!r}") from None
            return
        coro.close()
        raise RuntimeError("the request waited: it cannot be counted inside one call")

    collections.deque(itertools.starmap(drive, itertools.repeat((), n)), maxlen=0)
    return f"{n} requests run inside starmap_next"


async def profile(call: Call, n: int, top: int) -> str:
    for _ in range(20):
        await call()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        await call()
    prof.disable()
    if os.environ.get("BENCH_PROFILE_OUT"):  # pstats file for callers/callees
        prof.dump_stats(os.environ["BENCH_PROFILE_OUT"])
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def service_profile(app: Any, ids: dict[str, str], cases: list[Any], args: Any) -> str:
    """cProfile of the service call alone (in this thread: the worker thread's share of a
    request, which a profile of the event loop's thread does not see)."""
    from app.db.uow import SqlAlchemyUnitOfWork
    from app.service import actions, games

    st = app.state
    label = next(label for label, _, _ in cases if label in args.service)
    gid = ids[label]
    dry = next(d for lbl, _, d in cases if lbl == label)

    def once() -> Any:
        uow = SqlAlchemyUnitOfWork(st.session_factory)
        if args.service.startswith("dry"):
            return actions.dry_run(uow, gid, dry, token=None, boards=st.boards, now=time.time())
        return games.read_game(uow, gid, token=None, boards=st.boards, now=time.time())

    for _ in range(50):
        once()
    start = time.process_time()
    for _ in range(args.requests):
        once()
    ms = (time.process_time() - start) * 1000 / args.requests
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.requests):
        once()
    prof.disable()
    out = io.StringIO()
    print(f"{args.service}: {ms:.3f} ms CPU a call unprofiled", file=out)
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("cumulative").print_stats(args.top)
    stats.sort_stats("tottime").print_stats(args.top)
    return out.getvalue()


def _cold(app: Any, call: Call) -> Call:
    """``call`` with the parsed states and views forgotten first: a cache miss (the state
    read and parsed, the view made), as in a process that has not seen the game's version."""

    async def cold() -> tuple[int, bytes]:
        app.state.boards.states.clear()
        app.state.boards.views.clear()
        return await call()

    return cold


def _alternate(posts: list[Call], then: Call | None = None) -> Call:
    """Each call the next of ``posts`` in turn (and ``then`` after it)."""
    turn = 0

    async def call() -> tuple[int, bytes]:
        nonlocal turn
        turn += 1
        status, body = await posts[turn % len(posts)]()
        if status >= 300 or then is None:
            return status, body
        return await then()

    return call


class Lifespan:
    """Run an ASGI app's lifespan (start-up, shut-down) as a server does."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.started = asyncio.Event()
        self.done = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> None:
        async def receive() -> dict[str, Any]:
            return await self.queue.get()

        async def send(message: dict[str, Any]) -> None:
            if message["type"].startswith("lifespan.startup"):
                self.started.set()
            if message["type"].startswith("lifespan.shutdown"):
                self.done.set()

        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        self.task = asyncio.create_task(self.app(scope, receive, send))
        await self.queue.put({"type": "lifespan.startup"})
        await self.started.wait()

    async def __aexit__(self, *exc: object) -> None:
        await self.queue.put({"type": "lifespan.shutdown"})
        await self.done.wait()
        assert self.task is not None
        await self.task


async def run(url: str, args: argparse.Namespace) -> None:
    import httpx

    from app.config import Settings
    from app.db.migrate import upgrade
    from app.main import create_app
    from bench import bare
    from bench.scenarios import hex_id, mover_step, zoc_scenario

    upgrade(url)
    app = create_app(Settings(database_url=url, gc_tuning=not args.no_gc_tuning))
    os.environ["BARE_DATABASE_URL"] = url
    bare_app = bare.create()
    transport = httpx.ASGITransport(app=app)
    rows: list[tuple[str, Call]] = []
    async with Lifespan(app), Lifespan(bare_app):
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            seed_doc = json.loads((HERE / "scenarios/zoc/seed-example.json").read_text())
            big_doc = zoc_scenario(100, 500)
            cases = [
                ("seed example", seed_doc, {"kind": "move", "unit": "de-inf-2",
                                            "path": ["e3207", "e3307"]}),
                ("100x100", big_doc, {"kind": "move", "unit": "mover",
                                      "path": mover_step(big_doc)}),
            ]  # fmt: skip
            texts: dict[str, str] = {}
            ids: dict[str, str] = {}
            umpires: dict[str, str] = {}
            for label, doc, _ in cases:
                r = await client.post("/games", json={"ruleset": "zoc", "scenario": doc})
                r.raise_for_status()
                ids[label] = r.json()["id"]
                umpires[label] = r.json()["seats"]["umpire"]
                state = (await client.get(f"/games/{ids[label]}")).json()["state"]
                texts[ids[label]] = json.dumps(state, separators=(",", ":"))
            # games whose row holds a snapshot and the deltas of 10 events after it: the
            # common cold read between snapshots
            between: dict[str, str] = {}
            # the umpire's placements the write rows make: a unit and two hexes, in turn
            places = {"seed example": ("de-inf-2", ("e3307", "e3207")),
                      "100x100": ("mover", (hex_id(1, 1, 100), hex_id(1, 2, 100)))}  # fmt: skip
            for label, doc, _ in cases if args.write_rows else ():
                unit, hexes = places[label]
                r = await client.post("/games", json={"ruleset": "zoc", "scenario": doc})
                r.raise_for_status()
                umpire = r.json()["seats"]["umpire"]
                between[label] = r.json()["id"]
                for k in range(10):
                    done = await client.post(
                        f"/games/{between[label]}/actions",
                        json={"kind": "place_unit", "unit": unit, "hex": hexes[k % 2]},
                        headers={"authorization": f"Bearer {umpire}", "if-match": "*"},
                    )
                    done.raise_for_status()
        bare.seed(url, texts)
        rows.append(("GET /healthz", asgi_call(app, "GET", "/healthz")))
        rows.append(("bare /healthz", asgi_call(bare_app, "GET", "/healthz")))
        for label, _, dry in cases:
            gid = ids[label]
            body = json.dumps(dry).encode()
            rows.append((f"GET game ({label})", asgi_call(app, "GET", f"/games/{gid}")))
            rows.append(
                (
                    f"dry run ({label})",
                    asgi_call(
                        app,
                        "POST",
                        f"/games/{gid}/rulings",
                        body,
                        {"content-type": "application/json"},
                    ),
                )
            )
            rows.append((f"bare read ({label})", asgi_call(bare_app, "GET", f"/bare/read/{gid}")))
            rows.append(
                (f"GET game, cold ({label})", _cold(app, asgi_call(app, "GET", f"/games/{gid}")))
            )
            reachable = f"/games/{gid}/queries/reachable?unit={dry['unit']}"
            rows.append((f"reachable ({label})", asgi_call(app, "GET", reachable)))
            rows.append(
                (f"reachable, cold ({label})", _cold(app, asgi_call(app, "GET", reachable)))
            )
        if args.write_rows:
            for label, (unit, hexes) in places.items():
                gid, auth = ids[label], {"authorization": f"Bearer {umpires[label]}"}
                get = asgi_call(app, "GET", f"/games/{gid}", b"", auth)
                posts = [
                    asgi_call(
                        app,
                        "POST",
                        f"/games/{gid}/actions",
                        json.dumps({"kind": "place_unit", "unit": unit, "hex": h}).encode(),
                        {**auth, "content-type": "application/json", "if-match": "*"},
                    )
                    for h in hexes
                ]
                rows.append((f"submission ({label})", _alternate(posts)))
                rows.append(
                    (
                        f"bare write ({label})",
                        asgi_call(
                            bare_app,
                            "POST",
                            f"/bare/write/{gid}",
                            json.dumps({"kind": "place_unit", "unit": unit}).encode(),
                            {"content-type": "application/json"},
                        ),
                    )
                )
                rows.append((f"submission + GET game ({label})", _alternate(posts, get)))
            for label, gid in between.items():
                cold = _cold(app, asgi_call(app, "GET", f"/games/{gid}"))
                rows.append((f"GET game, cold, 10 deltas after a snapshot ({label})", cold))
        if args.service:
            print(service_profile(app, ids, cases, args))
            return
        for name, call in rows:
            if args.only and not any(o in name for o in args.only):
                continue
            if args.profile and args.profile in name:
                print(await profile(call, args.requests, args.top))
                continue
            if args.instructions:
                print(await instructions(call, args.requests), flush=True)
                continue
            ms, gcs = await measure(call, args.requests, args.batches, args.gc)
            print(f"{name:32s} {ms:.3f} ms CPU/request {gcs}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL cluster")
    parser.add_argument("--requests", type=int, default=1500)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--profile", help="profile the row whose name contains this")
    parser.add_argument(
        "--service", help="profile the service call alone: 'game <case>' or 'dry <case>'"
    )
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--only", action="append", help="rows whose name contains this")
    parser.add_argument("--gc", action="store_true", help="count the collector's passes")
    parser.add_argument(
        "--no-gc-tuning", action="store_true", help="CPython's collector as it comes"
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="run each row's requests for callgrind (--toggle-collect=starmap_next)",
    )
    parser.add_argument("--write-rows", action="store_true", help="also time submissions")
    parser.add_argument("--root", help="the checkout whose app to measure (default: this one)")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    if args.root:
        sys.path.insert(0, str(Path(args.root).resolve()))
    import app

    print(f"app from {Path(app.__file__).parent}", flush=True)
    if args.postgres:
        from tests.support.postgres import start_cluster

        cluster = start_cluster()
        try:
            asyncio.run(run(cluster.url(cluster.create_database("inproc")), args))
        finally:
            cluster.stop()
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(f"sqlite:///{tmp}/inproc.db", args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
