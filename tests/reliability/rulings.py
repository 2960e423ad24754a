"""Ruling fingerprints of the recorded rule cases, per ruleset and ruleset version.

For every rule case (``tests/rules/<package>/cases/``, read by ``tests/rules/rule_cases.py``)
that judges an action or runs a query, the canonical JSON of its outcome (the ruling, the query
result, or the error raised) is hashed. ``ruling_digests.json`` keeps, per ruleset and version, the
fingerprint of each case. ``test_ruleset_versions.py`` fails when a recorded case's outcome
changes while the ruleset's version stays the same: a ruling changed without a version bump.

After a deliberate change of rulings, bump the ruleset's ``version`` (and add a CHANGELOG
entry), then re-record::

    make record-rulings      # = .venv/bin/python -m tests.reliability.rulings --record

Recording adds the new version's fingerprints and keeps the older versions' ones.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from app.rules import registry
from tests.rules.rule_cases import PACKAGES, Case, _setup, load_cases

HERE = Path(__file__).parent
RECORD = HERE / "ruling_digests.json"
RULESETS = sorted(PACKAGES)
"""Every ruleset with rule cases (``tests/rules/rule_cases.py``)."""


def _outcome(case: Case) -> Any:
    """What the rules core answers to the case: the ruling, or the query's result."""
    rs, options, board, state = _setup(case)
    data = case.data
    if "query" in data:
        spec = rs.queries()[data["query"]["name"]]
        params = spec.params.model_validate(data["query"].get("params") or {})
        return spec.run(board, state, options, params)
    action = rs.parse_action(data["action"])
    dice = list(data.get("dice") or [])
    return rs.adjudicate(board, state, action, options, dice).model_dump(mode="json")


def fingerprints(ruleset_id: str) -> dict[str, str]:
    """Case id -> 16 hex digits of the SHA-256 of the case's outcome (cases judging an action
    or running a query; a case that raises is recorded by its error)."""
    out: dict[str, str] = {}
    for case in load_cases(ruleset_id):
        if "action" not in case.data and "query" not in case.data:
            continue
        try:
            outcome = _outcome(case)
        except Exception as exc:
            outcome = {"error": type(exc).__name__}
        text = json.dumps(outcome, sort_keys=True, separators=(",", ":"), default=str)
        out[case.id] = hashlib.sha256(text.encode()).hexdigest()[:16]
    return out


def load_record() -> dict[str, dict[str, dict[str, str]]]:
    if not RECORD.exists():
        return {}
    data: dict[str, dict[str, dict[str, str]]] = json.loads(RECORD.read_text())
    return data


def record() -> dict[str, dict[str, dict[str, str]]]:
    """Record the current version of every built-in ruleset (older versions are kept; the
    current version's fingerprints are replaced)."""
    data = load_record()
    for ruleset_id in RULESETS:
        version = registry.get(ruleset_id).version
        data.setdefault(ruleset_id, {})[version] = fingerprints(ruleset_id)
    RECORD.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tests.reliability.rulings", description=__doc__)
    parser.add_argument("--record", action="store_true", help="write ruling_digests.json")
    args = parser.parse_args(argv)
    if args.record:
        data = record()
        for ruleset_id, versions in sorted(data.items()):
            for version, cases in sorted(versions.items()):
                print(f"{ruleset_id} {version}: {len(cases)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
