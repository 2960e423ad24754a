"""The ``referee`` command: ``referee serve`` and ``referee migrate``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from app.config import get_settings


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.main import create_app

    settings = get_settings()
    host = args.host or settings.host
    port = args.port if args.port is not None else settings.port
    uvicorn.run(create_app(settings), host=host, port=port, log_level=args.log_level)
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from app.db.engine import normalize_url
    from app.db.migrate import upgrade

    url = args.database_url or get_settings().database_url
    upgrade(url, args.revision)
    shown = normalize_url(url).render_as_string(hide_password=True)
    print(f"database {shown} is at revision {args.revision}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee", description="Rules referee for tabletop wargames."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP API (does not migrate)")
    serve.add_argument("--host", default=None, help="bind address (REFEREE_HOST)")
    serve.add_argument("--port", type=int, default=None, help="port (REFEREE_PORT)")
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(func=_serve)

    migrate = sub.add_parser("migrate", help="apply the database migrations (alembic upgrade)")
    migrate.add_argument("--database-url", default=None, help="default: REFEREE_DATABASE_URL")
    migrate.add_argument("--revision", default="head")
    migrate.set_defaults(func=_migrate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
