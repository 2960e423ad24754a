"""Compile the rules core's hottest modules with mypyc, where that can be done (``make install``).

``python -m app.native_build`` copies each module of :data:`app.native.MODULES` into
``app/compiled/`` (``app/rules/zoc/search.py`` as ``zoc_search.py``; the copy records the digest
of the sources it was made from, :func:`app.native.sources_digest`), compiles the copies with
mypyc in place and removes the copied sources, leaving the extension modules (git-ignored).
Nothing to do when the compiled copies are of the present sources already.

It never fails an install: without mypyc, a C compiler or the Python headers, or when the
compilation fails, it prints one line saying so and exits 0 -- :mod:`app.native` then
hands out the pure-Python modules, which are the reference anyway. ``--force`` compiles even
when up to date; ``--clean`` removes the compiled copies (the pure path is used).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from app import native

PACKAGE_DIR = native.COMPILED_DIR
STAMP = PACKAGE_DIR / "SOURCE_DIGEST"
"""The digest the present compiled copies were made from (to skip an up-to-date build)."""
INIT = '"""mypyc-compiled copies of app.rules modules (app/native_build.py; not in git)."""\n'


def _say(message: str) -> None:
    print(f"native build: {message}", flush=True)


def missing() -> str | None:
    """What compiling needs and this machine lacks (one phrase), or None."""
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypyc is not installed (pip install mypy)"
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None and shutil.which("gcc") is None:
        return f"no C compiler ({cc}; on Debian: apt-get install gcc)"
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not include.exists():
        return f"no Python headers ({include}; on Debian: apt-get install python3-dev)"
    return None


def up_to_date(digest: str) -> bool:
    if not STAMP.exists() or STAMP.read_text().strip() != digest:
        return False
    names = [native.compiled_name(m).rsplit(".", 1)[1] for m in native.MODULES]
    built = {p.name.split(".", 1)[0] for p in PACKAGE_DIR.iterdir() if p.suffix in (".so", ".pyd")}
    return all(n in built for n in names)


def clean() -> None:
    if PACKAGE_DIR.exists():
        shutil.rmtree(PACKAGE_DIR)


def _copy_sources(digest: str) -> list[Path]:
    """The modules' copies (each with its digest appended), and the package's ``__init__``."""
    PACKAGE_DIR.mkdir(exist_ok=True)
    (PACKAGE_DIR / "__init__.py").write_text(INIT)
    copies = []
    for name in native.MODULES:
        source = (native.RULES_DIR.parent.parent / f"{name.replace('.', '/')}.py").read_text()
        copy = PACKAGE_DIR / f"{native.compiled_name(name).rsplit('.', 1)[1]}.py"
        copy.write_text(
            f"{source}\n\n"
            "# app/native_build.py: the digest of the sources this copy was compiled from\n"
            f'SOURCE_DIGEST = "{digest}"\n'
        )
        copies.append(copy)
    return copies


def _compile(copies: list[Path]) -> None:
    """mypyc over ``copies`` (each its own extension module), built in place."""
    root = native.RULES_DIR.parent.parent
    script = (
        "import sys\n"
        "from setuptools import Distribution\n"
        "from mypyc.build import mypycify\n"
        "ext = mypycify(sys.argv[1:], separate=True, opt_level='3')\n"
        "dist = Distribution({'name': 'referee-native', 'ext_modules': ext})\n"
        "cmd = dist.get_command_obj('build_ext')\n"
        "cmd.inplace = True\n"
        f"cmd.build_temp = {str(Path(tempfile.gettempdir()) / 'referee-native-build')!r}\n"
        "dist.run_command('build_ext')\n"
    )
    rel = [str(c.relative_to(root)) for c in copies]
    done = subprocess.run(
        [sys.executable, "-c", script, *rel],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPY_FORCE_COLOR": "0"},
    )
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-15:]
        raise RuntimeError("\n".join(tail))


def build(force: bool = False) -> bool:
    """Compile when possible and needed; True when compiled copies of these sources are there."""
    digest = native.sources_digest()
    if not force and up_to_date(digest):
        _say("compiled copies up to date")
        return True
    lacking = missing()
    if lacking is not None:
        if up_to_date(digest):  # --force without a compiler: what is there stays in use
            _say(f"skipped, {lacking}: the compiled copies there are up to date")
            return True
        _say(f"skipped, {lacking}: the pure-Python rules are used")
        return False
    clean()
    copies = _copy_sources(digest)
    # mypyc leaves a `build/` for its C sources next to where it runs (git-ignored)
    try:
        _compile(copies)
    except Exception as exc:  # never fail an install: the pure path is the reference
        clean()
        lines = str(exc).strip().splitlines()
        last = lines[-1] if lines else repr(exc)
        _say(f"failed, the pure-Python rules are used: {last}")
        if os.environ.get("REFEREE_NATIVE_VERBOSE"):
            print(exc, file=sys.stderr)
        return False
    finally:
        for copy in copies:  # only the extension modules stay: never a .py shadowing them
            copy.unlink(missing_ok=True)
    STAMP.write_text(digest + "\n")
    _say(f"compiled {', '.join(native.MODULES)} (mypyc)")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--force", action="store_true", help="compile even when up to date")
    parser.add_argument("--clean", action="store_true", help="remove the compiled copies")
    args = parser.parse_args(argv)
    if args.clean:
        clean()
        _say("compiled copies removed: the pure-Python rules are used")
        return 0
    build(force=args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
