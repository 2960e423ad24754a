"""The asynchronous client's faces, generated from the synchronous client's.

The sync client (:mod:`app.client.sync`) is the one description of every public method of
:class:`~app.client.sync.RefereeClient` and :class:`~app.client.sync.Seat`: its signature, its
docstring and the operation it runs (:mod:`app.client.calls`). :func:`generate` turns those
methods into :class:`~app.client.aio.AsyncRefereeClient`'s and
:class:`~app.client.aio.AsyncSeat`'s: a method that runs an operation (or calls one that does)
becomes ``async`` and awaits it, a generator becomes an async generator, the classes become
their async twins. The I/O (the httpx client, ``run``, the live stream) is hand-written in
:mod:`app.client.aio_io`.

``python -m app.client.twin`` rewrites ``app/client/aio.py`` (then ``ruff format`` it);
``tests/test_client_twin.py`` fails when the file is not what the sync client generates.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

PLUMBING = {
    "RefereeClient": {"__init__", "__enter__", "__exit__", "close", "run"},
    "Seat": set(),
}
"""The methods of each sync class written by hand in :mod:`app.client.aio_io` instead."""

BASES = {"RefereeClient": "AsyncClientIO", "Seat": "AsyncSeatIO"}

RENAMED = {
    "RefereeClient": "AsyncRefereeClient",
    "Seat": "AsyncSeat",
    "EventStream": "AsyncEventStream",
    "Iterator": "AsyncIterator",
}
"""Names of the sync client and what they are in the async one."""

DOC_WORDS = {"EventStream.close": "AsyncEventStream.aclose", " (from any thread)": ""}

HEADER = '''"""The asynchronous client: :class:`AsyncRefereeClient`, :class:`AsyncSeat` and
:class:`AsyncEventStream`: the sync client's operations and behaviour, awaited.

GENERATED from :mod:`app.client.sync` by ``python -m app.client.twin`` (then ``ruff format``):
do not edit; change the sync client (or the I/O in :mod:`app.client.aio_io`) instead."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from app.client import models as m
from app.client.aio_io import AsyncClientIO, AsyncEventStream, AsyncSeatIO
from app.client.streaming import StreamPolicy, feed_stream, game_stream, messages_stream

__all__ = ["AsyncEventStream", "AsyncRefereeClient", "AsyncSeat"]
'''


def _runs(node: ast.AST, awaited: set[str]) -> bool:
    """Does ``node`` run an operation (``self.run``, ``self.client.run``) or call a method
    that becomes async (``self.<name>`` for a name in ``awaited``)?"""
    return any(_is_async_call(n, awaited) for n in ast.walk(node))


def _is_async_call(node: ast.AST, awaited: set[str]) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    target, name = node.func.value, node.func.attr
    if name == "run":
        return ast.unparse(target) in ("self", "self.client")
    return isinstance(target, ast.Name) and target.id == "self" and name in awaited


class _Asyncify(ast.NodeTransformer):
    """Awaits the async calls, turns ``yield from`` into a loop and renames the sync names."""

    def __init__(self, awaited: set[str]) -> None:
        self.awaited = awaited

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        return ast.Await(node) if _is_async_call(node, self.awaited) else node

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        if isinstance(node.value, ast.YieldFrom):
            item = ast.Name("item", ast.Store())
            loop = ast.For(
                item,
                self.visit(node.value.value),
                [ast.Expr(ast.Yield(ast.Name("item", ast.Load())))],
                [],
            )
            return loop
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            text = node.value.value
            for old, new in DOC_WORDS.items():
                text = text.replace(old, new)
            return ast.Expr(ast.Constant(text))
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Name(RENAMED.get(node.id, node.id), node.ctx)


def _async_names(methods: list[ast.FunctionDef]) -> set[str]:
    """The methods that become async: those that run an operation, and (until nothing
    changes) those that call one of them."""
    awaited: set[str] = set()
    while True:
        more = {f.name for f in methods if _runs(f, awaited)} - awaited
        if not more:
            return awaited
        awaited |= more


def _async_class(cls: ast.ClassDef, awaited: set[str]) -> ast.ClassDef:
    methods = [
        f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name not in PLUMBING[cls.name]
    ]
    body: list[ast.stmt] = [
        ast.Expr(
            ast.Constant(
                f"The async twin of :class:`app.client.{cls.name}`: the same methods, awaited."
            )
        )
    ]
    transform = _Asyncify(awaited)
    for f in methods:
        new = transform.visit(f)
        if f.name in awaited:
            new = ast.AsyncFunctionDef(
                name=new.name,
                args=new.args,
                body=new.body,
                decorator_list=new.decorator_list,
                returns=new.returns,
            )
        body.append(new)
    return ast.ClassDef(
        name=RENAMED[cls.name],
        bases=[ast.Name(BASES[cls.name], ast.Load())],
        keywords=[],
        body=body,
        decorator_list=[],
    )


def generate(sync_source: str | None = None) -> str:
    """The source of ``app/client/aio.py`` (unformatted) generated from the sync client."""
    text = sync_source if sync_source is not None else (HERE / "sync.py").read_text()
    tree = ast.parse(text)
    classes = {c.name: c for c in tree.body if isinstance(c, ast.ClassDef) and c.name in BASES}
    methods = [f for c in classes.values() for f in c.body if isinstance(f, ast.FunctionDef)]
    awaited = _async_names([f for f in methods if f.name not in {"run", "close"}])
    out: list[ast.stmt] = [_async_class(classes[name], awaited) for name in BASES]
    module = ast.fix_missing_locations(ast.Module(out, []))
    return HEADER + "\n\n" + "\n\n\n".join(ast.unparse(c) for c in module.body) + "\n"


def main() -> int:
    (HERE / "aio.py").write_text(generate())
    print("wrote app/client/aio.py; run ruff format on it", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
