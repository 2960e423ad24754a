"""The rules core stays pure: no web, database, network, clock or randomness.

Two checks: a static one (every module under app/rules is parsed and its imports, including
``importlib.import_module("...")`` and ``__import__("...")`` with a literal name, are checked)
and a dynamic one (importing app.rules and loading every built-in ruleset in a fresh
interpreter pulls none of the forbidden third-party packages into ``sys.modules``, nor any of
the forbidden standard modules beyond what pydantic itself imports).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "app" / "rules"
THIRD_PARTY = {
    "fastapi",
    "starlette",
    "sqlalchemy",
    "httpx",
    "requests",
    "uvicorn",
    "psycopg",
    "alembic",
}
# the clock, randomness, the environment, files and the network
STDLIB = {"random", "secrets", "time", "datetime", "uuid", "os", "socket", "subprocess"}
# modules that must not even be loaded as a side effect of importing the core (the others, e.g.
# os or socket, are loaded by the interpreter and by pydantic themselves)
NOT_LOADED = {"random", "secrets", "time", "datetime"}
FORBIDDEN = THIRD_PARTY | STDLIB
DYNAMIC_IMPORTERS = {"import_module", "__import__"}


def _root(name: str) -> str:
    return name.split(".", 1)[0]


def _literal(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _names_package(value: str) -> bool:
    return value in THIRD_PARTY or (
        value.replace(".", "").isidentifier() and _root(value) in THIRD_PARTY
    )


def forbidden_imports(source: str, filename: str = "<src>") -> list[str]:
    """Every forbidden import in a module's source, as ``line: what``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found += [
                f"{node.lineno}: import {a.name}" for a in node.names if _root(a.name) in FORBIDDEN
            ]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module and _root(node.module) in FORBIDDEN:
                found.append(f"{node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            literal = _literal(node.args[0]) if node.args else None
            if name in DYNAMIC_IMPORTERS and literal and _root(literal) in FORBIDDEN:
                found.append(f"{node.lineno}: {name}({literal!r})")
        elif isinstance(node, ast.Constant) and _names_package(str(_literal(node))):
            # module names kept in data (e.g. a list fed to importlib) count too; stdlib
            # names such as "time" are ordinary words, so only the packages count here
            found.append(f"{node.lineno}: module name {_literal(node)!r} in a literal")
    first_per_line: dict[int, str] = {}
    for item in found:
        first_per_line.setdefault(int(item.split(":", 1)[0]), item)
    return [first_per_line[line] for line in sorted(first_per_line)]


def _modules() -> list[Path]:
    return sorted(RULES.rglob("*.py"))


def test_the_checker_catches_every_trick() -> None:
    src = "\n".join(
        [
            "import random",
            "import os, time",
            "from datetime import date",
            "from sqlalchemy.orm import Session",
            "import fastapi.routing as r",
            "import importlib",
            "importlib.import_module('secrets')",
            "__import__('httpx')",
            "MODULES = ['uvicorn']",
            "from . import time_budget",
            "import timeit",
            "KIND = 'random'",
        ]
    )
    found = forbidden_imports(src)
    assert [f.split(":")[0] for f in found] == ["1", "2", "3", "4", "5", "7", "8", "9"], found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_rules_module_has_no_forbidden_imports(path: Path) -> None:
    assert forbidden_imports(path.read_text(), str(path)) == []


_PROBE = """
import json, sys
import pydantic, pydantic.fields, typing, abc, dataclasses, collections.abc
baseline = set(sys.modules)
import app.rules
from app.rules import registry
registry.all_rulesets()
import pkgutil, importlib
for info in pkgutil.walk_packages(app.rules.__path__, "app.rules."):
    importlib.import_module(info.name)
print(json.dumps({"baseline": sorted(baseline), "after": sorted(sys.modules)}))
"""


def test_importing_the_rules_core_loads_no_forbidden_module() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    after = set(data["after"])
    new = after - set(data["baseline"])
    assert sorted(m for m in after if _root(m) in THIRD_PARTY) == []
    assert sorted(m for m in new if _root(m) in NOT_LOADED) == []
    assert "app.rules" in after


def test_the_rules_core_imports_its_own_modules_at_the_top() -> None:
    """No module of ``app/rules`` imports another ``app`` module inside a function: such an
    import is how an import cycle hides (``objective_zones.models`` once imported ``combat``
    in a validator, ``judgement`` imported ``base``)."""
    found = []
    for path in sorted(RULES.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("app"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.module}")
                elif isinstance(node, ast.Import) and any(
                    a.name.startswith("app") for a in node.names
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found
