"""Ruling fingerprints of the recorded rule cases, per ruleset and ruleset version.

For every rule case of the built-in rulesets (``tests/rules/<ruleset>/cases/``) that judges
an action or runs a query, the canonical JSON of its outcome (the ruling, the query result, or
the error raised) is hashed. ``ruling_digests.json`` keeps, per ruleset and version, the
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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.rules import registry
from app.rules.base import Ruleset

HERE = Path(__file__).parent
RULES = HERE.parent / "rules"
RECORD = HERE / "ruling_digests.json"

BUILDERS: tuple[str, ...] = ("zoc", "zoi", "objective-zones", "terrain", "battlefield")
"""The built-in rulesets whose rule cases are fingerprinted."""


def _cases(ruleset_id: str) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(key, case data, scenario) of every action or query case; the key is the case's name
    (unique within a ruleset), so moving a case between files keeps its fingerprint."""
    from tests.rules.rule_cases import load_cases, scenario_of

    for case in load_cases(ruleset_id):
        if "action" in case.data or "query" in case.data:
            yield case.name, case.data, scenario_of(case)


def _outcome(rs: Ruleset[Any, Any, Any, Any], data: dict[str, Any], scenario: Any) -> Any:
    options = rs.parse_options(data.get("options") or {})
    board, state = rs.setup(rs.parse_scenario(scenario), options)
    for raw in data.get("before") or []:
        if raw == "advance":
            state = rs.advance_phase(board, state)
            continue
        action = rs.parse_action(raw)
        state = rs.apply(board, state, action, rs.adjudicate(board, state, action, options))
    for _ in range(int(data.get("advance", 0) or 0)):
        state = rs.advance_phase(board, state)
    if "query" in data:
        spec = rs.queries()[data["query"]["name"]]
        params = spec.params.model_validate(data["query"].get("params") or {})
        return spec.run(board, state, options, params)
    action = rs.parse_action(data["action"])
    dice = list(data.get("dice") or [])
    return rs.adjudicate(board, state, action, options, dice).model_dump(mode="json")


def fingerprints(ruleset_id: str) -> dict[str, str]:
    """Case key -> 16 hex digits of the SHA-256 of the case's outcome."""
    rs = registry.get(ruleset_id)
    out: dict[str, str] = {}
    for key, data, scenario in _cases(ruleset_id):
        try:
            outcome = _outcome(rs, data, scenario)
        except Exception as exc:  # a case that raises is recorded by its error
            outcome = {"error": type(exc).__name__}
        text = json.dumps(outcome, sort_keys=True, separators=(",", ":"), default=str)
        out[key] = hashlib.sha256(text.encode()).hexdigest()[:16]
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
    for ruleset_id in BUILDERS:
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
