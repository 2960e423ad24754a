"""A TCP proxy in threads, for tests that need a connection to drop: ``cut()`` closes every
connection open through it (both ends), as a network failure would; new ones still pass."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress


class Proxy:
    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            with self._lock:
                self._open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """Drop every open connection (RST-like: both sockets shut and closed)."""
        with self._lock:
            doomed, self._open = self._open, []
        for s in doomed:
            with suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self._closed = True
        self.listener.close()
        self.cut()


@contextmanager
def proxy_to(base_url: str) -> Iterator[tuple[str, Proxy]]:
    """A proxy in front of ``http://host:port``; yields its base URL and the proxy."""
    host, port = base_url.removeprefix("http://").split(":")
    proxy = Proxy((host, int(port)))
    try:
        yield f"http://127.0.0.1:{proxy.port}", proxy
    finally:
        proxy.close()
