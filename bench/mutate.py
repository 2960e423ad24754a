"""Mutation testing of the rules core, one part at a time (``make mutate [PART=terrain]``).

Runs mutmut (configured in pyproject.toml ``[tool.mutmut]``: mutants of ``app/rules``, killed
by the rules tests) over each part's modules, then writes the score per part and the surviving
mutants to ``var/mutation/<part>.txt``. A part is a ruleset package or ``core`` (the shared
modules of ``app/rules``). docs/TESTING.md records the scores and explains every survivor.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUTMUT = [sys.executable, "-m", "mutmut"]
PARTS: dict[str, list[str]] = {
    "terrain": ["app.rules.terrain.*"],
    "zoc": ["app.rules.zoc.*"],
    "zoi": ["app.rules.zoi.*"],
    "objective_zones": ["app.rules.objective_zones.*"],
    "core": [
        "app.rules.base.*",
        "app.rules.catalog.*",
        "app.rules.ruling.*",
        "app.rules.registry.*",
        "app.rules.geometry.*",
    ],
}
CHILDREN = os.environ.get("MUTATE_CHILDREN", "2")


def results() -> dict[str, str]:
    """Mutant name -> status (killed, survived, timeout, ...), from ``mutmut results``."""
    out = subprocess.run(
        [*MUTMUT, "results", "--all", "true"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\w.]+__mutmut_\d+): (\w[\w ]*)", line)
        if m:
            found[m.group(1)] = m.group(2).strip()
    return found


def in_part(name: str, patterns: list[str]) -> bool:
    return any(re.match(p.replace(".", r"\.").replace(r"\.*", r"\..*"), name) for p in patterns)


def run_part(part: str) -> str:
    patterns = PARTS[part]
    subprocess.run([*MUTMUT, "run", "--max-children", CHILDREN, *patterns], cwd=ROOT, check=False)
    statuses = {n: s for n, s in results().items() if in_part(n, patterns)}
    counts = Counter(statuses.values())
    judged = counts["killed"] + counts["survived"] + counts["timeout"]
    killed = counts["killed"] + counts["timeout"]
    score = 100.0 * killed / judged if judged else 0.0
    lines = [f"part {part}: {killed}/{judged} killed ({score:.1f}%), {dict(counts)}"]
    lines += [f"survived: {n}" for n, s in sorted(statuses.items()) if s == "survived"]
    report = "\n".join(lines) + "\n"
    target = ROOT / "var" / "mutation" / f"{part}.txt"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(report, encoding="utf-8")
    return report


def main(argv: list[str]) -> int:
    parts = argv or list(PARTS)
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        print(f"unknown part(s) {unknown}; parts: {', '.join(PARTS)}", file=sys.stderr)
        return 2
    for part in parts:
        print(run_part(part), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
