"""``app.runtime.env`` answers as ``os.environ.get`` does, for names set, changed and unset
through ``os.environ`` (as the tests' ``monkeypatch.setenv`` does) and for names never set."""

from __future__ import annotations

import os

import pytest

from app.runtime import env


@pytest.mark.parametrize("value", ["1", "", "32", "é ünïcode", "a=b c"])
def test_env_reads_what_os_environ_holds(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    name = "REFEREE_TEST_RUNTIME_ENV"
    monkeypatch.delenv(name, raising=False)
    assert env(name) is None  # not set: None, as os.environ.get says
    monkeypatch.setenv(name, value)
    assert env(name) == os.environ.get(name) == value
    monkeypatch.setenv(name, value + "x")  # changed: read afresh, never kept
    assert env(name) == value + "x"
    monkeypatch.delenv(name)
    assert env(name) is None


def test_env_of_a_name_never_set() -> None:
    assert env("REFEREE_TEST_RUNTIME_NEVER_SET") is None
    assert os.environ.get("REFEREE_TEST_RUNTIME_NEVER_SET") is None
