"""The `public` compose profile, checked by structure: no Docker engine runs here, so the file
is parsed (PyYAML), its ``${VAR:-default}`` references are resolved the way Compose resolves
them (with no ``.env``, and with ``.env.example``), and the services are checked for what the
deployment needs. Where ``docker-compose`` (v1) is installed, its ``config`` command must
accept the file too; nothing here starts a container."""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / ".env.example"

_REF = re.compile(r"\$\{(?P<name>[A-Z0-9_]+)(?::-(?P<default>[^}]*))?\}")


def _dotenv(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            out[name.strip()] = value.strip()
    return out


def _resolve(value: Any, env: dict[str, str]) -> Any:
    """Compose's interpolation of ``${VAR}`` and ``${VAR:-default}`` (all this file uses)."""
    if isinstance(value, str):
        return _REF.sub(lambda m: env.get(m["name"]) or (m["default"] or ""), value)
    if isinstance(value, list):
        return [_resolve(v, env) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, env) for k, v in value.items()}
    return value


def _compose(env: dict[str, str]) -> dict[str, Any]:
    raw = COMPOSE.read_text()
    refs = {m["name"] for m in _REF.finditer(raw)}
    assert not re.search(r"\$\{[^}]*:[?+]", raw), "only ${VAR} and ${VAR:-default} are checked"
    assert refs, "the file has no variables?"
    return dict(_resolve(yaml.safe_load(raw), env))


def _enabled(compose: dict[str, Any], profiles: set[str]) -> dict[str, Any]:
    return {
        name: svc
        for name, svc in compose["services"].items()
        if not svc.get("profiles") or set(svc["profiles"]) & profiles
    }


def test_without_the_profile_docker_compose_up_is_what_it_was() -> None:
    compose = _compose({})
    services = _enabled(compose, set())
    assert set(services) == {"db", "app"}
    app = services["app"]
    assert app["ports"] == ["8000:8000"]
    assert app["environment"]["REFEREE_WORKERS"] == 2
    assert app["environment"]["REFEREE_DATABASE_URL"] == (
        "postgresql+psycopg://referee:referee@db:5432/referee"
    )
    assert services["db"]["environment"]["POSTGRES_PASSWORD"] == "referee"
    assert "REFEREE_PUBLIC_URL" not in app["environment"]
    assert "REFEREE_FORWARDED_ALLOW_IPS" not in app["environment"]
    assert "networks" not in app and "networks" not in services["db"]


def test_the_public_profile_runs_postgres_the_app_with_workers_and_caddy() -> None:
    env = _dotenv(ENV_EXAMPLE)
    assert env["REFEREE_DOMAIN"] and env["POSTGRES_PASSWORD"] and env["REFEREE_WORKERS"]
    compose = _compose(env)
    services = _enabled(compose, {"public"})
    assert {"db", "app-public", "proxy"} <= set(services)
    app, proxy, db = services["app-public"], services["proxy"], services["db"]

    # the app: PostgreSQL (so several workers are allowed), no port of its own
    app_env = app["environment"]
    url = app_env["REFEREE_DATABASE_URL"]
    assert url == f"postgresql+psycopg://referee:{env['POSTGRES_PASSWORD']}@db:5432/referee"
    assert db["environment"]["POSTGRES_PASSWORD"] == env["POSTGRES_PASSWORD"]
    assert app_env["REFEREE_WORKERS"] == env["REFEREE_WORKERS"]
    assert "ports" not in app, "players reach the app only through the proxy"
    assert app_env["REFEREE_PUBLIC_URL"] == f"https://{env['REFEREE_DOMAIN']}"
    assert app["restart"] == "unless-stopped"

    # the proxy: Caddy serving deploy/Caddyfile for the domain, to the app
    assert str(proxy["image"]).startswith("caddy:2")
    assert proxy["environment"] == {
        "REFEREE_DOMAIN": env["REFEREE_DOMAIN"],
        "REFEREE_UPSTREAM": "app-public:8000",
        # Caddy 2.8+ (caddy:2) spelling; above the Caddyfile's 2 MiB request_body limit so
        # every body it admits is buffered whole (docs/OPERATIONS.md, "Behind Caddy")
        "REFEREE_PROXY_REQUEST_BUFFERING": "request_buffers 4MiB",
    }
    assert {"80:80", "443:443"} <= set(proxy["ports"])
    mounts = {str(v).split(":")[0]: str(v).split(":")[1] for v in proxy["volumes"]}
    assert mounts["./deploy/Caddyfile"] == "/etc/caddy/Caddyfile"
    assert (ROOT / "deploy" / "Caddyfile").is_file()
    assert mounts["caddy_data"] == "/data", "certificates must survive a restart"
    assert {"caddy_data", "caddy_config"} <= set(compose["volumes"])

    # proxy headers are believed from the proxy's fixed address only
    proxy_ip = proxy["networks"]["edge"]["ipv4_address"]
    assert app_env["REFEREE_FORWARDED_ALLOW_IPS"] == proxy_ip
    subnet = compose["networks"]["edge"]["ipam"]["config"][0]["subnet"]
    assert ipaddress.ip_address(proxy_ip) in ipaddress.ip_network(subnet)
    assert "edge" in app["networks"] and "default" in app["networks"]

    # the plain-HTTP app, which runs too, is published on the host's loopback only
    assert services["app"]["ports"] == ["127.0.0.1:8000:8000"]
    assert app["depends_on"]["app"]["condition"] == "service_healthy"
    assert "healthcheck" in services["app"]


def test_the_env_example_is_not_committed_as_env() -> None:
    ignored = (ROOT / ".gitignore").read_text().split()
    assert ".env" in ignored


@pytest.mark.parametrize("profile", [None, "public"])
def test_docker_compose_accepts_the_file(profile: str | None, tmp_path: Path) -> None:
    """``docker-compose config`` (v1, which needs no engine) when it is installed."""
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.skip("docker-compose (v1) not installed: the structural checks above stand")
    shutil.copy(COMPOSE, tmp_path / "docker-compose.yml")
    (tmp_path / "deploy").mkdir()
    shutil.copy(ROOT / "deploy" / "Caddyfile", tmp_path / "deploy" / "Caddyfile")
    if profile:
        shutil.copy(ENV_EXAMPLE, tmp_path / ".env")
    args = [binary, "--profile", profile] if profile else [binary]
    done = subprocess.run(
        [*args, "config"], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "caddy:2" in done.stdout
