"""Issue 24 item 1, a public address: ``REFEREE_PUBLIC_URL`` / ``referee serve --public-url``
is validated; the links the API answers with (``POST /games``, webhook payloads, ``GET
/config``) start with it; ``make run`` honours ``REFEREE_HOST`` / ``REFEREE_PORT``; serving a
non-loopback address without HTTPS in front warns at startup. Real servers over HTTP, the real
``referee`` entry point and the real ``make``."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from app.config import Settings
from app.main import create_app
from app.service.delivery import verify
from tests.support.postgres import free_port
from tests.support.receiver import webhook_receiver
from tests.support.server import running_server
from tests.support.tiny import TINY

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = "https://referee.example.org"


# -- the setting -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("https://referee.example.org/", "https://referee.example.org"),
        ("https://referee.example.org", "https://referee.example.org"),
        ("http://192.168.1.20:8000/", "http://192.168.1.20:8000"),
        ("https://example.org/clubs/referee/", "https://example.org/clubs/referee"),
        ("HTTPS://Example.ORG:8443", "https://example.org:8443"),
        ("http://[::1]:8000/", "http://[::1]:8000"),
        ("", None),
    ],
)
def test_the_public_url_is_normalised(given: str, kept: str | None) -> None:
    assert Settings(public_url=given).public_url == kept


def test_the_public_url_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_PUBLIC_URL", "https://play.example.net/")
    assert Settings().public_url == "https://play.example.net"


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("referee.example.org", "not an absolute http(s) URL"),
        ("ftp://referee.example.org", "not an absolute http(s) URL"),
        ("https://", "has no host"),
        ("https://referee.example.org/?x=1", "must not have a query or fragment"),
        ("https://referee.example.org/#game", "must not have a query or fragment"),
        ("https://user:pw@referee.example.org", "must not carry credentials"),
        ("https://referee.example.org:99999", "is not a URL"),
    ],
)
def test_a_bad_public_url_is_refused_with_the_reason(given: str, why: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(public_url=given)
    (error,) = caught.value.errors()
    assert error["loc"] == ("public_url",)
    assert why in error["msg"]


def _referee(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from app.cli import main; raise SystemExit(main())", *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def test_referee_serve_refuses_a_bad_public_url_option() -> None:
    done = _referee("serve", "--public-url", "ftp://referee.example.org")
    assert done.returncode == 2
    assert "argument --public-url: 'ftp://referee.example.org' is not an absolute" in done.stderr
    assert "Traceback" not in done.stderr


def test_referee_serve_names_a_bad_public_url_setting() -> None:
    done = _referee("serve", env={"REFEREE_PUBLIC_URL": "referee.example.org"})
    assert done.returncode == 2
    assert done.stderr.startswith("referee: invalid setting REFEREE_PUBLIC_URL: ")
    assert "not an absolute http(s) URL" in done.stderr
    assert "Traceback" not in done.stderr


# -- the startup warning -----------------------------------------------------------------------


def _serve_stderr(tmp_path: Path, sqlite_template: Path, *args: str) -> str:
    """Start ``referee serve`` with ``args``, wait until it answers, stop it: its stderr."""
    db = tmp_path / "serve.db"
    shutil.copyfile(sqlite_template, db)
    port = free_port()
    env = {**os.environ, "REFEREE_DATABASE_URL": f"sqlite:///{db}"}
    env.pop("REFEREE_PUBLIC_URL", None)
    entry = "from app.cli import main; raise SystemExit(main())"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            entry,
            "serve",
            "--port",
            str(port),
            "--log-level",
            "warning",
            *args,
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate(timeout=5)[1]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise AssertionError("referee serve did not answer")
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    return err


def test_serving_all_interfaces_without_https_warns_that_tokens_travel_in_clear(
    tmp_path: Path, sqlite_template: Path
) -> None:
    err = _serve_stderr(tmp_path, sqlite_template, "--host", "0.0.0.0")
    assert "WARNING: referee serve listens on 0.0.0.0" in err
    assert "seat tokens would travel in clear text" in err
    assert "REFEREE_PUBLIC_URL is unset" in err
    assert "docs/OPERATIONS.md" in err
    # a public URL without TLS does not silence it
    err = _serve_stderr(
        tmp_path, sqlite_template, "--host", "0.0.0.0", "--public-url", "http://192.0.2.7:8000"
    )
    assert "REFEREE_PUBLIC_URL is http://192.0.2.7:8000" in err
    assert "travel in clear text" in err


def test_no_warning_on_loopback_or_behind_https(tmp_path: Path, sqlite_template: Path) -> None:
    assert "WARNING" not in _serve_stderr(tmp_path, sqlite_template, "--host", "127.0.0.1")
    err = _serve_stderr(tmp_path, sqlite_template, "--host", "0.0.0.0", "--public-url", PUBLIC)
    assert "WARNING" not in err


# -- make run ----------------------------------------------------------------------------------


def _make_n_run(*args: str, **env: str) -> str:
    if shutil.which("make") is None:
        pytest.skip("no make")
    clean = {k: v for k, v in os.environ.items() if k not in ("HOST", "PORT")}
    clean = {k: v for k, v in clean.items() if not k.startswith("REFEREE_")}
    done = subprocess.run(
        ["make", "-n", "-C", str(ROOT), "run", *args],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    (serve,) = [line for line in done.stdout.splitlines() if "referee serve" in line]
    return serve.strip()


def test_make_run_honours_referee_host_and_port() -> None:
    assert _make_n_run().endswith("referee serve --host 127.0.0.1 --port 8000")
    served = _make_n_run(REFEREE_HOST="0.0.0.0", REFEREE_PORT="8500")
    assert served.endswith("referee serve --host 0.0.0.0 --port 8500")
    # the make variables still win
    served = _make_n_run("PORT=8600", "HOST=::", REFEREE_HOST="0.0.0.0", REFEREE_PORT="8500")
    assert served.endswith("referee serve --host :: --port 8600")


# -- the links the API answers with ------------------------------------------------------------


@pytest.fixture
def database(sqlite_template: Path, tmp_path: Path) -> str:
    path = tmp_path / "referee.db"
    shutil.copyfile(sqlite_template, path)
    return f"sqlite:///{path}"


@pytest.fixture
def served(database: str) -> Iterator[Any]:
    """``serve(**settings)``: the real app on a loopback port; yields its base URL."""
    apps: list[Any] = []

    def serve(**extra: Any) -> Any:
        app = create_app(
            Settings(
                database_url=database,
                webhook_poll_seconds=0.1,
                webhook_allow_private_addresses=True,
                **extra,
            )
        )
        apps.append(app)
        return running_server(app)

    yield serve
    for app in apps:
        app.state.engine.dispose()


def _create(base: str, *, prefix: str = "", public: bool = True) -> httpx.Response:
    body = {"ruleset": "tiny", "scenario": TINY.example_scenario(), "public": public}
    r = httpx.post(f"{base}{prefix}/games", json=body)
    assert r.status_code == 201, r.text
    return r


def test_config_tells_the_public_url(served: Any) -> None:
    with served(public_url=PUBLIC + "/") as base:
        for prefix in ("", "/v1"):
            r = httpx.get(f"{base}{prefix}/config")
            assert r.status_code == 200
            assert r.json()["public_url"] == PUBLIC
            assert r.json()["api_version"] == "1"
    with served() as base:
        assert httpx.get(f"{base}/v1/config").json()["public_url"] is None


def test_a_created_game_links_under_the_public_url(served: Any) -> None:
    with served(public_url=PUBLIC) as base:
        created = _create(base, prefix="/v1")
        private = _create(base, public=False).json()
    game = created.json()
    gid, seats = game["id"], game["seats"]
    assert game["links"] == {
        "console": f"{PUBLIC}/#game={gid}",
        "api": f"{PUBLIC}/v1/games/{gid}",
        "invitations": {
            seat: f"{PUBLIC}/#game={gid}&seat={seat}&token={token}" for seat, token in seats.items()
        },
        "spectators": f"{PUBLIC}/#game={gid}&as=spectator",
    }
    # Location stays relative: it resolves against the address the client used
    assert created.headers["Location"] == f"/v1/games/{gid}"
    assert private["links"]["spectators"] is None


def test_without_a_public_url_links_use_the_address_the_request_came_to(served: Any) -> None:
    with served() as base:
        game = _create(base).json()
    assert game["links"]["console"] == f"{base}/#game={game['id']}"
    assert game["links"]["invitations"]["umpire"].startswith(f"{base}/#game=")


def _wait_logged(base: str, game: dict[str, Any], seat: str, hook: dict[str, Any]) -> Any:
    url = f"{base}/games/{game['id']}/webhooks/{hook['id']}/deliveries"
    auth = {"Authorization": f"Bearer {game['seats'][seat]}"}
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        items = httpx.get(url, headers=auth).json()["items"]
        if items and all(d["status"] != "pending" for d in items):
            return items
        time.sleep(0.05)
    raise AssertionError("deliveries still pending")


@pytest.mark.parametrize("public_url", [PUBLIC, None])
def test_webhook_payloads_link_the_game_under_the_public_url(
    served: Any, public_url: str | None
) -> None:
    with served(public_url=public_url) as base, webhook_receiver() as receiver:
        game = _create(base).json()
        auth = {"Authorization": f"Bearer {game['seats']['blue']}"}
        r = httpx.post(
            f"{base}/games/{game['id']}/webhooks",
            json={"url": receiver.url, "events": ["game_finished"]},
            headers=auth,
        )
        assert r.status_code == 201, r.text
        hook = r.json()
        umpire = {"Authorization": f"Bearer {game['seats']['umpire']}", "If-Match": "*"}
        finish = httpx.post(f"{base}/games/{game['id']}/finish", json={}, headers=umpire)
        assert finish.status_code in (200, 201), finish.text
        (received,) = receiver.wait_for(1)
        logged = _wait_logged(base, game, "blue", hook)
    assert verify(hook["secret"], received.headers["referee-signature"], received.body)
    payload = received.json()
    assert payload["type"] == "game_finished"
    if public_url is None:
        assert "links" not in payload and "links" not in logged[0]["payload"]
        return
    links = {"console": f"{PUBLIC}/#game={game['id']}", "api": f"{PUBLIC}/v1/games/{game['id']}"}
    assert payload["links"] == links
    assert logged[0]["payload"] == payload  # the delivery log shows what was sent


def _post_with_host(base: str, host: bytes) -> tuple[bytes, Any]:
    """POST /games over a raw socket with this Host header (httpx would set its own)."""
    body = json.dumps({"ruleset": "tiny", "scenario": TINY.example_scenario()}).encode()
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            b"POST /games HTTP/1.1\r\nHost: " + host + b"\r\n"
            b"Content-Type: application/json\r\nConnection: close\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, text = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n", 1)[0], json.loads(text)


def test_without_a_public_url_links_follow_the_host_header(served: Any) -> None:
    with served() as base:
        status, game = _post_with_host(base, b"referee.lan:8080")
        assert status == b"HTTP/1.1 201 Created"
        assert game["links"]["api"] == f"http://referee.lan:8080/v1/games/{game['id']}"
        # a Host that is not an address is no error: the server's own address is used
        status, game = _post_with_host(base, b"odd.example:99999")
        assert status == b"HTTP/1.1 201 Created"
        assert game["links"]["api"] == f"{base}/v1/games/{game['id']}"
    with served(public_url=PUBLIC) as base:
        status, game = _post_with_host(base, b"referee.lan:8080")
        assert game["links"]["api"] == f"{PUBLIC}/v1/games/{game['id']}"
