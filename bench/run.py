"""Referee benchmarks: every figure is a ratio to a baseline measured in the same run.

Absolute times depend on the machine; ratios to a baseline taken in the same run, on the same
data, a moment apart, are what we track (docs/PERFORMANCE.md). Run: ``make bench``
(``python bench/run.py [--quick] [--core-only] [--http-only]``). The latest table is written to
``bench/results.md``.

* rules core (``bench/core.py``): reachable / ezoc-map / rulings against a plain-Python floor
  and a compiled graph library on the same graph;
* HTTP (``bench/web.py``): GET game, dry run and submission under wrk against bare endpoints
  of the same app, on SQLite and PostgreSQL; growth; concurrency with 1, 2 and 4 processes.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import Row, markdown


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}, load average {load:.1f} at start"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="shorter HTTP runs")
    parser.add_argument("--core-only", action="store_true")
    parser.add_argument("--http-only", action="store_true")
    args = parser.parse_args()
    started = time.monotonic()
    started_at = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows: list[Row] = []
    at_start = machine()  # the load average at the start, not at the end of a long run
    print(at_start, flush=True)
    if not args.http_only:
        from bench.core import run_all as core

        rows += core()
        print(markdown(rows), flush=True)
    if not args.core_only:
        from bench.web import run_all as http

        rows += http(quick=args.quick)  # each suite's table is printed as it ends
    took = time.monotonic() - started
    text = (
        f"# Latest benchmark run\n\n{started_at}, {at_start}, "
        f"{os.getloadavg()[0]:.1f} at the end; took {took:.0f} s.\n" + markdown(rows)
    )
    (Path(__file__).parent / "results.md").write_text(text)
    missed = [r.name for r in rows if r.met is False]
    print(f"took {took:.0f} s; {len(missed)} target(s) missed; table in bench/results.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
