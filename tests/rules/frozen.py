"""Independent rule cases stay independent: a committed digest of each reviewer/examiner case.

``tests/rules/frozen_cases.json`` records, for every case whose ``author`` is ``reviewer`` or
``examiner``, a digest of everything it states (scenario, options, steps, action, expectations)
and its ``revised`` note. ``test_frozen_cases_are_unchanged`` fails when a case no longer
matches its record. To record a change::

    .venv/bin/python -m tests.rules.frozen            # refuses unexplained edits
    .venv/bin/python -m tests.rules.frozen --drop zoc:review-foo   # a case deleted on purpose

A changed case is recorded only when its ``revised`` note changed too (a new or longer note
saying why); new independent cases are simply added.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from tests.rules.rule_cases import RULES, Case, all_cases

RECORD = RULES / "frozen_cases.json"
FROZEN_AUTHORS = ("reviewer", "examiner")
UNHASHED = ("description", "author", "revised", "snapshot")
"""Keys that do not change what a case asserts."""


def digest(case: Case) -> str:
    body = {k: v for k, v in case.data.items() if k not in UNHASHED}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def frozen_cases() -> dict[str, Case]:
    return {c.id: c for c in all_cases() if c.data.get("author") in FROZEN_AUTHORS}


def load_record(path: Path = RECORD) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    data: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def problems(record: dict[str, dict[str, Any]], cases: dict[str, Case]) -> list[str]:
    """What keeps the record from matching the cases, one line each."""
    out = []
    for cid, case in sorted(cases.items()):
        rec = record.get(cid)
        if rec is None:
            out.append(f"{cid}: new frozen case, not recorded yet")
        elif rec["digest"] != digest(case):
            note = case.data.get("revised")
            if not note or note == rec.get("revised"):
                out.append(f"{cid}: expectations edited without a new `revised:` note (why?)")
            else:
                out.append(f"{cid}: revised ({note[:60]}...), not recorded yet")
    out.extend(f"{cid}: frozen case removed" for cid in sorted(set(record) - set(cases)))
    return out


def update(drop: list[str]) -> int:
    record = load_record()
    cases = frozen_cases()
    refused = []
    for cid, case in sorted(cases.items()):
        rec = record.get(cid)
        note = case.data.get("revised")
        stale = rec is not None and rec["digest"] != digest(case)
        if rec is not None and stale and (not note or note == rec.get("revised")):
            refused.append(cid)
            continue
        record[cid] = {"digest": digest(case), "revised": note}
    for cid in sorted(set(record) - set(cases)):
        if cid in drop:
            del record[cid]
        else:
            refused.append(f"{cid} (removed; pass --drop {cid})")
    RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for cid in refused:
        print(f"refused: {cid}: edited without a new `revised:` note", file=sys.stderr)
    return 1 if refused else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Record the digests of independent cases.")
    parser.add_argument("--drop", action="append", default=[], help="ruleset:name to forget")
    return update(parser.parse_args(argv).drop)


if __name__ == "__main__":
    sys.exit(main())
