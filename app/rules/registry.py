"""The registry of rulesets. The API and service know rulesets only through it."""

from __future__ import annotations

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
    _load_builtins()
    try:
        return _REGISTRY[ruleset_id]
    except KeyError:
        raise UnknownRuleset(ruleset_id) from None


def all_rulesets() -> list[Ruleset[Any, Any, Any, Any]]:
    _load_builtins()
    return sorted(_REGISTRY.values(), key=lambda r: r.id)


_BUILTINS_LOADED = False


def _load_builtins() -> None:
    """Import the built-in ruleset packages (each registers itself on import)."""
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED = True
    import importlib

    for module in BUILTIN_MODULES:
        importlib.import_module(module)


BUILTIN_MODULES: list[str] = [
    "app.rules.zoc",
    "app.rules.zoi",
    "app.rules.objective_zones",
    "app.rules.terrain",
    "app.rules.battlefield",
]
"""Modules imported on first registry use; each calls :func:`register`."""
