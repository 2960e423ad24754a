"""The steps of ``make mutate`` that run inside a part's scratch copy (``var/mutation/<part>``).

``bench/mutate.py`` calls ``python bench/mutation_tool.py <step> ...`` with the scratch copy as
working directory:

* ``generate`` -- mutmut's mutant generation alone (its ``run`` without the test runs): the
  mutated modules in ``mutants/``, one ``.meta`` per module with every mutant unjudged;
* ``screen <ruleset id or all> [size [seed]]`` -- the fast first pass, below, over a fixed
  random sample of ``size`` mutants (0: all);
* ``results`` -- JSON: mutant name -> status (mutmut's, else the screen's), and the diff of
  every mutant not killed;
* ``forget <names>`` -- mark those mutants unjudged again.

**Screen.** mutmut runs pytest once per mutant (a fork, a collection, the covering tests): about
one mutant a second on a quiet two-core machine, several times slower on a loaded one, and a
part has thousands of mutants. Most die on the first rule case that calls the mutated function.
The screen imports the mutated tree once, then for each unjudged mutant forks a child that
activates it (mutmut's trampolines read ``MUTANT_UNDER_TEST``) and judges the part's rule cases
(``tests/rules/rule_cases.py``) that call the mutated function (recorded by the trampolines in
one unmutated pass) until one fails; the case that killed the last mutant goes first. A kill
is written to mutmut's ``.meta`` as mutmut's own "killed" (exit code 1); a
survivor stays unjudged, so ``mutmut run`` then judges it with the part's whole pytest
selection. A child running past ``MUTATE_SCREEN_TIMEOUT`` seconds (default 60) is killed and
recorded as a timeout. Children: ``MUTATE_CHILDREN`` (default 2). ``MUTATE_CASE_CAP=N`` judges
a mutant with at most N of the cases calling it (the last killers first, then the rulesets in
turn): for ``core``, whose functions every case calls, a survivor would otherwise run every
case of every ruleset twice; the cap's survivors are judged again without it (``--again``).

Uses mutmut 3.8's internals (the dev extra pins the minor version).
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

KILLED, TIMEOUT = 1, 36
CHILDREN = int(os.environ.get("MUTATE_CHILDREN", "2"))
TIMEOUT_S = float(os.environ.get("MUTATE_SCREEN_TIMEOUT", "60"))
CAP = int(os.environ.get("MUTATE_CASE_CAP", "0"))  # at most this many cases a mutant (0: all)
SCREENED = Path("screen.json").resolve()  # mutant -> the screen's verdict when mutmut has none
SURVIVED, UNCALLED = "survived the rule cases", "called by no rule case"
SAMPLE = Path("sample.json").resolve()  # the sampled mutants, when the part is sampled
KILLS = Path("kills.json").resolve()  # killed mutant -> "case" or "record": what noticed it
NO_RECORD = bool(os.environ.get("MUTATE_NO_RECORD"))  # judge by the cases' expectations only
Meta = dict[str, Any]


def generate() -> None:
    from mutmut.__main__ import (  # type: ignore[attr-defined]
        copy_also_copy_files,
        copy_src_dir,
        create_mutants,
        setup_source_paths,
    )

    Path("mutants").mkdir(exist_ok=True)
    copy_src_dir()
    copy_also_copy_files()
    setup_source_paths()
    stats = create_mutants(CHILDREN)
    print(f"generate: {stats.mutated} modules mutated", flush=True)


def metas() -> dict[Path, Meta]:
    from mutmut.utils.file_utils import walk_mutatable_files

    found = {}
    for path in walk_mutatable_files():
        meta = (Path("mutants") / (str(path) + ".meta")).resolve()
        if meta.exists():
            found[meta] = json.loads(meta.read_text("utf-8"))
    return found


def save(found: dict[Path, Meta]) -> None:
    for meta, data in found.items():
        meta.write_text(json.dumps(data, indent=4), encoding="utf-8")


CACHES = ["app.rules.zoc.context._CITES", "app.rules.judgement._REFS"]
"""Module-level dicts the rules core fills as a cache (besides ``functools`` caches and
:class:`app.rules.memo.ByIdentity`, found by themselves, and each registered ruleset's
``queries()`` table and action adapter): emptied before every case of the coverage pass and in
every child."""


def clear_caches() -> None:
    """Empty every process-wide cache of the rules core, so that no value computed earlier
    (unmutated, or for another case) hides the mutant's own computation."""
    from app.rules.memo import ByIdentity

    for name, module in list(sys.modules.items()):
        if not name.startswith("app.rules") or module is None:
            continue
        for obj in list(vars(module).values()):
            if isinstance(obj, ByIdentity):
                obj._items.clear()
            elif callable(getattr(obj, "cache_clear", None)):
                obj.cache_clear()
    for dotted in CACHES:
        module_name, _, attr = dotted.rpartition(".")
        if module_name in sys.modules:
            getattr(sys.modules[module_name], attr).clear()
    registry = sys.modules.get("app.rules.registry")
    for ruleset in getattr(registry, "_REGISTRY", {}).values():  # base.Ruleset's own caches
        ruleset.__dict__.pop("_queries", None)
        for cls in type(ruleset).__mro__:
            if cls.__dict__.get("_action_adapter") is not None:
                cls._action_adapter = None  # type: ignore[attr-defined]


def judge(
    name: str,
    cases: list[Any],
    order: list[int],
    run: Callable[[Any], None],
    recorded: Callable[[Any], None],
    out: int,
) -> None:
    """In the forked child: activate the mutant, judge cases until one fails -- first by
    every case's own expectations, then (for a mutant none of them noticed) by the recorded
    fingerprints of the cases' whole outcomes (``tests/reliability/test_ruleset_versions.py``:
    messages, summaries, every field of a ruling, the state after ``apply``)."""
    clear_caches()
    os.environ["MUTANT_UNDER_TEST"] = name
    passes: list[tuple[str, Callable[[Any], None]]] = [("case", run)]
    if not NO_RECORD:
        passes.append(("record", recorded))
    for how, check in passes:
        for i in order:
            try:
                check(cases[i])
            except BaseException:  # a failed expectation or any crash kills the mutant
                os.write(out, f"{i} {how}\n".encode())
                os._exit(KILLED)
    os._exit(0)


def record_check() -> Callable[[Any], None]:
    """A check that a case's outcome still has the fingerprint recorded for the ruleset's
    current version (cases with no recorded fingerprint pass)."""
    from app.rules import registry
    from tests.reliability.rulings import fingerprint, load_record

    record = load_record()

    def check(case: Any) -> None:
        want = record.get(case.ruleset, {}).get(registry.get(case.ruleset).version, {})
        if case.id in want:
            assert fingerprint(case) == want[case.id], f"{case.id}: outcome changed"

    return check


def coverage(cases: list[Any], run_case: Callable[[Any], None]) -> dict[str, list[int]]:
    """Run every case unmutated (each must pass; this also warms every import) with mutmut's
    trampolines recording the functions it calls: mangled function name -> case indexes."""
    from mutmut.state import state

    os.environ["MUTANT_UNDER_TEST"] = "stats"
    calls: dict[str, list[int]] = {}
    for i, case in enumerate(cases):
        state()._stats.clear()
        clear_caches()  # a cached value would hide the calls that compute it for this case
        run_case(case)
        for name in state()._stats:
            calls.setdefault(name, []).append(i)
    os.environ.pop("MUTANT_UNDER_TEST")
    return calls


def sample(found: dict[Path, Meta], size: int, seed: int) -> set[str] | None:
    """A fixed random sample of ``size`` of the part's mutants (all of them if ``size`` is 0),
    kept in ``sample.json`` so that the report counts exactly the sampled mutants."""
    if size <= 0:
        SAMPLE.unlink(missing_ok=True)
        return None
    names = sorted(k for data in found.values() for k in data["exit_code_by_key"])
    chosen = sorted(random.Random(seed).sample(names, min(size, len(names))))
    SAMPLE.write_text(json.dumps({"size": size, "seed": seed, "of": len(names), "mutants": chosen}))
    return set(chosen)


def spread(cases: list[Any]) -> list[int]:
    """The cases' indexes, one ruleset after the other in turn (the first ``MUTATE_CASE_CAP``
    cases a mutant faces then come from every ruleset that calls it, not from the first)."""
    by_ruleset: dict[str, list[int]] = {}
    for i, case in enumerate(cases):
        by_ruleset.setdefault(case.ruleset, []).append(i)
    rows = list(by_ruleset.values())
    longest = max((len(r) for r in rows), default=0)
    return [r[n] for n in range(longest) for r in rows if n < len(r)]


def screen(ruleset: str, size: int = 0, seed: int = 14) -> None:
    found = metas()
    only = sample(found, size, seed)
    verdicts: dict[str, str] = json.loads(SCREENED.read_text()) if SCREENED.exists() else {}
    kills: dict[str, str] = json.loads(KILLS.read_text()) if KILLS.exists() else {}
    os.chdir("mutants")
    sys.path.insert(0, str(Path.cwd()))
    import app
    from tests.rules.rule_cases import all_cases, load_cases, run_case

    assert Path(app.__file__).resolve().is_relative_to(Path.cwd().resolve()), app.__file__
    from app import native

    # the mutants are of the pure modules: a compiled copy of the zoc search/index answering
    # instead would let every mutant of them survive (bench/mutate.py sets REFEREE_PURE_RULES)
    assert native.status()["build"] == "pure", native.describe()
    from mutmut.utils.format_utils import mangled_name_from_mutant_name

    cases: list[Any] = list(all_cases() if ruleset == "all" else load_cases(ruleset))
    calls = coverage(cases, run_case)
    recorded = record_check()
    todo = [
        (meta, key, calls.get(mangled_name_from_mutant_name(key.replace("__init__.", "")), []))
        for meta, data in found.items()
        for key, code in data["exit_code_by_key"].items()
        if code is None and (only is None or key in only)
    ]
    order = spread(cases)
    running: dict[int, tuple[int, float, Path, str]] = {}  # pid -> (pipe, start, meta, key)
    counts = {"killed": 0, "timeout": 0, "left to mutmut": 0}
    start = time.monotonic()

    def reap(limit: int) -> None:
        while len(running) > limit:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                now = time.monotonic()
                for cpid, (_, began, _, _) in running.items():
                    if now - began > TIMEOUT_S:
                        os.kill(cpid, signal.SIGKILL)
                select.select([r for r, _, _, _ in running.values()], [], [], 0.05)
                continue
            pipe, began, meta, key = running.pop(pid)
            hit = os.read(pipe, 64).decode().split()
            os.close(pipe)
            code = os.waitstatus_to_exitcode(status)
            if code == KILLED:
                found[meta]["exit_code_by_key"][key] = KILLED
                counts["killed"] += 1
                if hit:
                    order.remove(int(hit[0]))
                    order.insert(0, int(hit[0]))
                    kills[key] = hit[1]
            elif code == -signal.SIGKILL and time.monotonic() - began > TIMEOUT_S:
                found[meta]["exit_code_by_key"][key] = TIMEOUT
                counts["timeout"] += 1
            else:
                counts["left to mutmut"] += 1
                verdicts[key] = SURVIVED

    for n, (meta, key, calling) in enumerate(todo, start=1):
        verdicts.pop(key, None)
        kills.pop(key, None)
        if not calling:
            counts["left to mutmut"] += 1
            verdicts[key] = UNCALLED
            continue
        reap(CHILDREN - 1)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            mine = set(calling)
            mine_in_order = [i for i in order if i in mine]
            if CAP:  # the cases that killed last first, then a spread over the rulesets
                mine_in_order = mine_in_order[:CAP]
            judge(key.replace("__init__.", ""), cases, mine_in_order, run_case, recorded, w)
        os.close(w)
        running[pid] = (r, time.monotonic(), meta, key)
        if n % 50 == 0:  # an interrupted screen loses little
            save(found)
            SCREENED.write_text(json.dumps(verdicts, indent=1), encoding="utf-8")
            KILLS.write_text(json.dumps(kills, indent=1), encoding="utf-8")
        if n % 250 == 0:
            print(f"screen: {n}/{len(todo)} {counts} {time.monotonic() - start:.0f}s", flush=True)
    reap(0)
    save(found)
    SCREENED.write_text(json.dumps(verdicts, indent=1), encoding="utf-8")
    KILLS.write_text(json.dumps(kills, indent=1), encoding="utf-8")
    print(f"screen: {len(todo)} mutants {counts} {time.monotonic() - start:.0f}s", flush=True)


def forget(names: set[str]) -> None:
    """Mark mutants unjudged again (the screen then judges them anew)."""
    found = metas()
    for data in found.values():
        for key in data["exit_code_by_key"]:
            if key in names:
                data["exit_code_by_key"][key] = None
    save(found)


def results() -> None:
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code

    verdicts: dict[str, str] = json.loads(SCREENED.read_text()) if SCREENED.exists() else {}
    kills: dict[str, str] = json.loads(KILLS.read_text()) if KILLS.exists() else {}
    only = set(json.loads(SAMPLE.read_text())["mutants"]) if SAMPLE.exists() else None
    out: dict[str, dict[str, str]] = {}
    for meta, data in metas().items():
        source = str(meta.relative_to(Path("mutants").resolve()))[: -len(".meta")]
        for key, code in data["exit_code_by_key"].items():
            if only is not None and key not in only:
                continue
            status = status_by_exit_code[code]
            if status == "not checked" and key in verdicts:  # judged by the screen only
                status = verdicts[key]
            entry = out[key] = {"status": status}
            if status == "killed":  # by the screen (a case or the record), else by mutmut's pytest
                entry["by"] = kills.get(key, "pytest")
            if status not in ("killed", "timeout", "not checked"):
                entry["diff"] = get_diff_for_mutant(key, path=source)
    print(json.dumps(out))


if __name__ == "__main__":
    step, args = sys.argv[1], sys.argv[2:]
    if step == "generate":
        generate()
    elif step == "screen":
        screen(args[0], *(int(a) for a in args[1:]))
    elif step == "results":
        results()
    elif step == "forget":
        forget(set(args))
    else:
        sys.exit(f"unknown step {step!r}")
