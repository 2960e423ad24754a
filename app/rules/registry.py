"""The registry of rulesets. The API and service know rulesets only through it.

The built-in rulesets are imported once, under a lock, before any lookup can answer: a lookup
made while another thread is still importing them waits for it instead of seeing a partly
filled registry (the startup race of issue 9). :func:`load_builtins` is also called eagerly at
application start-up (``app.main.create_app``), so the first request never pays for it.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

from app.rules.base import Ruleset

_REGISTRY: dict[str, Ruleset[Any, Any, Any, Any]] = {}


class UnknownRuleset(KeyError):
    """No ruleset is registered under that id."""


def register(ruleset: Ruleset[Any, Any, Any, Any]) -> Ruleset[Any, Any, Any, Any]:
    """Register a ruleset instance under its id (re-registering the same id replaces it)."""
    _REGISTRY[ruleset.id] = ruleset
    return ruleset


def unregister(ruleset_id: str) -> None:
    _REGISTRY.pop(ruleset_id, None)


def get(ruleset_id: str) -> Ruleset[Any, Any, Any, Any]:
    """Return the ruleset registered under ``ruleset_id`` or raise :class:`UnknownRuleset`."""
    load_builtins()
    try:
        return _REGISTRY[ruleset_id]
    except KeyError:
        raise UnknownRuleset(ruleset_id) from None


def all_rulesets() -> list[Ruleset[Any, Any, Any, Any]]:
    load_builtins()
    return sorted(_REGISTRY.values(), key=lambda r: r.id)


_LOCK = threading.Lock()
_BUILTINS_LOADED = False


def load_builtins() -> None:
    """Import the built-in ruleset packages (each registers itself on import), exactly once.

    The flag is set only after every import finished, and only under the lock, so a concurrent
    caller either sees the flag set (and a complete registry) or waits for the lock."""
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    with _LOCK:
        if _BUILTINS_LOADED:
            return
        for module in BUILTIN_MODULES:
            importlib.import_module(module)
        _BUILTINS_LOADED = True


BUILTIN_MODULES: list[str] = [
    "app.rules.zoc",
    "app.rules.zoi",
    "app.rules.objective_zones",
    "app.rules.terrain",
    "app.rules.battlefield",
]
"""Modules imported by :func:`load_builtins`; each calls :func:`register`."""
