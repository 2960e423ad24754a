"""Caddy in front of the real server, for the deployment tests: a throwaway CA and server
certificate (``cryptography``), a test Caddyfile made from ``deploy/Caddyfile`` with only
test-local settings added, and Caddy as a real process on free loopback ports.

Nothing global is touched: Caddy's admin endpoint is off, its storage, autosave and home are
in the test's temporary directory, it binds 127.0.0.1 only, and certificates come from the
files given (no ACME). ``REFEREE_TEST_CADDY`` names another binary (the CI test uses a missing
one to check that CI fails without Caddy).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
CADDYFILE = ROOT / "deploy" / "Caddyfile"
IN_CI = os.environ.get("CI", "").lower() == "true"
START_TIMEOUT = 20.0

GLOBAL_OPEN = "{\n"
SITE_OPEN = "{$REFEREE_DOMAIN} {\n"


def caddy_binary() -> str | None:
    wanted = os.environ.get("REFEREE_TEST_CADDY")
    if wanted:
        return wanted if os.access(wanted, os.X_OK) else None
    return shutil.which("caddy")


def require_caddy() -> str:
    """The caddy binary; skipped without it locally, a failure with ``CI=true``."""
    found = caddy_binary()
    if found is None:
        if IN_CI:
            pytest.fail("CI=true but Caddy is missing: .ci/run installs Debian's caddy")
        pytest.skip("no caddy on PATH (Debian package caddy)")
    return found


@dataclass(frozen=True)
class Certs:
    ca: Path
    cert: Path
    key: Path

    def context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca))


def make_certs(
    work: Path, names: tuple[str, ...] = ("localhost",), ips: tuple[str, ...] = ()
) -> Certs:
    """A throwaway CA and a server certificate it signed for ``names`` and ``ips``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Referee test CA")])
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    alt: list[x509.GeneralName] = [x509.DNSName(n) for n in names]
    alt += [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, (names or ips)[0])]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    out = Certs(work / "ca.pem", work / "cert.pem", work / "key.pem")
    out.ca.write_bytes(ca_cert.public_bytes(pem))
    out.cert.write_bytes(cert.public_bytes(pem))
    out.key.write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return out


def render_test_caddyfile(work: Path, certs: Certs, http_port: int, https_port: int) -> str:
    """``deploy/Caddyfile`` with test-local settings added and nothing else changed: no admin
    endpoint, storage in ``work``, loopback only, the given ports, no HTTP->HTTPS redirect
    listener, and the throwaway certificate instead of ACME."""
    text = CADDYFILE.read_text()
    assert text.count(GLOBAL_OPEN) >= 1 and text.count(SITE_OPEN) == 1, "template changed shape"
    first_global = next(
        i for i, line in enumerate(text.splitlines(keepends=True)) if line == GLOBAL_OPEN
    )
    lines = text.splitlines(keepends=True)
    lines.insert(
        first_global + 1,
        "\tadmin off\n"
        f"\tstorage file_system {work / 'caddy-storage'}\n"
        "\tdefault_bind 127.0.0.1\n"
        f"\thttp_port {http_port}\n"
        f"\thttps_port {https_port}\n"
        "\tauto_https disable_redirects\n",
    )
    text = "".join(lines)
    return text.replace(SITE_OPEN, f"{SITE_OPEN}\ttls {certs.cert} {certs.key}\n")


_HANDED_OUT: set[int] = set()
"""Ports :func:`free_port` gave this process: a port is released as soon as it is found, so
the kernel may offer it again to the next call (the app's port became Caddy's HTTP port,
and the app could not bind it: a flake seen in CI)."""


def free_port() -> int:
    """A free local port, never one this process was given before."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def caddy_env(work: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """Caddy's environment: its home, data and config in ``work`` (no global state)."""
    home = work / "caddy-home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    env |= {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        **extra,
    }
    return env


@dataclass
class CaddyProcess:
    url: str
    port: int
    proc: subprocess.Popen[bytes]
    log: IO[bytes]

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-4000:]

    def wait_ready(self, context: ssl.SSLContext, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"caddy exited with {self.proc.returncode}:\n{self.output()}")
            try:
                r = httpx.get(f"{self.url}/healthz", verify=context, timeout=2)
                if r.status_code == 200:
                    return
                last = f"{r.status_code} {r.text[:200]}"
            except httpx.HTTPError as exc:
                last = repr(exc)
            time.sleep(0.05)
        raise AssertionError(f"caddy not ready in {timeout} s ({last}):\n{self.output()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


@contextmanager
def caddy_process(
    binary: str, work: Path, certs: Certs, env: Mapping[str, str]
) -> Iterator[CaddyProcess]:
    """Caddy running the test Caddyfile on free ports (``env``: the template's variables)."""
    https_port, http_port = free_port(), free_port()
    config = work / "Caddyfile.test"
    config.write_text(render_test_caddyfile(work, certs, http_port, https_port))
    log = (work / "caddy.log").open("w+b")
    proc = subprocess.Popen(
        [binary, "run", "--adapter", "caddyfile", "--config", str(config)],
        cwd=work,
        env=caddy_env(work, env),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    caddy = CaddyProcess(f"https://127.0.0.1:{https_port}", https_port, proc, log)
    try:
        yield caddy
    finally:
        caddy.stop()
        log.close()
