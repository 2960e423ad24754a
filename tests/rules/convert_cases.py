"""Convert old-format rule cases into the one case format (format 2, tests/rules/rule_cases.py).

    .venv/bin/python -m tests.rules.convert_cases            # convert, move, report
    .venv/bin/python -m tests.rules.convert_cases --check    # exit 1 if anything is left

Old formats it reads, per ruleset folder ``tests/rules/<package>/``:

* ``cases/*.yaml`` directly in ``cases/`` (author ``implementer``), ``cases_review/*.yaml``
  (``reviewer``), ``cases_examiner/*.yaml`` (``examiner``), each a ``cases:`` list, or (zoi) one
  case per file with ``base`` + ``scenario`` patch and a top-level ``after``;
* objective-zones cases without a scenario (the shipped example), ``advance: n``,
  ``expect.state``; zoc ``expect.stop_hex``.

Each case is written to ``cases/<topic>/<author>.yaml`` (topic from keywords of its file and
name), appended after the cases already there; the old file is deleted. JSON bases found in
``cases_*/`` move to ``bases/`` and references to them are rewritten. A case whose stated
sections were only a subset of what the ruling cites gets ``citations_loose`` naming the extra
sections, so it is visibly unreviewed rather than silently loose.

Idempotent: files already in the new format are never touched, a case whose name is already
present with the same data is skipped, and a second run finds nothing to do. A name present
with different data stops it with an error, unless ``--replace``: then the old file's version
(e.g. a case another branch edited after the conversion) replaces the converted one. The case
is appended to its topic file again, so review its place and re-apply marks it had (exact
citations, ``summary_has``).
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.rules.rule_cases import FORMAT, PACKAGES, REPO, RULES, Case, run_case

AUTHOR_BY_DIR = {"cases": "implementer", "cases_review": "reviewer", "cases_examiner": "examiner"}

TOPICS: dict[str, list[tuple[str, str]]] = {
    "zoc": [
        (r"seed", "8-seed-example"),
        (r"projection", "zoc-projection"),
        (r"weather|reserve|exploit", "8.2-weather-reserve-exploitation"),
        (r"supply|retreat", "8.2-supply-retreat"),
        (r"umpire|quer|scenario", "queries-and-scenarios"),
        (r"ezoc|negat|08_1", "8.1-enemy-zoc"),
        (r"movement|operational|08_2", "8.2-movement"),
    ],
    "zoi": [
        (r"melee|retreat", "melee-retreat"),
        (r"defensive", "defensive-fire"),
        (r"carre", "carre"),
        (r"unlimber|limber|artillery", "artillery"),
        (r"opportunity|exit|leave|leaves|shift|expend|entry", "leaving-and-opportunity-fire"),
        (r"stop|halt|enter", "stopping"),
        (r"zone|front|skirmish|leader|column|vertex|flank", "zone-shape"),
        (r"routed|mixed|cavalry|passes|through", "who-stops-whom"),
        (r"movement|sequence|reachable|phase|moves|path|step", "movement-and-sequence"),
    ],
    "objective-zones": [
        (r"fort", "large-forts"),
        (r"batter|morale", "batteries-and-morale"),
        (r"assault|allocation|melee|sealed", "assault-and-allocation"),
        (r"zone|movement|capacity|artillery|musketry", "zones-and-movement"),
    ],
    "terrain": [
        (r"scenario", "scenario"),
        (r"quer", "queries"),
        (r"a22|a23|a24|water|ford|stream|river", "water-and-fords"),
        (r"a41|a42|a43|a47|cover|building|works", "cover-and-buildings"),
        (r"a44|a45|woods", "woods"),
        (r"a46|rough", "rough"),
        (r"a11|a12|a31|slope", "slopes-and-obstacles"),
        (r"a35|road", "roads"),
    ],
    "battlefield": [
        (r"quer|setup", "queries-and-setup"),
        (r"zone_clauses|zone", "zone-clauses"),
        (r"charge|fire", "charges-and-fire"),
        (r"table|move", "table-moves"),
    ],
}
SHIPPED = {
    "objective-zones": "scenarios/objective-zones/example.json",
    "battlefield": "scenarios/battlefield/millers-crossing.json",
}
"""Rulesets whose old cases patched the shipped example implicitly."""


def topic_of(ruleset: str, stem: str, name: str) -> str:
    text = f"{stem} {name}".lower()
    for pattern, topic in TOPICS[ruleset]:
        if re.search(pattern, text):
            return topic
    return "misc"


def _old_files(folder: Path) -> list[tuple[Path, str]]:
    out: list[tuple[Path, str]] = []
    for dirname, author in AUTHOR_BY_DIR.items():
        out.extend((p, author) for p in sorted((folder / dirname).glob("*.yaml")))
    return out


def _old_cases(path: Path) -> list[dict[str, Any]]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    if isinstance(doc, dict) and "cases" in doc:
        return list(doc["cases"])
    assert isinstance(doc, dict) and "name" in doc, f"{path}: not a rule-case file"
    return [doc]


def convert(
    ruleset: str, case: dict[str, Any], author: str, moved: dict[str, str]
) -> dict[str, Any]:
    """One old-format case in the new format (pure data transformation)."""
    c = copy.deepcopy(case)
    expect = c.setdefault("expect", {})
    out: dict[str, Any] = {"name": c.pop("name"), "description": c.pop("description", "")}
    out["author"] = c.pop("author", author)
    if ruleset == "zoi" and "scenario_ref" not in c:
        out["scenario_ref"] = f"tests/rules/zoi/bases/{c.pop('base', 'open')}.yaml"
        patch = c.pop("scenario", None)
        if patch:
            out["patch"] = patch
            out["patch_lists"] = "replace"
        if "after" in c:
            expect["after"] = c.pop("after")
    if ruleset in SHIPPED and "scenario" not in c and "scenario_ref" not in c:
        out["scenario_ref"] = SHIPPED[ruleset]
    if "scenario_ref" in c and c["scenario_ref"] in moved:
        c["scenario_ref"] = moved[c["scenario_ref"]]
    advance = int(c.pop("advance", 0) or 0)
    if advance:
        c["before"] = [*(c.get("before") or []), *["advance"] * advance]
    if "stop_hex" in expect:
        expect.setdefault("details", {})["stop_hex"] = expect.pop("stop_hex")
    if "state" in expect and ruleset == "battlefield":
        expect["after"] = expect.pop("state")  # already a subset of the whole state
    if "state" in expect:
        state = expect.pop("state")
        after = expect.setdefault("after", {})
        removed = state.pop("removed", None)
        after["units"] = {**state, **{uid: None for uid in removed or []}}
        if removed:
            after["removed"] = removed
    out.update(c)
    out["expect"] = out.pop("expect", expect)
    return out


def _loose_if_needed(ruleset: str, case: dict[str, Any], file: str) -> None:
    """Mark a case whose stated sections are a subset of the ruling's as visibly loose."""
    expect = case.get("expect") or {}
    if "citations" not in expect or "citations_loose" in expect or "invalid_scenario" in case:
        return
    try:
        run_case(Case(ruleset, file, case))
        return
    except AssertionError as exc:
        if "not expected (exact by default)" not in str(exc):
            return  # fails for another reason: leave it for the author to see
        extra = re.search(r"also cites (\[.*?\])", str(exc))
    expect["citations_loose"] = (
        "old-format case: its sections were checked as a subset; the ruling also cites "
        f"{extra.group(1) if extra else '?'} -- not yet reviewed"
    )


MARKS = ("citations_loose", "summary_has")
"""Expectations added to converted cases after the conversion (marks, exact-citation review)."""


def _unmarked(case: dict[str, Any]) -> dict[str, Any]:
    """A case without what conversion and review add: marks, ``snapshot``, and the citations
    (compared apart: the old case's sections must all still be expected)."""
    out = copy.deepcopy(case)
    out.pop("snapshot", None)
    expect = out.get("expect") or {}
    for key in (*MARKS, "citations"):
        expect.pop(key, None)
    return out


def _same(existing: dict[str, Any], incoming: dict[str, Any]) -> bool:
    old = set((incoming.get("expect") or {}).get("citations") or [])
    new = set((existing.get("expect") or {}).get("citations") or [])
    return _unmarked(existing) == _unmarked(incoming) and old <= new


def _write(path: Path, cases: list[dict[str, Any]], sources: list[str]) -> None:
    head = "# Rule cases (format 2, tests/rules/rule_cases.py).\n"
    if sources:
        head += "# Converted by tests/rules/convert_cases.py from: " + ", ".join(sources) + "\n"
    body = yaml.safe_dump(
        {"format": FORMAT, "cases": cases}, sort_keys=False, width=100, allow_unicode=True
    )
    path.write_text(head + body, encoding="utf-8")


def run(check_only: bool = False, replace: bool = False) -> int:
    pending = 0
    for ruleset, package in PACKAGES.items():
        folder = RULES / package
        olds = _old_files(folder)
        if not olds:
            continue
        pending += len(olds)
        if check_only:
            for path, _ in olds:
                print(f"old format: {path.relative_to(REPO)}")
            continue
        moved: dict[str, str] = {}
        for dirname in ("cases_review", "cases_examiner"):
            for js in sorted((folder / dirname).glob("*.json")):
                target = folder / "bases" / f"{dirname.removeprefix('cases_')}-{js.name}"
                target.parent.mkdir(exist_ok=True)
                js.rename(target)
                moved[str(js.relative_to(REPO))] = str(target.relative_to(REPO))
        if moved:  # bases moved earlier may still be referenced by new-format files
            for path in (folder / "cases").glob("*/*.yaml"):
                text = path.read_text(encoding="utf-8")
                for before, after in moved.items():
                    text = text.replace(before, after)
                path.write_text(text, encoding="utf-8")
        for path, author in olds:
            for old in _old_cases(path):
                case = convert(ruleset, old, author, moved)
                topic = topic_of(ruleset, path.stem, case["name"])
                target = folder / "cases" / topic / f"{case['author']}.yaml"
                target.parent.mkdir(parents=True, exist_ok=True)
                existing: list[dict[str, Any]] = []
                sources: list[str] = []
                if target.exists():
                    text = target.read_text(encoding="utf-8")
                    existing = list(yaml.safe_load(text)["cases"])
                    m = re.search(r"^# Converted by .*? from: (.*)$", text, re.M)
                    sources = m.group(1).split(", ") if m else []
                same = next((e for e in existing if e["name"] == case["name"]), None)
                if same is not None and _same(same, case):
                    continue
                if same is not None and not replace:
                    raise SystemExit(
                        f"{case['name']}: already in {target} with other data (an old file "
                        "edited after the conversion? --replace takes the old file's version)"
                    )
                if same is not None:
                    existing = [e for e in existing if e["name"] != case["name"]]
                    print(f"replaced {case['name']} in {target.relative_to(REPO)}")
                _loose_if_needed(ruleset, case, str(target.relative_to(REPO)))
                src = str(path.relative_to(folder))
                _write(target, [*existing, case], sorted({*sources, src}))
            path.unlink()
            print(f"converted {path.relative_to(REPO)}")
        for dirname in ("cases_review", "cases_examiner"):
            d = folder / dirname
            if d.is_dir() and not any(d.iterdir()):
                d.rmdir()
    return pending


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report old-format files")
    parser.add_argument(
        "--replace",
        action="store_true",
        help="a case already converted but edited since in an old file: take the old file's",
    )
    args = parser.parse_args(argv)
    pending = run(check_only=args.check, replace=args.replace)
    if args.check:
        return 1 if pending else 0
    print(f"{pending} old-format file(s) converted" if pending else "nothing to convert")
    return 0


if __name__ == "__main__":
    sys.exit(main())
