"""Run an ASGI app under a real uvicorn server, in a thread, on a free loopback port (proxy
headers believed as the app's settings say, as ``referee serve`` does)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from app.config import Settings
from app.server import proxy_options


@contextmanager
def running_server(app: Any) -> Iterator[str]:
    """Serve ``app`` over a real socket; yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    settings = getattr(getattr(app, "state", None), "settings", None)
    proxy = proxy_options(settings) if isinstance(settings, Settings) else {"proxy_headers": False}
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False, **proxy)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
