"""``python -m app.native_build`` (run by ``make install``) never fails an install: without what
compiling needs, or when compiling fails, it says so in one line, exits 0 and leaves no
compiled copy behind (the pure-Python rules are used: ``app/native.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import native, native_build


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The build's output directory moved to a scratch one (the real app/compiled/ stays)."""
    where = tmp_path / "compiled"
    monkeypatch.setattr(native_build, "PACKAGE_DIR", where)
    monkeypatch.setattr(native_build, "STAMP", where / "SOURCE_DIGEST")
    return where


def test_without_a_compiler_it_says_so_and_goes_on(
    scratch: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(native_build, "missing", lambda: "no C compiler (gcc)")
    assert native_build.main([]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["native build: skipped, no C compiler (gcc): the pure-Python rules are used"]
    assert not scratch.exists()


def test_a_failed_compilation_leaves_nothing_behind(
    scratch: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(native_build, "missing", lambda: None)

    def fails(copies: list[Path]) -> None:
        assert [c.name for c in copies] == ["zoc_search.py", "zoc_index.py"]
        digest = native.sources_digest()
        for copy in copies:  # each copy records the digest of the sources it is made from
            assert copy.read_text().endswith(f'SOURCE_DIGEST = "{digest}"\n')
        raise RuntimeError("error: the compiler broke\nfinal line")

    monkeypatch.setattr(native_build, "_compile", fails)
    assert native_build.main(["--force"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["native build: failed, the pure-Python rules are used: final line"]
    assert not scratch.exists()


def test_the_missing_check_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.which", lambda name: None)
    found = native_build.missing()
    assert found is not None and found.startswith("no C compiler")


def test_every_module_gets_the_build_chosen_whatever_is_imported_first() -> None:
    """The first ask for the build in use may come before the rules package is imported
    (a test module asking for it at import): the package's own modules, which ask for it
    as they are imported, must get the same module as everyone else -- not the pure one
    beside a compiled copy found half-imported (found in session 15: ``zoc``'s context then
    built its index with the pure module while the search memo was the compiled one's).
    Checked in fresh interpreters, the ask first and the package first."""
    import subprocess
    import sys

    script = (
        "from app import native\n"
        "{first}\n"
        "import app.rules.zoc.context as context\n"
        "chosen = native.selected('app.rules.zoc.index')\n"
        "assert context.state_index is chosen.state_index, (context.state_index, chosen)\n"
        "print(native.describe())\n"
    )
    root = Path(__file__).resolve().parents[1]
    for first in ("native.selected('app.rules.zoc.index')", "import app.rules.zoc"):
        done = subprocess.run(
            [sys.executable, "-c", script.format(first=first)],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, (first, done.stderr[-2000:])
        assert done.stdout.startswith("rules core:"), done.stdout
