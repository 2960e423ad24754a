"""Every built-in ruleset package has the one shape (docs/ADDING_A_RULESET.md).

The packages are the ones the registry discovers (``registry.builtin_packages``). Each has the
same module names for the same roles, a ``ruleset.py`` that only wires them together, its
example scenarios as packaged JSON (no Python copy), typed actions, a docs page and rule cases.
"""

from __future__ import annotations

import ast
import json
from importlib import import_module, resources
from pathlib import Path
from typing import Any, get_args

import pytest

from app.rules import registry
from app.rules.base import Ruleset

REPO = Path(__file__).resolve().parents[2]

REQUIRED = ("__init__.py", "ruleset.py", "models.py", "catalog.py", "setup.py")
"""The modules every ruleset package has, one role each (the rule families come on top)."""

WITH_QUERIES = ("queries.py", "results.py")
"""The modules of a package that declares queries: the query table and its answers' models."""

FORBIDDEN = ("examples.py", "example.py", "common.py")
"""Gone for good: example scenarios live in ``scenarios/*.json``; shared per-ruling helpers in
app/rules/judgement.py."""

WIRING_IMPORTS = ("app.rules.base", "app.rules.dispatch", "app.rules.catalog", "app.rules.ruling")
"""What ``ruleset.py`` may import from ``app`` besides its own package."""

MAX_METHOD_LINES = 6
"""A wiring method delegates: its body (docstring aside) is at most this many lines."""

PACKAGES = [name.rpartition(".")[2] for name in registry.builtin_packages()]
"""The discovered ruleset packages (``objective_zones``, ``zoc`` ...)."""

SHAPED = [*PACKAGES, "examples.pin"]
"""Every package of the one shape: the served ones and the example (not served)."""


def _root(package: str) -> Path:
    return Path(str(resources.files(f"app.rules.{package}")))


def _ruleset(package: str) -> Ruleset[Any, Any, Any, Any]:
    found = import_module(f"app.rules.{package}").RULESET
    assert isinstance(found, Ruleset)
    return found


def test_discovery_finds_every_ruleset_package() -> None:
    assert {registry.package_of(r) for r in registry.all_rulesets()} >= {
        "zoc",
        "zoi",
        "objective_zones",
        "terrain",
        "battlefield",
    }
    assert "geometry" not in {p.rpartition(".")[2] for p in registry.builtin_packages()}


@pytest.mark.parametrize("package", SHAPED)
def test_package_has_the_role_modules_and_no_python_examples(package: str) -> None:
    root = _root(package)
    present = {p.name for p in root.glob("*.py")}
    assert set(REQUIRED) <= present, sorted(set(REQUIRED) - present)
    assert not present & set(FORBIDDEN), sorted(present & set(FORBIDDEN))
    if _ruleset(package).query_table:
        assert set(WITH_QUERIES) <= present, sorted(set(WITH_QUERIES) - present)
    if package in PACKAGES:
        assert registry.get(_ruleset(package).id) is _ruleset(package)


@pytest.mark.parametrize("package", SHAPED)
def test_examples_are_packaged_json(package: str) -> None:
    rs = _ruleset(package)
    files = sorted((_root(package) / "scenarios").glob("*.json"))
    assert files, f"{package} ships no scenarios/*.json"
    assert rs.example is not None and rs.example in {f.name for f in files}
    example = rs.example_scenario()
    assert example == json.loads((_root(package) / "scenarios" / rs.example).read_text())
    board, _ = rs.setup(rs.parse_scenario(example), rs.parse_options({}))
    assert rs.sides(board).names


@pytest.mark.parametrize("package", SHAPED)
def test_ruleset_module_only_wires(package: str) -> None:
    tree = ast.parse((_root(package) / "ruleset.py").read_text())
    own = f"app.rules.{package}"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("app"):
            module = node.module or ""
            assert module == own or module.startswith(own + ".") or module in WIRING_IMPORTS, (
                f"ruleset.py imports {module}"
            )
        if isinstance(node, ast.FunctionDef):
            body = node.body[1:] if ast.get_docstring(node) else node.body
            lines = body[-1].end_lineno - body[0].lineno + 1 if body else 0  # type: ignore[operator]
            assert lines <= MAX_METHOD_LINES, (
                f"{node.name} has {lines} lines: rules belong elsewhere"
            )
        assert not isinstance(node, ast.For | ast.While), (
            f"a loop in ruleset.py (line {node.lineno})"
        )


@pytest.mark.parametrize("package", SHAPED)
def test_actions_are_typed(package: str) -> None:
    rs = _ruleset(package)
    assert rs.kinds, f"{package} declares no kind -> judge table"
    for kind, entry in rs.kinds.items():
        assert get_args(entry.model.model_fields["kind"].annotation) == (kind,), kind
    for path in sorted(_root(package).glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for arg in [*node.args.args, *node.args.kwonlyargs]:
                if arg.arg == "action" and arg.annotation is not None:
                    text = ast.unparse(arg.annotation)
                    assert text not in ("Any", "object", "BaseModel"), (
                        f"{path.name}:{node.lineno} {node.name}(action: {text})"
                    )


@pytest.mark.parametrize("package", PACKAGES)
def test_docs_page_and_rule_cases(package: str) -> None:
    rs = _ruleset(package)
    assert (REPO / "docs" / "rulesets" / f"{rs.id}.md").is_file()
    assert sorted((REPO / "tests" / "rules" / package / "cases").glob("*/*.yaml"))


def _imports_of(path: Path, package: str) -> set[str]:
    """The modules of ``package`` a module imports, at the top or inside a function."""
    own = f"app.rules.{package}"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == own:
                found |= {f"{own}.{a.name}" for a in node.names}
            elif node.module.startswith(own + "."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith(own + ".")}
    return found


@pytest.mark.parametrize("package", SHAPED)
def test_no_import_cycle_inside_a_package(package: str) -> None:
    """The package's modules import each other without a cycle -- counting imports made
    inside functions, which is how a cycle hides (objective-zones' allocation check once
    imported ``combat`` from ``models``)."""
    own = f"app.rules.{package}"
    graph = {
        f"{own}.{p.stem}": _imports_of(p, package)
        for p in _root(package).glob("*.py")
        if p.stem != "__init__"
    }
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path[path.index(module) :], module))
        if module in done:
            return
        for other in sorted(graph.get(module, ())):
            visit(other, (*path, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())
