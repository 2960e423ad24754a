"""Mutation testing of the rules core, one part at a time (``make mutate PART=zoc``).

A *part* is a ruleset package of ``app/rules`` (``zoc``, ``zoi``, ``terrain``, ...) or ``core``
(the shared modules: every module directly in ``app/rules`` plus ``app/rules/geometry``).
Each part runs mutmut 3 in its own scratch copy ``var/mutation/<part>/`` whose ``pyproject.toml``
gets a ``[tool.mutmut]`` of its own, so that

* mutants are generated for that part's modules only (``only_mutate``), and
* they are killed by that part's tests only: ``tests/rules/<package>`` plus the shared rules
  tests ``tests/rules/test_*.py`` (``core`` uses all of ``tests/rules``); mutmut then runs, per
  mutant, only the tests that call the mutated function.

The base settings (pytest arguments) come from ``[tool.mutmut]`` in the real ``pyproject.toml``.
Children: ``MUTATE_CHILDREN`` (default 2). Property tests run on the fixed CI profile
(``HYPOTHESIS_PROFILE=ci``) so a mutant's verdict does not depend on a seed.

The scratch copy is refreshed from the worktree on every run and mutmut keeps its results
there, so a second run only re-tests what changed: new tests trigger their coverage run, and
``python bench/mutate.py zoc --again`` re-tests the part's last survivors (e.g. after adding a
rule case). ``--fresh`` throws the scratch copy away first.

Known equivalent mutants (a mutation no ruling can tell apart, with the reason) are listed in
``bench/mutation_equivalents.toml``; the score is killed / (judged - equivalent). The report,
with the diff of every unexplained survivor, goes to ``var/mutation/<part>.txt``;
docs/TESTING.md records the scores and the survivors.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "app" / "rules"
SCRATCH = ROOT / "var" / "mutation"
EQUIVALENTS = ROOT / "bench" / "mutation_equivalents.toml"
COPIED = ["app", "tests", "scenarios", "docs", "CHANGELOG.md", "README.md"]
SHARED_TESTS = "tests/rules/test_*.py"
KILLED = {"killed", "timeout", "caught by type check", "segfault"}
CHILDREN = os.environ.get("MUTATE_CHILDREN", "2")


@dataclass(frozen=True)
class Part:
    name: str
    mutate: list[str]  # fnmatch globs on paths relative to the root ('*' spans '/')
    tests: list[str]  # pytest arguments selecting the tests that may kill


def parts() -> dict[str, Part]:
    """Every ruleset package (a folder of ``app/rules`` with a ``ruleset.py``) and ``core``."""
    shared = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(SHARED_TESTS))
    found: dict[str, Part] = {}
    core: list[str] = sorted(str(p.relative_to(ROOT)) for p in RULES.glob("*.py"))
    for pkg in sorted(p for p in RULES.iterdir() if p.is_dir() and p.name != "__pycache__"):
        rel = str(pkg.relative_to(ROOT))
        if (pkg / "ruleset.py").exists():
            tests = [f"tests/rules/{pkg.name}", *shared]
            found[pkg.name] = Part(pkg.name, [f"{rel}/*"], tests)
        else:
            core.append(f"{rel}/*")
    found["core"] = Part("core", core, ["tests/rules"])
    return found


def mutmut_config(part: Part) -> str:
    """The scratch copy's ``[tool.mutmut]``: the real one's settings, narrowed to the part."""
    base = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["mutmut"]
    cfg = {
        **base,
        "source_paths": ["app/rules/"],
        "only_mutate": part.mutate,
        "pytest_add_cli_args_test_selection": part.tests,
        "use_git_change_detection": False,  # the scratch copy is not a git checkout
    }
    lines = ["[tool.mutmut]"] + [f"{key} = {toml_value(value)}" for key, value in cfg.items()]
    return "\n".join(lines) + "\n"


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, int | float):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def prepare(part: Part, *, fresh: bool) -> Path:
    """Refresh the part's scratch copy from the worktree (mtimes kept: mutmut regenerates the
    mutants of a source file only when the file changed)."""
    work = SCRATCH / part.name
    if fresh and work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in COPIED:
        src, dst = ROOT / name, work / name
        if src.is_dir():
            if dst.exists():  # deleted files must not linger (a removed case still running)
                shutil.rmtree(dst)
            shutil.copytree(src, dst, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dst)
    real = (ROOT / "pyproject.toml").read_text("utf-8")
    ours = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[)", "", real) + "\n" + mutmut_config(part)
    (work / "pyproject.toml").write_text(ours, encoding="utf-8")
    return work


def mutmut(work: Path, *args: str, capture: bool = False) -> str:
    env = {**os.environ, "HYPOTHESIS_PROFILE": "ci", "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [sys.executable, "-m", "mutmut", *args]
    done = subprocess.run(cmd, cwd=work, env=env, capture_output=capture, text=True, check=False)
    return done.stdout if capture else ""


def statuses(work: Path) -> dict[str, str]:
    """Mutant name -> status (killed, survived, timeout, no tests, ...)."""
    found = {}
    for line in mutmut(work, "results", "--all", "true", capture=True).splitlines():
        m = re.match(r"\s*([\w.]+__mutmut_\d+): (\w[\w ]*)", line)
        if m:
            found[m.group(1)] = m.group(2).strip()
    return found


def equivalents(part: str) -> dict[str, str]:
    if not EQUIVALENTS.exists():
        return {}
    data = tomllib.loads(EQUIVALENTS.read_text("utf-8"))
    return {str(k): str(v) for k, v in data.get(part, {}).items()}


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout

    dirty = " (with uncommitted changes)" if git("status", "--porcelain", "app", "tests") else ""
    return git("rev-parse", "--short", "HEAD").strip() + dirty


def report(part: Part, work: Path, seconds: float) -> str:
    status = statuses(work)
    counts = Counter(status.values())
    equiv = equivalents(part.name)
    survivors = sorted(n for n, s in status.items() if s not in KILLED and s != "not checked")
    explained = [n for n in survivors if n in equiv]
    unexplained = [n for n in survivors if n not in equiv]
    stale = sorted(set(equiv) - set(survivors))
    judged = sum(n for s, n in counts.items() if s != "not checked")
    killed = sum(counts[s] for s in KILLED)
    base = judged - len(explained)
    score = 100.0 * killed / base if base else 0.0
    lines = [
        f"part {part.name} at {commit()}: {killed}/{base} non-equivalent mutants killed "
        f"({score:.1f}%); {judged} judged, {len(explained)} equivalent; "
        f"{dict(sorted(counts.items()))}; {seconds / 60:.1f} min",
        f"mutated: {' '.join(part.mutate)}",
        f"tests: {' '.join(part.tests)}",
    ]
    lines += [f"equivalent: {n}: {equiv[n]}" for n in explained]
    lines += [f"listed as equivalent but not a survivor now: {n}" for n in stale]
    for name in unexplained:
        lines.append(f"\n{status[name]}: {name}")
        lines.append(mutmut(work, "show", name, capture=True).rstrip())
    text = "\n".join(lines) + "\n"
    (SCRATCH / f"{part.name}.txt").write_text(text, encoding="utf-8")
    return text


def main(argv: list[str]) -> int:
    known = parts()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("parts", nargs="*", help=f"parts to run (default all): {', '.join(known)}")
    ap.add_argument("--fresh", action="store_true", help="discard the scratch copy first")
    ap.add_argument("--again", action="store_true", help="re-test the last survivors only")
    ap.add_argument("--report", action="store_true", help="only write the report of the last run")
    args = ap.parse_args(argv)
    unknown = [p for p in args.parts if p not in known]
    if unknown:
        print(f"unknown part(s) {unknown}; parts: {', '.join(known)}", file=sys.stderr)
        return 2
    for name in args.parts or list(known):
        part = known[name]
        start = time.monotonic()
        if not args.report:
            work = prepare(part, fresh=args.fresh)
            names: list[str] = []
            if args.again:
                names = [n for n, s in statuses(work).items() if s not in KILLED]
            mutmut(work, "run", "--max-children", CHILDREN, *names)
        else:
            work = SCRATCH / part.name
        print(report(part, work, time.monotonic() - start), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
