"""``pin``: the toy ruleset of docs/ADDING_A_RULESET.md (a unit next to an enemy may not
move). An example package, kept tested (``tests/rules/test_example_ruleset.py``); never
registered by the service."""

from app.rules.examples.pin.ruleset import PinRuleset

RULESET = PinRuleset()
