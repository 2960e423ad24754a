"""The console: a web page served by the app itself at ``/`` (static ES modules, no build step).

The page is a client of the public HTTP API like any other: it holds no rules and reads only
what its seat token may read. This module serves its files and the list of shipped scenarios.
"""

from __future__ import annotations

from app.web.routes import STATIC_DIR, router

__all__ = ["STATIC_DIR", "router"]
