"""The toy's rules, in our own words (it has no source text: the rules are invented here)."""

from app.rules.catalog import Catalog, RuleSection

RULESET_ID = "pin"

CATALOG = Catalog(
    RULESET_ID,
    [
        RuleSection(
            id="P.Scenario",
            title="Set-up",
            summary="Every unit has an id of its own, belongs to a listed side and stands on "
            "the board.",
        ),
        RuleSection(
            id="P.1",
            title="Movement",
            summary="A unit moves one square, straight or diagonally, to a free square of "
            "the board.",
        ),
        RuleSection(
            id="P.2",
            title="Pinned",
            summary="A unit on a square next to an enemy unit is pinned and may not move.",
        ),
    ],
)
