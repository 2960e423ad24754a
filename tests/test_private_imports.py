"""No module of ``app`` uses another module's private names (``_name``): what modules share
is public (e.g. the write frame's helpers in ``app/service/pipeline.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"


def _private_uses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: set[str] = set()  # local names bound to app modules: `from app.service import x`
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("app"):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"from {node.module} import {alias.name}")
                modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name.startswith("app")}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def test_no_module_uses_another_modules_private_names() -> None:
    uses = {
        str(path.relative_to(APP.parent)): found
        for path in sorted(APP.rglob("*.py"))
        if (found := _private_uses(path))
    }
    assert not uses, uses


def test_the_scan_finds_a_private_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from app.service.pipeline import _x\nfrom app import y\ny._z\n")
    assert _private_uses(sample) == ["from app.service.pipeline import _x", "y._z"]
