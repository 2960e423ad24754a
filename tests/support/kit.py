"""Two small catalogs and a reading for the judgement kit's tests (tests/rules/test_judgement.py,
tests/rules/test_judgement_kit.py): sections ``1`` and ``2`` of ruleset ``one``, ``X`` of
``two``, and the reading ``one.reading`` with its option ``which_way``."""

from __future__ import annotations

from app.rules.catalog import Catalog, Interpretation, RuleSection

ONE = Catalog(
    "one",
    [
        RuleSection(id="1", title="Moving", summary="Units move."),
        RuleSection(id="2", title="Stopping", summary="Units stop."),
    ],
)
TWO = Catalog("two", [RuleSection(id="X", title="Extra", summary="More.")])
READING = Interpretation(
    id="one.reading",
    question="Which way?",
    reading="This way.",
    alternative="That way.",
    option="which_way",
    sections=("1",),
)
