"""docs/API.md matches the service: every problem code the app can emit is documented, and
the documented error-item fields are the ones the service sends."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from app.api.problems import Problem, ProblemFieldError
from app.service.errors import FieldError
from app.service.policies import POLICIES

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "API.md").read_text(encoding="utf-8") + (
    ROOT / "docs" / "match-flow.md"
).read_text(encoding="utf-8")


def _emitted_codes() -> set[str]:
    """Every literal problem code in the service and API layers: ``code = "…"`` class
    attributes, ``code="…"`` arguments and the code argument of ``problem(request, status,
    "…")``."""
    codes: set[str] = set()
    for folder in ("app/service", "app/api"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                value: ast.expr | None = None
                if (isinstance(node, ast.keyword) and node.arg == "code") or (
                    isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "code" for t in node.targets)
                ):
                    value = node.value
                elif (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", None) == "problem"
                    and len(node.args) >= 3
                ):
                    value = node.args[2]
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    codes.add(value.value)
    return {c for c in codes if re.fullmatch(r"[a-z_]+\.[a-z_.]+", c)}


def test_every_problem_code_the_app_emits_is_documented() -> None:
    codes = _emitted_codes()
    assert len(codes) > 40, sorted(codes)  # the scan finds the codes, not nothing
    missing = sorted(c for c in codes if f"`{c}`" not in DOCS)
    assert not missing, f"problem codes docs/API.md does not name: {missing}"


def test_documented_error_fields_are_the_ones_sent() -> None:
    sent = set(FieldError("/x", "m", code="c.d").as_json())
    schema = set(ProblemFieldError.model_json_schema(by_alias=True)["properties"])
    assert sent == schema == {"location", "in", "message", "type", "code", "citations"}
    for field in sent:
        assert f"`{field}`" in DOCS, f"docs/API.md does not document errors[].{field}"
    assert '"pointer"' not in DOCS


def _cited_policies() -> set[str]:
    """Every policy id the service cites: the literal argument of each ``cite("…")`` call."""
    cited: set[str] = set()
    for path in (ROOT / "app").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "cite":
                arg = node.args[0] if node.args else None
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    cited.add(arg.value)
    return cited


def test_every_service_policy_is_documented_and_cited_ones_exist() -> None:
    """The service policies refusals cite (docs/API.md "Service policies") are the ones
    app/service/policies.py defines, each documented in the table, and the problem document
    names its top-level ``citations``."""
    cited = _cited_policies()
    assert len(cited) >= 6, cited  # the scan finds the citations, not nothing
    assert cited <= set(POLICIES), sorted(cited - set(POLICIES))
    table = DOCS[DOCS.index("### Service policies") :]
    missing = sorted(p for p in POLICIES if f"| `{p}` |" not in table)
    assert not missing, f"policies docs/API.md does not document: {missing}"
    assert "citations" in Problem.model_json_schema(by_alias=True)["properties"]
