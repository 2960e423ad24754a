"""Issue 9 item 6: a ruling never changes without a ruleset version bump.

Each built-in ruleset's recorded rule cases are re-judged and compared, case by case, with the
fingerprints recorded for the ruleset's current version (``ruling_digests.json``; see
``tests/reliability/rulings.py`` and ``make record-rulings``).
"""

from __future__ import annotations

import pytest

from app.rules import registry
from tests.reliability.rulings import RULESETS, fingerprints, load_record


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_rulings_change_only_with_the_version(ruleset_id: str) -> None:
    version = registry.get(ruleset_id).version
    recorded = load_record().get(ruleset_id, {}).get(version)
    assert recorded is not None, (
        f"{ruleset_id} {version} has no recorded rulings: after a deliberate change, bump the "
        "version, add a CHANGELOG entry and run `make record-rulings`"
    )
    current = fingerprints(ruleset_id)
    still_there = [key for key in recorded if key in current]
    assert len(still_there) * 2 >= len(recorded), (
        f"only {len(still_there)} of {len(recorded)} recorded cases of {ruleset_id} were "
        "found: were the case files moved? Re-record with `make record-rulings`"
    )
    changed = sorted(key for key in still_there if current[key] != recorded[key])
    assert not changed, (
        f"{len(changed)} rulings of {ruleset_id} changed while its version stayed {version}: "
        f"bump the ruleset version (CHANGELOG.md) and run `make record-rulings`. First: "
        f"{changed[:5]}"
    )
