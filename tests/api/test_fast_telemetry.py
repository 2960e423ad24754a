"""The fast routes' quick look at FastAPI's native telemetry (``app.api.fast.telemetry_quiet``)
never says "quiet" where FastAPI's own ``enabled()`` says the telemetry acts: a provider given
to the app, set globally, or named by an OpenTelemetry environment variable, for tracing,
metrics and logs; and it says "quiet" where none is (the common case, asked on every
request)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.telemetry._asgi import NativeTelemetry
from opentelemetry import _logs, metrics, trace

from app.api.fast import telemetry_quiet
from app.config import Settings
from app.main import create_app

SIGNALS = [
    ("tracing", "tracer_provider", trace, "_TRACER_PROVIDER", "OTEL_PYTHON_TRACER_PROVIDER"),
    ("metrics", "meter_provider", metrics._internal, "_METER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER"),  # noqa: E501
    ("logs", "logger_provider", _logs._internal, "_LOGGER_PROVIDER", "OTEL_PYTHON_LOGGER_PROVIDER"),
]  # fmt: skip


class _Provider:
    """A provider OpenTelemetry does not defer: FastAPI takes it as configured."""


def _config(**changes: Any) -> Any:
    app = create_app(Settings(database_url="sqlite://"))
    config = dict(app._native_telemetry.config)
    config.update(changes)
    return config


def test_the_app_as_it_comes_is_quiet() -> None:
    config = _config()
    assert telemetry_quiet(config)
    assert not NativeTelemetry(config).enabled()


@pytest.mark.parametrize(("flag", "given", "module", "name", "variable"), SIGNALS)
def test_a_provider_given_to_the_app_is_not_quiet(
    flag: str, given: str, module: Any, name: str, variable: str
) -> None:
    config = _config(**{flag: True, given: _Provider()})
    assert NativeTelemetry(config).enabled()
    assert not telemetry_quiet(config)
    off = {**config, flag: False}  # the signal turned off: its provider does not count
    assert telemetry_quiet(off) == (not NativeTelemetry(off).enabled())  # type: ignore[arg-type]


@pytest.mark.parametrize(("flag", "given", "module", "name", "variable"), SIGNALS)
def test_a_provider_set_globally_is_not_quiet(
    monkeypatch: pytest.MonkeyPatch, flag: str, given: str, module: Any, name: str, variable: str
) -> None:
    config = _config(**{flag: True})
    monkeypatch.setattr(module, name, _Provider())
    assert NativeTelemetry(config).enabled()
    assert not telemetry_quiet(config)


@pytest.mark.parametrize(("flag", "given", "module", "name", "variable"), SIGNALS)
def test_a_provider_named_by_the_environment_is_not_quiet(
    monkeypatch: pytest.MonkeyPatch, flag: str, given: str, module: Any, name: str, variable: str
) -> None:
    config = _config(**{flag: True})
    monkeypatch.setenv(variable, "some_provider")  # FastAPI's enabled() would load it
    assert not telemetry_quiet(config)


def test_opentelemetry_keeping_its_providers_elsewhere_is_not_quiet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = _config(tracing=True)
    monkeypatch.delattr(trace, "_TRACER_PROVIDER")  # a version that keeps it another way
    assert not telemetry_quiet(config)
