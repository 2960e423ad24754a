"""The judgement kit (app/rules/judgement.py): cite, rely, effect, reject, finish."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from app.rules.catalog import Catalog, Interpretation, RuleSection
from app.rules.judgement import Catalogs, Judgement
from app.rules.ruling import Citation

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


class Options(BaseModel):
    which_way: str = "this"


def test_a_legal_ruling_cites_what_shaped_it_and_names_its_readings() -> None:
    j = Judgement(ONE, [READING], Options(which_way="that"))
    j.cite("1")
    j.rely("one.reading")
    j.effect("stop", "The unit stops.", ["2"], unit="u1", hex="0101")
    ruling = j.finish("Moved.", {"cost": 3})
    assert ruling.legal is True
    assert ruling.summary == "Moved."
    assert [c.section for c in ruling.citations] == ["1", "2"]
    assert ruling.effects[0].citations == (Citation(ruleset="one", section="2", title="Stopping"),)
    assert [(r.id, r.option, r.value) for r in ruling.interpretations] == [
        ("one.reading", "which_way", "that")
    ]
    assert ruling.details == {"cost": 3}


def test_a_refusal_lists_every_rejection_each_cited_with_its_location() -> None:
    j = Judgement(ONE)
    j.reject("one.too_far", "Too far.", ["1"], unit="u1", step=2)
    j.reject("one.must_stop", "Must stop.", ["2"], location="/path/1")
    ruling = j.finish("Moved.")
    assert ruling.legal is False
    assert ruling.summary == "Too far.; Must stop."
    assert [(v.code, [c.section for c in v.citations], v.location) for v in ruling.violations] == [
        ("one.too_far", ["1"], None),
        ("one.must_stop", ["2"], "/path/1"),
    ]
    assert [c.section for c in ruling.citations] == ["1", "2"]


def test_a_rejection_without_a_section_or_with_an_unknown_one_is_a_bug() -> None:
    j = Judgement(ONE)
    with pytest.raises(ValueError):
        j.reject("one.bare", "No rule.", [])
    with pytest.raises(KeyError):
        j.reject("one.dangling", "No such rule.", ["9"])
    with pytest.raises(KeyError):
        j.rely("no.such.reading")


def test_composed_catalogs_keep_each_citations_home_and_parts_fold_in() -> None:
    part = Judgement(TWO)
    part.reject("two.no", "No.", ["X"])
    whole = Judgement(Catalogs(ONE, TWO))
    whole.cite("1")
    whole.take(part.finish("fine"), "two")
    ruling = whole.finish("fine", refused_summary="Refused.")
    assert ruling.summary == "Refused."
    assert [(c.ruleset, c.section) for c in ruling.citations] == [("one", "1"), ("two", "X")]
    assert [v.code for v in ruling.violations] == ["two.no"]
    assert "two" in ruling.details
