"""Process tuning for a long-running server: the garbage collector (and the environment read
cheaply on every write, :func:`env`).

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
import os
from collections.abc import Callable
from typing import Any

THRESHOLDS = (50_000, 20, 100)
"""Allocations before a young collection; young collections before a middle one; middle
collections before a full one (CPython's defaults: 700, 10, 10)."""


def tune_gc() -> None:
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)


_ENV_DATA: dict[Any, Any] | None = getattr(os.environ, "_data", None)
_ENV_KEY: Callable[[str], Any] | None = getattr(os.environ, "encodekey", None)
_ENV_VALUE: Callable[[Any], str] | None = getattr(os.environ, "decodevalue", None)
_ENV_KEYS: dict[str, Any] = {}


def env(name: str) -> str | None:
    """``os.environ.get(name)``, for the settings a write reads on every request
    (``REFEREE_CHECK_KEPT_STATE``, ``REFEREE_SNAPSHOT_EVERY``): the same answer, read from
    the mapping ``os.environ`` keeps (set and unset through ``os.environ`` as usual) without
    the two ``KeyError`` that ``os.environ.get`` raises and catches inside for a name that is
    not set -- the common case, five times a write (docs/PERFORMANCE.md, issue 28, session
    17). Where ``os.environ`` is not CPython's mapping, ``os.environ.get`` itself."""
    if _ENV_DATA is None or _ENV_KEY is None or _ENV_VALUE is None:
        return os.environ.get(name)
    key = _ENV_KEYS.get(name)
    if key is None:
        key = _ENV_KEYS[name] = _ENV_KEY(name)
    raw = _ENV_DATA.get(key)
    return None if raw is None else _ENV_VALUE(raw)
