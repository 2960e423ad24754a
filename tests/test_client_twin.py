"""The async client is generated from the sync one (``app/client/twin.py``): the committed
``app/client/aio.py`` is what the generator makes of ``app/client/sync.py``, so the two faces
cannot drift apart."""

from __future__ import annotations

import ast
import inspect

from app.client import aio, sync, twin


def test_the_async_client_is_what_the_sync_client_generates() -> None:
    generated = ast.dump(ast.parse(twin.generate()))
    committed = ast.dump(ast.parse(inspect.getsource(aio)))
    assert generated == committed, "app/client/aio.py is stale: run python -m app.client.twin"


def test_every_public_method_has_its_twin_of_the_right_colour() -> None:
    """A sync method that sends a request is a coroutine (or an async generator) in the
    async client; one that only builds an object (a seat, a stream) stays plain."""
    for sync_cls, aio_cls in (
        (sync.RefereeClient, aio.AsyncRefereeClient),
        (sync.Seat, aio.AsyncSeat),
    ):
        for name, method in vars(sync_cls).items():
            if name.startswith("_") or not inspect.isfunction(method) or name in ("close", "run"):
                continue
            twin_method = getattr(aio_cls, name)
            if name in ("seat", "stream", "message_stream", "feed"):
                assert not inspect.iscoroutinefunction(twin_method), name
            elif inspect.isgeneratorfunction(method):
                assert inspect.isasyncgenfunction(twin_method), name
            else:
                assert inspect.iscoroutinefunction(twin_method), name


def test_a_changed_sync_method_changes_the_generated_one() -> None:
    source = inspect.getsource(sync).replace(
        "return self.client.run(self._dice())", "return self.client.run(self._sealed())"
    )
    assert "self._sealed())" in twin.generate(source)
    assert twin.generate(source) != twin.generate()
