"""The ``referee`` command: ``referee serve``, ``referee migrate`` and ``referee audit``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pydantic import ValidationError

from app.config import get_settings
from app.links import clear_text_warning, normalise_public_url


def _serve(args: argparse.Namespace) -> int:
    import os

    import uvicorn

    from app.main import create_app
    from app.server import server_config, settings_protocol_path

    # a server process tunes its garbage collector (app/runtime.py); the workers inherit it
    os.environ.setdefault("REFEREE_GC_TUNING", "true")
    if args.forwarded_allow_ips is not None:
        # through the environment, so worker processes read the same settings
        os.environ["REFEREE_FORWARDED_ALLOW_IPS"] = args.forwarded_allow_ips

    if args.public_url is not None:
        os.environ["REFEREE_PUBLIC_URL"] = args.public_url  # the workers read it too
    settings = get_settings()
    host = args.host or settings.host
    # which build of the zoc search serves (app/native.py: compiled, or pure and why)
    from app import native

    print(f"referee: {native.describe()}", file=sys.stderr, flush=True)
    warning = clear_text_warning(host, settings.public_url)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    port = args.port if args.port is not None else settings.port
    workers = args.workers if args.workers is not None else settings.workers
    # the workers read it too: REFEREE_RATE_LIMIT_SHARED=auto shares the limits when above 1
    os.environ["REFEREE_WORKERS"] = str(workers)
    if workers > 1:
        refused = _workers_refused(settings.database_url, workers)
        if refused:
            print(refused, file=sys.stderr)
            return 2
        # Each worker process builds its own app (engine, caches) and its own guarded
        # protocol from the environment: a class built at run time cannot cross to them.
        config = server_config(
            "app.main:create_app",
            settings,
            http=settings_protocol_path(settings),
            factory=True,
            workers=workers,
            host=host,
            port=port,
            log_level=args.log_level,
        )
        from uvicorn.supervisors.multiprocess import Multiprocess

        sock = config.bind_socket()
        Multiprocess(config, sockets=[sock]).run()
        return 0
    config = server_config(
        create_app(settings), settings, host=host, port=port, log_level=args.log_level
    )
    uvicorn.Server(config).run()
    return 0


def _workers_refused(database_url: str, workers: int) -> str | None:
    """Why ``workers`` processes may not serve this database, or None."""
    if database_url.startswith("sqlite"):
        return (
            f"referee serve: --workers {workers} (REFEREE_WORKERS) needs PostgreSQL: SQLite "
            "serialises writers and its change notifications stay in one process, so several "
            "processes on one SQLite file are refused. Use --workers 1, or set "
            "REFEREE_DATABASE_URL to a postgresql+psycopg:// URL (docs/OPERATIONS.md)."
        )
    return None


def _migrate(args: argparse.Namespace) -> int:
    from app.db.engine import normalize_url
    from app.db.migrate import upgrade

    url = args.database_url or get_settings().database_url
    upgrade(url, args.revision)
    shown = normalize_url(url).render_as_string(hide_password=True)
    print(f"database {shown} is at revision {args.revision}")
    return 0


def _audit(args: argparse.Namespace) -> int:
    """Re-adjudicate one game's whole log; exit 0 when it replays identically, 1 when an
    event differs, 2 when there is no such game."""
    from app.db.engine import make_engine, make_session_factory
    from app.db.uow import SqlAlchemyUnitOfWork
    from app.service.audit import audit_game
    from app.service.boards import BoardCache
    from app.service.errors import ServiceError

    url = args.database_url or get_settings().database_url
    engine = make_engine(url)
    try:
        uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
        try:
            report = audit_game(uow, args.game_id, boards=BoardCache(), require_umpire=False)
        except ServiceError as exc:
            print(f"referee audit: {exc.code}: {exc.detail}", file=sys.stderr)
            return 2
    finally:
        engine.dispose()
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        print(
            f"game {report.game} ({report.ruleset} {report.recorded_version}, replayed with "
            f"{report.replayed_version}): {report.events} events"
        )
        if report.version_changed:
            print(
                f"NOTE: the ruleset version changed ({report.recorded_version} -> "
                f"{report.replayed_version}); differences below follow from that change"
            )
        for stretch in report.stretches:
            judged = stretch.version or "a version not recorded"
            print(
                f"events {stretch.from_seq}-{stretch.to_seq}: judged by {judged}, replayed with "
                f"{stretch.replayed_version}"
                + ("" if stretch.same_version else " (another version)")
                + f", {stretch.differences} differences"
            )
        if report.ok:
            print("OK: every ruling, state and roll replays identically")
        for diff in report.differences:
            print(
                f"DIFFERS at event {diff.seq} ({diff.kind}, version {diff.version}): "
                f"{diff.field}: {diff.message}"
            )
        if report.first_difference is not None:
            print(f"first differing event: {report.first_difference.seq}")
    return 0 if report.ok else 1


def _verify(args: argparse.Namespace) -> int:
    """Verify an export file with this instance's rulesets; exit 0 when nothing differs
    (a seat's file: in what it shows), 1 when an event differs, 2 when the file is unreadable
    or not an export file this instance can verify."""
    import json

    from app.service.errors import ServiceError
    from app.service.export import verify_file

    try:
        if args.file == "-":
            document = json.load(sys.stdin)
        else:
            with open(args.file, encoding="utf-8") as fh:
                document = json.load(fh)
        report = verify_file(document)
    except (OSError, ValueError) as exc:
        print(f"referee verify: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    except ServiceError as exc:
        print(f"referee verify: {exc.code}: {exc.detail}", file=sys.stderr)
        return 2
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0 if report.ok else 1
    who = report.reader or "a spectator"
    print(
        f"game {report.game} ({report.ruleset}; file judged by "
        f"{', '.join(report.file_versions) or 'versions not recorded'}, replayed with "
        f"{report.running_version}): {report.events} events, exported for {who}"
        + ("" if report.complete else " (partial)")
    )
    if report.version_note:
        print(f"NOTE: {report.version_note}")
    print(
        f"rolls checked: {report.rolls_checked}, sealed orders checked: "
        f"{report.orders_checked}, seed: {report.seed}"
    )
    for item in report.unchecked:
        where = f"event {item.seq} ({item.kind})" if item.seq is not None else item.kind
        print(f"NOT CHECKED {where}: {item.reason}")
    for diff in report.differences:
        print(f"DIFFERS at event {diff.seq} ({diff.kind}): {diff.field}: {diff.message}")
    print(("OK: " if report.ok else "FAILED: ") + report.summary)
    return 0 if report.ok else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee", description="Rules referee for tabletop wargames."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP API (does not migrate)")
    serve.add_argument("--host", default=None, help="bind address (REFEREE_HOST)")
    serve.add_argument("--port", type=int, default=None, help="port (REFEREE_PORT)")
    serve.add_argument(
        "--workers",
        type=int,
        default=None,
        help="server processes (REFEREE_WORKERS, default 1; more than one needs PostgreSQL)",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        default=None,
        help="proxies whose X-Forwarded-For is believed, comma separated (addresses, "
        "networks, '*'); REFEREE_FORWARDED_ALLOW_IPS, default none: the client IP is the "
        "socket peer",
    )
    serve.add_argument(
        "--public-url",
        type=_public_url,
        default=None,
        help="the address players reach the service at, e.g. https://referee.example.org: "
        "every link built starts with it (REFEREE_PUBLIC_URL)",
    )
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(func=_serve)

    migrate = sub.add_parser("migrate", help="apply the database migrations (alembic upgrade)")
    migrate.add_argument("--database-url", default=None, help="default: REFEREE_DATABASE_URL")
    migrate.add_argument("--revision", default="head")
    migrate.set_defaults(func=_migrate)

    audit = sub.add_parser(
        "audit",
        help="re-adjudicate a game's whole log and name the first event that differs",
    )
    audit.add_argument("game_id", help="the game's id")
    audit.add_argument("--database-url", default=None, help="default: REFEREE_DATABASE_URL")
    audit.add_argument("--json", action="store_true", help="print the full report as JSON")
    audit.set_defaults(func=_audit)

    verify = sub.add_parser(
        "verify",
        help="re-adjudicate an export file (GET /games/{id}/export) with this instance's "
        "rulesets, check its dice and sealed reveals, name the first event that differs",
    )
    verify.add_argument("file", help="the export file ('-' reads standard input)")
    verify.add_argument("--json", action="store_true", help="print the full report as JSON")
    verify.set_defaults(func=_verify)
    return parser


def _public_url(value: str) -> str:
    try:
        return normalise_public_url(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ValidationError as exc:
        if exc.title != "Settings":
            raise
        # a bad REFEREE_* setting: name it and say why, without a traceback
        for error in exc.errors():
            name = "REFEREE_" + "_".join(str(p) for p in error["loc"]).upper()
            print(f"referee: invalid setting {name}: {error['msg']}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
