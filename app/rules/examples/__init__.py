"""Example ruleset packages: the smallest shape a ruleset takes (docs/ADDING_A_RULESET.md).

Not discovered by the registry (discovery looks only directly under ``app.rules``), so not
served and not in ``GET /rulesets``; the tests register an example where they play it.
"""
