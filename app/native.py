"""Which build of the rules core's hottest modules is in use: compiled by mypyc, or pure Python.

The ``zoc`` search (:mod:`app.rules.zoc.search`) and per-state index (:mod:`app.rules.zoc.index`)
are the pure-Python reference. ``make install`` / ``make install-dev`` also compile copies of
them with mypyc where gcc and the Python headers are present (:mod:`app.native_build`), into
:data:`COMPILED_PACKAGE` (``app/compiled/``, never committed; outside ``app/rules``, which holds
sources only). The modules that use them import them through :func:`selected`, which hands
out

* the compiled copy, when it is there, was compiled from exactly the sources of ``app/rules``
  present now (:func:`sources_digest`, recorded in the copy as ``SOURCE_DIGEST``) and
  :data:`PURE_ENV` is not set;
* else the pure module, with the reason (not built, built from other sources, turned off).

The choice is made once per process, at import; :func:`status` says what was chosen and why
(``referee serve`` logs it at start, ``python -m app.native`` prints it). Both builds answer
byte for byte the same (``tests/rules/zoc/test_compiled_search.py``). This module, not the
rules core, reads the environment and the files: the core stays pure (``tests/test_purity.py``).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType
from typing import Any

PURE_ENV = "REFEREE_PURE_RULES"
"""Set to anything but ``""``/``0``: the pure-Python modules are used even when compiled."""

COMPILED_PACKAGE = "app.compiled"
"""Where the compiled copies are (``app.rules.zoc.search``: ``app.compiled.zoc_search``)."""

MODULES = ("app.rules.zoc.search", "app.rules.zoc.index")
"""The pure modules that have a compiled copy."""

RULES_DIR = Path(__file__).resolve().parent / "rules"
COMPILED_DIR = RULES_DIR.parent / "compiled"
STALE = "pure: compiled from other sources than these (make install compiles it again)"

_chosen: dict[str, tuple[ModuleType, str]] = {}
"""Pure module name -> (the module handed out, why: ``compiled`` or ``pure: <reason>``)."""


def compiled_name(name: str) -> str:
    """The compiled copy's module name of the pure module ``name``."""
    return f"{COMPILED_PACKAGE}.{name.removeprefix('app.rules.').replace('.', '_')}"


def digest_sources() -> list[Path]:
    """The sources a compiled copy depends on: every module of ``app/rules`` at the top and
    of ``app/rules/zoc`` (the copies call into them; a change of any may change a type the
    compiled code checks), in a fixed order."""
    return sorted([*RULES_DIR.glob("*.py"), *(RULES_DIR / "zoc").glob("*.py")])


def sources_digest() -> str:
    """SHA-256 over :func:`digest_sources` (names and contents): what a compiled copy records
    as ``SOURCE_DIGEST`` when built, and must match to be used."""
    h = hashlib.sha256()
    for path in digest_sources():
        h.update(path.relative_to(RULES_DIR).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def forced_pure() -> bool:
    return os.environ.get(PURE_ENV, "").strip() not in ("", "0")


def _choose(name: str) -> tuple[ModuleType, str]:
    if forced_pure():
        return importlib.import_module(name), f"pure: {PURE_ENV} is set"
    target = compiled_name(name)
    digest = sources_digest()
    stamp = COMPILED_DIR / "SOURCE_DIGEST"  # written by app/native_build.py with the copies
    if stamp.exists() and stamp.read_text().strip() != digest:  # not even imported then
        return importlib.import_module(name), STALE
    try:
        # the pure package first: its modules ask for the build in use as they are imported
        # (``app/rules/zoc/context.py``), and must not find the compiled copy half-imported
        # -- which would give them the pure module beside the compiled one everyone else gets
        importlib.import_module(name.rpartition(".")[0])
        module = importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name in (target, COMPILED_PACKAGE):
            return importlib.import_module(name), "pure: not compiled (make install compiles it)"
        return importlib.import_module(name), f"pure: the compiled copy does not load ({exc})"
    except Exception as exc:  # e.g. built for another Python: never fail, say why
        return importlib.import_module(name), f"pure: the compiled copy does not load ({exc})"
    if not (module.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES)):
        return importlib.import_module(name), "pure: no compiled extension in its place"
    if getattr(module, "SOURCE_DIGEST", None) != digest:
        return importlib.import_module(name), STALE
    return module, "compiled"


def selected(name: str) -> ModuleType:
    """The module to use for the pure module ``name`` (one of :data:`MODULES`): its compiled
    copy or itself (chosen at the first ask, then kept for the process)."""
    found = _chosen.get(name)
    if found is None:
        # a choice made meanwhile (by a module the package's import ran) is kept
        found = _chosen.setdefault(name, _choose(name))
    return found[0]


def status() -> dict[str, Any]:
    """What is in use, per module of :data:`MODULES` (``compiled`` or ``pure: <reason>``), and
    ``build``: ``compiled`` when every one is, ``pure`` when none is, else ``mixed``."""
    modules = {name: (selected(name), _chosen[name][1])[1] for name in MODULES}
    kinds = {why == "compiled" for why in modules.values()}
    build = "mixed" if len(kinds) > 1 else ("compiled" if kinds == {True} else "pure")
    return {"build": build, "modules": modules}


def describe() -> str:
    """:func:`status` in one line, for a log: ``rules core: compiled (mypyc): <modules>`` or
    ``rules core: pure Python (<why>)``."""
    found = status()
    modules: dict[str, str] = found["modules"]
    compiled = [name for name, why in modules.items() if why == "compiled"]
    whys = sorted({why.removeprefix("pure: ") for why in modules.values() if why != "compiled"})
    if found["build"] == "compiled":
        return f"rules core: compiled (mypyc): {', '.join(compiled)}"
    if found["build"] == "pure":
        return f"rules core: pure Python ({'; '.join(whys)})"
    return f"rules core: compiled (mypyc): {', '.join(compiled)}; the rest pure ({'; '.join(whys)})"


def main() -> None:
    """``python -m app.native``: the line :func:`describe` logs, then :func:`status`."""
    print(describe())
    print(json.dumps(status(), indent=2))


if __name__ == "__main__":
    main()
