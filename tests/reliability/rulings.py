"""Ruling fingerprints of the recorded rule cases, per ruleset and ruleset version.

For every rule case (``tests/rules/<package>/cases/``, read by ``tests/rules/rule_cases.py``)
that judges something, the canonical JSON of its outcome (the ruling and, for a legal action, the
state ``apply`` makes of it; the query result; a sealed decision's outcome; a scenario's
refusal; or the error raised) is hashed. ``ruling_digests.json`` keeps, per ruleset and
version, the fingerprint of each case. ``test_ruleset_versions.py`` fails when a recorded
case's outcome changes while the ruleset's version stays the same: a ruling changed without a
version bump.

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

from pydantic import ValidationError

from app.rules import InvalidScenario, registry
from tests.rules.rule_cases import PACKAGES, Case, _setup, load_cases, scenario_of

HERE = Path(__file__).parent
RECORD = HERE / "ruling_digests.json"
RULESETS = sorted(PACKAGES)
"""Every ruleset with rule cases (``tests/rules/rule_cases.py``)."""


def _refusal(case: Case) -> Any:
    """The errors of a scenario the case expects to be refused (or what setup made of it)."""
    rs = registry.get(case.ruleset)
    options = rs.parse_options(case.data.get("options") or {})
    try:
        return {"accepted": rs.setup(rs.parse_scenario(scenario_of(case)), options)}
    except InvalidScenario as exc:
        return {"invalid": exc.errors}


def _sealed(case: Case, rs: Any, options: Any, board: Any, state: Any) -> Any:
    """A sealed decision's outcome: each order's refusal on submission, the dice asked for,
    the reveal's ruling and the state it makes."""
    sealed = case.data["sealed"]
    decision = rs.sealed_decisions(board, state)[sealed["decision"]]
    parsed, refusals = {}, {}
    for side, doc in sealed["orders"].items():
        parsed[side] = decision.order_model.model_validate(doc)
        context = {"board": board, "state": state, "side": side, "options": options}
        try:
            decision.order_model.model_validate(doc, context=context)
        except ValidationError as exc:
            refusals[side] = exc.errors(include_url=False)
    need = list(rs.sealed_dice_needed(board, state, decision.id, parsed))
    dice = sealed["dice"] if "dice" in sealed else [sealed.get("fill", 1)] * len(need)
    ruling = rs.resolve_sealed(board, state, decision.id, parsed, options, dice)
    out = {"refusals": refusals, "dice_needed": need, "ruling": ruling.model_dump(mode="json")}
    if ruling.legal:
        new = rs.apply_sealed(board, state, decision.id, parsed, ruling)
        out["after"] = new.model_dump(mode="json")
    return out


def _outcome(case: Case) -> Any:
    """What the rules core answers to the case: the ruling (and the state after a legal
    action), the query's result, a sealed decision's outcome, or a scenario's refusal."""
    data = case.data
    if "invalid_scenario" in data:
        return _refusal(case)
    rs, options, board, state = _setup(case)
    if "sealed" in data:
        return _sealed(case, rs, options, board, state)
    if "query" in data:
        spec = rs.queries()[data["query"]["name"]]
        params = spec.params.model_validate(data["query"].get("params") or {})
        return spec.run(board, state, options, params)
    action = rs.parse_action(data["action"])
    dice = list(data.get("dice") or [])
    ruling = rs.adjudicate(board, state, action, options, dice)
    outcome = ruling.model_dump(mode="json")
    if ruling.legal:
        after = rs.apply(board, state, action, ruling)
        outcome = {**outcome, "after": after.model_dump(mode="json")}
    return outcome


JUDGED = ("action", "query", "sealed", "invalid_scenario")
"""The kinds of rule case that have an outcome to fingerprint."""


def fingerprint(case: Case) -> str | None:
    """16 hex digits of the SHA-256 of the case's outcome (one that raises is fingerprinted by
    its error); ``None`` for a case that judges nothing."""
    if not any(kind in case.data for kind in JUDGED):
        return None
    try:
        outcome = _outcome(case)
    except Exception as exc:
        outcome = {"error": type(exc).__name__}
    text = json.dumps(outcome, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fingerprints(ruleset_id: str) -> dict[str, str]:
    """Case id -> :func:`fingerprint` of every case of the ruleset that has one."""
    out: dict[str, str] = {}
    for case in load_cases(ruleset_id):
        digest = fingerprint(case)
        if digest is not None:
            out[case.id] = digest
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
