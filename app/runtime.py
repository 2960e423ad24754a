"""Process tuning for a long-running server: the garbage collector.

A full collection walks every object the process holds; after start-up that is some 140,000
objects of modules, pydantic schemas and routes, which never become garbage, and a full
collection took 85-140 ms on the benchmark machine -- a pause every request caught in it
waits for (the p99 of a submission). Requests on large games allocate thousands of short-lived
objects (a 500-unit state is some 5,000), so with the default thresholds (700, 10, 10) they
triggered collections every few requests and promoted their temporaries towards the old
generation, where they brought on the full collections.

:func:`tune_gc` (called at start-up when ``REFEREE_GC_TUNING`` is on; ``referee serve`` turns
it on) moves what start-up built into the permanent generation (``gc.freeze``), so a full
collection walks only what was made since, and raises the first threshold so that a
request's temporaries are freed by reference counting before any collection sees them.
Cyclic garbage is still collected, only less often.
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 100)
"""Allocations before a young collection; young collections before a middle one; middle
collections before a full one (CPython's defaults: 700, 10, 10)."""


def tune_gc() -> None:
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
