"""The judgement kit (app/rules/judgement.py): cite, rely, effect, reject, finish."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from app.rules.catalog import Catalog, Interpretation, RuleSection
from app.rules.judgement import Catalogs, Judgement
from app.rules.ruling import (
    Citation,
    Effect,
    InterpretationRef,
    Ruling,
    Violation,
    effect_of,
    ruling_of,
)

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


def _same(built: BaseModel, validated: BaseModel) -> None:
    assert built == validated
    assert built.model_dump_json() == validated.model_dump_json()
    assert list(built.__dict__) == list(type(built).model_fields)  # the dump's field order
    assert built.model_fields_set == validated.model_fields_set
    assert built.__pydantic_extra__ == validated.__pydantic_extra__
    assert built.__pydantic_private__ == validated.__pydantic_private__


def test_effects_and_rulings_built_unvalidated_are_what_validation_builds() -> None:
    cite = Citation(ruleset="one", section="1", title="Moving")
    args = ("stop", "Stops.", "u1", "0101", 2, ("u2",), (cite,), {"cost": 3})
    fields = ("kind", "message", "unit", "hex", "step", "by", "citations", "details")
    effect = effect_of(*args)
    _same(effect, Effect(**dict(zip(fields, args, strict=True))))
    ref = InterpretationRef(id="r", text="This way.", option="o", value=[1])
    violation = Violation(code="c", message="No.", citations=(cite,))
    rargs = (False, "No.", (violation,), (effect,), (cite,), (ref,), {"n": 1})
    rfields = ("legal", "summary", "violations", "effects", "citations", "interpretations")
    ruling = ruling_of(*rargs)
    _same(ruling, Ruling(**dict(zip((*rfields, "details"), rargs, strict=True))))


class _Id(str):
    """A str subclass: validation turns it into a plain str."""


def test_values_not_exactly_of_their_types_are_validated_as_before() -> None:
    cite = Citation(ruleset="one", section="1", title="Moving")
    odd = effect_of("k", "m", _Id("u1"), None, None, (_Id("u2"),), (cite,), {_Id("x"): 1})
    assert type(odd.unit) is str and type(odd.by[0]) is str
    assert [type(k) for k in odd.details] == [str]
    assert effect_of("k", "m", None, None, 1.0, (), (), {}).step == 1  # type: ignore[arg-type]
    as_dict = effect_of("k", "m", None, None, None, (), (cite.model_dump(),), {})  # type: ignore[arg-type]
    assert as_dict.citations == (cite,) and type(as_dict.citations[0]) is Citation
    with pytest.raises(ValidationError):
        effect_of("k", "m", None, None, None, (1,), (), {})  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        ruling_of(True, "ok", (), (), (), (), {1: "x"})  # type: ignore[dict-item]


class _Plain:
    """A source with only ``cite`` (the :class:`Citable` protocol)."""

    def cite(self, section_id: str) -> Citation:
        return ONE.cite(section_id)


def test_equal_citations_are_one_entry_whatever_their_source() -> None:
    for source in (ONE, Catalogs(ONE, TWO), _Plain()):
        j = Judgement(source)
        first = j.cite("2", "1")
        j.cite_all([Citation.model_validate(first[0].model_dump())])  # equal, not the same
        j.cite("1", "2")
        assert j.citations() == first and j.citations()[0] is first[0]
        assert j.cited_ids() == ["2", "1"]
        mark = j.checkpoint()
        j.cite_all([Citation(ruleset="two", section="X", title="Extra")])
        j.restore(mark)
        assert j.cited_ids() == ["2", "1"]
