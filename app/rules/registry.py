"""The registry of rulesets. The API and service know rulesets only through it.

The built-in rulesets are found by discovery: every package directly under ``app.rules`` that
exposes ``RULESET`` (a :class:`Ruleset` instance, made in its ``__init__.py``) is registered
under its id, so adding a ruleset needs no change outside its own package
(docs/ADDING_A_RULESET.md). Other rulesets (the test rulesets under ``tests/``) register
explicitly with :func:`register`.

The built-in rulesets are imported once, under a lock, before any lookup can answer: a lookup
made while another thread is still importing them waits for it instead of seeing a partly
filled registry (the startup race of issue 9). :func:`load_builtins` is also called eagerly at
application start-up (``app.main.create_app``), so the first request never pays for it.
"""

from __future__ import annotations

import importlib
import threading
from importlib import resources
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
    """Import the built-in ruleset packages and register their ``RULESET``, exactly once.

    The flag is set only after every import finished, and only under the lock, so a concurrent
    caller either sees the flag set (and a complete registry) or waits for the lock."""
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    with _LOCK:
        if _BUILTINS_LOADED:
            return
        for name in builtin_packages():
            found = getattr(importlib.import_module(name), "RULESET", None)
            if isinstance(found, Ruleset):
                register(found)
        _BUILTINS_LOADED = True


def builtin_packages() -> list[str]:
    """The packages directly under ``app.rules`` that hold a ruleset (a ``ruleset`` module),
    sorted: the built-in rulesets, found without importing anything."""
    root = resources.files("app.rules")
    return sorted(
        f"app.rules.{folder.name}"
        for folder in root.iterdir()
        if folder.joinpath("__init__.py").is_file() and folder.joinpath("ruleset.py").is_file()
    )


def package_of(ruleset: Ruleset[Any, Any, Any, Any]) -> str:
    """The last part of the package a ruleset's class is defined in (``objective_zones``)."""
    return type(ruleset).__module__.split(".")[-2]
