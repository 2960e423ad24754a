"""Run the real server as its own process with the test rulesets registered.

``python -m tests.support.serve --fd N`` serves ``create_app()`` (settings from the
``REFEREE_*`` environment) on an already-bound listening socket inherited as file descriptor
``N`` -- the parent binds port 0, so there is no race for a free port -- after registering the
``tiny`` and ``blind`` test rulesets, with the server configuration ``referee serve`` uses
(``app.server.server_config``: timeouts, connection cap). Used by the multi-process stream test.
"""

from __future__ import annotations

import argparse
import sys

import uvicorn

from app.config import get_settings
from app.main import create_app
from app.rules import registry
from app.server import server_config
from tests.support.blind import BLIND
from tests.support.tiny import TINY


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tests.support.serve")
    parser.add_argument("--fd", type=int, required=True, help="listening socket to serve on")
    args = parser.parse_args(argv)
    registry.register(TINY)
    registry.register(BLIND)
    settings = get_settings()
    config = server_config(
        create_app(settings),
        settings,
        fd=args.fd,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=2,
    )
    uvicorn.Server(config).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
