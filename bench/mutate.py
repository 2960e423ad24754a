"""Mutation testing of the rules core, one part at a time (``make mutate PART=zoc``).

A *part* is a ruleset package of ``app/rules`` (``zoc``, ``zoi``, ``terrain``, ...) or ``core``
(the shared kit: every module directly in ``app/rules`` and every folder of it that is not a
ruleset package, e.g. ``app/rules/geometry``; ``app/rules/examples``, the worked example of
docs/ADDING_A_RULESET.md that the registry never serves, is left out).
Each part runs mutmut 3 in its own scratch copy ``var/mutation/<part>/`` whose ``pyproject.toml``
gets a ``[tool.mutmut]`` of its own, so that mutants are generated for that part's modules only
(``only_mutate``) and killed by that part's tests only: ``tests/rules/<package>`` plus the shared
rules tests ``tests/rules/test_*.py`` (``core``: those shared tests only, but the rule cases
themselves, which its screen runs: see :func:`parts`).

Three steps (bench/mutation_tool.py runs the first two inside the scratch copy):

1. generate the part's mutants (mutmut);
2. screen them with the part's rule cases in process (a fork per mutant, no pytest): most
   mutants die here, in a fraction of the time mutmut needs per mutant;
3. ``mutmut run`` judges the screen's survivors with the part's whole pytest selection
   (per mutant, only the tests that call the mutated function).

The base settings (pytest arguments) come from ``[tool.mutmut]`` in the real ``pyproject.toml``.
Children: ``MUTATE_CHILDREN`` (default 2). ``MUTATE_ONLY`` (globs on paths relative to the
root, split like a shell line) narrows what a part mutates to those of its modules, e.g.
``app/rules/zoc/search.py app/rules/zoc/index.py`` when only they changed and the whole part
would not fit the time; a part none of whose modules is named is skipped. ``MUTATE_TESTS``
(pytest arguments, split like a shell line) replaces the part's pytest selection for step 3,
e.g. the part's fast unit tests and the property tests of the functions left when the whole
selection's stats run is too slow for the machine; a report names the selection used.
Property tests run on the CI profile's fixed examples without shrinking
(``HYPOTHESIS_PROFILE=mutate``, tests/conftest.py) so a mutant's verdict does not depend on a
seed and a kill does not pay for a small example.

The scratch copy is refreshed from the worktree on every run and keeps its results: a module
whose functions did not change keeps its verdicts, so a second run re-tests only what changed.
``--again`` re-tests the part's last survivors but those listed as equivalent (e.g. after adding
a rule case that should kill them): the screen first, then mutmut's pytest run on what it
leaves; ``--fresh`` throws the scratch copy away first.

Known equivalent mutants (a mutation no ruling can tell apart, with the reason) are listed in
``bench/mutation_equivalents/<part>.toml``; the score is killed / (judged - equivalent). The
screen kills a mutant when a rule case's own expectations fail, or else when a case's whole
outcome no longer has the fingerprint recorded for the ruleset's version (the suite's
``tests/reliability/test_ruleset_versions.py``); the report counts the two apart. The report,
with the diff of every unexplained survivor, goes to ``var/mutation/<part>.txt``;
``docs/mutation/<part>.md`` records each part's score and its survivors.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import re
import shlex
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
EQUIVALENTS = ROOT / "bench" / "mutation_equivalents"  # <part>.toml: mutant name -> why
COPIED = ["app", "tests", "scenarios", "bench", "docs", "CHANGELOG.md", "README.md"]
# bench: tests import its scenario builders (bench.scenarios)
SHARED_TESTS = "tests/rules/test_*.py"
RECORD_TEST = "tests/reliability/test_ruleset_versions.py"  # the recorded whole outcomes
TOOL = ROOT / "bench" / "mutation_tool.py"
COMPILED = ROOT / "app" / "compiled"  # the mypyc copies (app/native.py): never in a scratch copy
KILLED = {"killed", "timeout", "caught by type check", "segfault"}
CHILDREN = os.environ.get("MUTATE_CHILDREN", "2")
NOT_A_PART = {"__pycache__", "examples"}  # examples: never served, not shared by any ruleset


@dataclass(frozen=True)
class Part:
    name: str
    cases: str  # the ruleset id whose rule cases screen the mutants ("all" for core)
    mutate: list[str]  # fnmatch globs on paths relative to the root ('*' spans '/')
    tests: list[str]  # pytest arguments selecting the tests that may kill


def parts() -> dict[str, Part]:
    """Every ruleset package (a folder of ``app/rules`` with a ``ruleset.py``) and ``core``."""
    sys.path.insert(0, str(ROOT))
    from tests.rules.rule_cases import PACKAGES

    ruleset_of = {pkg: rs for rs, pkg in PACKAGES.items()}
    shared = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(SHARED_TESTS))
    found: dict[str, Part] = {}
    core: list[str] = sorted(str(p.relative_to(ROOT)) for p in RULES.glob("*.py"))
    for pkg in sorted(p for p in RULES.iterdir() if p.is_dir() and p.name not in NOT_A_PART):
        rel = str(pkg.relative_to(ROOT))
        if (pkg / "ruleset.py").exists():
            tests = [f"tests/rules/{pkg.name}", *shared, RECORD_TEST]
            found[pkg.name] = Part(pkg.name, ruleset_of[pkg.name], [f"{rel}/*"], tests)
        else:
            core.append(f"{rel}/*")
    narrowed = shlex.split(os.environ.get("MUTATE_TESTS", ""))
    only = shlex.split(os.environ.get("MUTATE_ONLY", ""))
    # core: the shared tests only. Its functions run under every ruling, so mutmut's pytest
    # run of all of tests/rules (every rule case, every property test of every ruleset) would
    # take many minutes a survivor; the screen has already judged every rule case (calling
    # the mutant) by its expectations and by its recorded outcome, what test_rule_case and
    # RECORD_TEST would do again.
    core_tests = [*shared, "--deselect", "tests/rules/test_rule_cases.py::test_rule_case"]
    found["core"] = Part("core", "all", core, core_tests)
    if narrowed:
        found = {n: Part(p.name, p.cases, p.mutate, narrowed) for n, p in found.items()}
    if only:
        found = {
            n: Part(p.name, p.cases, narrow(p.mutate, only), p.tests) for n, p in found.items()
        }
    return found


def narrow(mutate: list[str], only: list[str]) -> list[str]:
    """``MUTATE_ONLY``'s globs that name modules of a part (whose globs are ``mutate``)."""
    return [g for g in only if any(fnmatch.fnmatch(g, m) for m in mutate)]


def mutmut_config(part: Part) -> str:
    """The scratch copy's ``[tool.mutmut]``: the real one's settings, narrowed to the part.
    Only ``app/rules`` is mutmut's source (the rest of ``app`` is copied once, so a second run
    does not regenerate the part's mutants)."""
    base = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["mutmut"]
    rest_of_app = sorted(
        f"app/{p.name}" + ("/" if p.is_dir() else "")
        for p in (ROOT / "app").iterdir()
        if p.name not in ("rules", "__pycache__", COMPILED.name)
    )
    also = [a for a in base.get("also_copy", []) if a.rstrip("/") != "app"]
    cfg = {
        **base,
        "source_paths": ["app/rules/"],
        "also_copy": rest_of_app + also,
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
    return json.dumps(str(value))


def prepare(part: Part, *, fresh: bool) -> Path:
    """Refresh the part's scratch copy from the worktree (mtimes kept: mutmut regenerates the
    mutants of a source file only when the file changed)."""
    work = SCRATCH / part.name
    if fresh and work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    patterns = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")

    def ignore(folder: str, names: list[str]) -> set[str]:  # and the compiled copies
        return set(patterns(folder, names)) | (
            {COMPILED.name} if Path(folder) == COMPILED.parent else set()
        )

    for name in COPIED:
        src, dst = ROOT / name, work / name
        if src.is_dir():
            if dst.exists():  # deleted files must not linger (a removed case still running)
                shutil.rmtree(dst)
            shutil.copytree(src, dst, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dst)
    shutil.rmtree(work / "mutants" / COMPILED.relative_to(ROOT), ignore_errors=True)  # older runs'
    real = (ROOT / "pyproject.toml").read_text("utf-8")
    ours = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[)", "", real) + "\n" + mutmut_config(part)
    (work / "pyproject.toml").write_text(ours, encoding="utf-8")
    (work / "commit.txt").write_text(commit(), encoding="utf-8")  # what the mutants are of
    return work


# the pure-Python rules: the mutants are of the pure modules. A compiled copy of the zoc search
# and index answering instead would let every mutant of them survive: the scratch copy has none
# (prepare), and REFEREE_PURE_RULES would turn one off anyway (app/native.py); the screen checks.
ENV = {
    "HYPOTHESIS_PROFILE": "mutate",
    "PYTHONDONTWRITEBYTECODE": "1",
    "MUTATE_CHILDREN": CHILDREN,
    "REFEREE_PURE_RULES": "1",
}


def step(work: Path, *args: str, capture: bool = False) -> str:
    """A step in the scratch copy: ``mutmut ...`` or ``tool ...`` (bench/mutation_tool.py)."""
    cmd = [sys.executable, str(TOOL)] if args[0] == "tool" else [sys.executable, "-m", "mutmut"]
    env = {**os.environ, **ENV}
    done = subprocess.run(
        [*cmd, *args[1:]], cwd=work, env=env, capture_output=capture, text=True, check=False
    )
    return done.stdout if capture else ""


def results(work: Path) -> dict[str, dict[str, str]]:
    """Mutant name -> {status, diff (unless killed)}."""
    out = step(work, "tool", "results", capture=True)
    return json.loads(out) if out.strip() else {}


def equivalents(part: str) -> dict[str, str]:
    path = EQUIVALENTS / f"{part}.toml"
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text("utf-8"))
    return {str(k): str(v) for k, v in data.items()}


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout

    dirty = " (with uncommitted changes)" if git("status", "--porcelain", "app", "tests") else ""
    return git("rev-parse", "--short", "HEAD").strip() + dirty


def module_of(mutant: str) -> str:
    """``app.rules.zoc.search`` of ``app.rules.zoc.search.x_search__mutmut_3`` (or ``.xǁ...``)."""
    return re.split(r"\.x[_ǁ]", mutant, maxsplit=1)[0]


def report(part: Part, work: Path, seconds: float) -> str:
    found = results(work)
    counts = Counter(r["status"] for r in found.values())
    equiv = equivalents(part.name)
    survivors = sorted(n for n, r in found.items() if r["status"] not in KILLED)
    survivors = [n for n in survivors if found[n]["status"] != "not checked"]
    explained = [n for n in survivors if n in equiv]
    unexplained = [n for n in survivors if n not in equiv]
    modules = {module_of(n) for n in found}  # a narrowed part (MUTATE_ONLY): its modules only
    stale = sorted(n for n in set(equiv) - set(survivors) if module_of(n) in modules)
    judged = sum(n for s, n in counts.items() if s != "not checked")
    killed = sum(counts[s] for s in KILLED)
    base = judged - len(explained)
    score = 100.0 * killed / base if base else 0.0
    sampled = work / "sample.json"
    of = json.loads(sampled.read_text())["of"] if sampled.exists() else len(found)
    at = (work / "commit.txt").read_text() if (work / "commit.txt").exists() else commit()
    by = Counter(r.get("by", "") for r in found.values() if r["status"] == "killed")
    by_case = by["case"]
    lines = [
        f"part {part.name} at {at}: {killed}/{base} non-equivalent mutants killed "
        f"({score:.1f}%); {judged} judged, {len(explained)} equivalent; "
        f"{dict(sorted(counts.items()))}; {seconds / 60:.1f} min; "
        + (f"a random sample of {len(found)} of {of} mutants" if of != len(found) else "all"),
        f"killed by a rule case's own expectations: {by_case} "
        f"({100.0 * by_case / base if base else 0.0:.1f}%); by the recorded outcomes only: "
        f"{by['record']}; by mutmut's pytest run: {by['pytest']}",
        f"mutated: {' '.join(part.mutate)}",
        f"tests: {' '.join(part.tests)}",
    ]
    lines += [f"equivalent: {n}: {equiv[n]}" for n in explained]
    lines += [f"listed as equivalent but not a survivor now: {n}" for n in stale]
    for name in unexplained:
        lines += ["", f"{found[name]['status']}: {name}", found[name].get("diff", "").rstrip()]
    text = "\n".join(lines) + "\n"
    (SCRATCH / f"{part.name}.txt").write_text(text, encoding="utf-8")
    return text


def keep_verdicts(work: Path, part: Part) -> None:
    """mutmut resets *every* verdict (the screen's kills too) when the pytest selection differs
    from the one its stats were collected with. A changed selection therefore drops the stats
    instead: mutmut collects them anew over the new selection and keeps the verdicts."""
    stats = work / "mutants" / "mutmut-stats.json"
    if not stats.exists():
        return
    old = json.loads(stats.read_text("utf-8")).get("config_fingerprint", {})
    new = hashlib.sha256(repr(tuple(part.tests)).encode()).hexdigest()[:12]
    if old.get("test_selection", new) != new:
        print(f"mutate: pytest selection changed: {stats.name} dropped", flush=True)
        stats.unlink()


def run(
    part: Part, *, fresh: bool, again: bool, screen_only: bool, sample: int, pytest_only: bool
) -> None:
    work = prepare(part, fresh=fresh)
    step(work, "tool", "generate")
    if pytest_only:  # the screen has run on this code: its survivors go to mutmut at once
        keep_verdicts(work, part)
        step(work, "mutmut", "run", "--max-children", CHILDREN)
        return
    names: list[str] = []
    if again:  # the last survivors, except those listed as equivalent (already explained)
        listed = equivalents(part.name)
        names = [
            n for n, r in results(work).items() if r["status"] not in KILLED and n not in listed
        ]
        # forget the survivors' verdicts: the screen judges them again first (a new rule case
        # kills in a fork what mutmut's pytest run would need a session for), then mutmut
        # judges only what the screen left
        step(work, "tool", "forget", *names)
        step(work, "tool", "screen", part.cases, str(sample))
        left = results(work)
        names = [n for n in names if left[n]["status"] not in KILLED]
        if not names:
            return
    else:
        step(work, "tool", "screen", part.cases, str(sample))
    if sample and not again:  # mutmut judges the sample's survivors only
        names = [n for n, r in results(work).items() if r["status"] not in KILLED]
        if not names:
            return
    if not screen_only:
        keep_verdicts(work, part)
        step(work, "mutmut", "run", "--max-children", CHILDREN, *names)


def main(argv: list[str]) -> int:
    known = parts()
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("parts", nargs="*", help=f"parts to run (default all): {', '.join(known)}")
    ap.add_argument("--fresh", action="store_true", help="discard the scratch copy first")
    ap.add_argument("--again", action="store_true", help="re-test the last survivors only")
    ap.add_argument("--report", action="store_true", help="only write the report of the last run")
    ap.add_argument(
        "--screen-only",
        action="store_true",
        help="judge with the rule cases only (no mutmut run): a lower bound of the score",
    )
    ap.add_argument(
        "--pytest-only",
        action="store_true",
        help="mutmut's pytest run on what is unjudged, without screening it again first",
    )
    ap.add_argument(
        "--sample",
        type=int,
        default=int(os.environ.get("MUTATE_SAMPLE", "0")),
        help="judge a fixed random sample of this many mutants per part (0: all)",
    )
    args = ap.parse_args(argv)
    unknown = [p for p in args.parts if p not in known]
    if unknown:
        print(f"unknown part(s) {unknown}; parts: {', '.join(known)}", file=sys.stderr)
        return 2
    for name in args.parts or list(known):
        if not known[name].mutate:
            print(f"part {name}: none of its modules in MUTATE_ONLY, skipped", flush=True)
            continue
        start = time.monotonic()
        if not args.report:
            run(
                known[name],
                fresh=args.fresh,
                again=args.again,
                screen_only=args.screen_only,
                sample=args.sample,
                pytest_only=args.pytest_only,
            )
        print(report(known[name], SCRATCH / name, time.monotonic() - start), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
