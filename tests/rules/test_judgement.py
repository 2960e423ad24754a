"""The judgement kit (app/rules/judgement.py): cite, rely, effect, reject, finish."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from app.rules.catalog import Catalog, Interpretation, RuleSection
from app.rules.judgement import Catalogs, Judgement, Problem
from app.rules.ruling import (
    Citation,
    Effect,
    InterpretationRef,
    Ruling,
    Violation,
    effect_of,
    ruling_of,
)
from tests.support.kit import ONE, READING, TWO
from tests.support.props import examples


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


# -- the kit's bookkeeping: layers judged tentatively (checkpoint / restore), refuse, implements

THREE = Catalog(
    "three",
    [
        RuleSection(id="1", title="Moving", summary="Units move."),
        RuleSection(id="2", title="Stopping", summary="Units stop."),
        RuleSection(id="3", title="Weather", summary="Weather slows units."),
        RuleSection(id="P", title="Project rule", summary="Ours.", implements=("1", "3")),
    ],
)
OTHER = Interpretation(
    id="three.other",
    question="Which weather?",
    reading="The hex's.",
    alternative="The unit's.",
    option=None,
    sections=("3",),
)
THIRD = READING.model_copy(update={"id": "three.reading", "sections": ("1",)})


def _layered() -> Judgement:
    return Judgement(THREE, [OTHER, THIRD], Options())


def test_restore_forgets_the_citations_and_the_readings_of_a_discarded_layer() -> None:
    j = _layered()
    j.cite("2")
    j.rely("three.reading")
    mark = j.checkpoint()
    j.cite("3", "1")
    j.rely("three.other")
    assert j.cited_ids() == ["2", "3", "1"] and j.relied_ids() == ["three.reading", "three.other"]
    j.restore(mark)
    assert j.cited_ids() == ["2"]
    assert j.relied_ids() == ["three.reading"]  # the layer's reading is gone with its citations
    j.reject("three.no", "No.", ["1"])
    ruling = j.finish("")
    assert [c.section for c in ruling.citations] == ["2", "1"]
    assert [r.id for r in ruling.interpretations] == ["three.reading"]


def test_a_mark_is_a_copy_later_layers_cannot_change() -> None:
    j = _layered()
    j.cite("1")
    mark = j.checkpoint()
    j.cite("2")
    j.rely("three.other")
    j.restore(mark)
    j.cite("3")  # after a restore: must not write into the mark
    j.rely("three.reading")
    j.restore(mark)
    assert j.cited_ids() == ["1"] and j.relied_ids() == []
    assert list(mark[0]) and not mark[1]
    assert [key[1] for key in mark[0]] == ["1"]


def test_nested_layers_restore_to_their_own_marks_and_a_kept_layer_stays() -> None:
    j = _layered()
    outer = j.checkpoint()
    j.cite("1")
    j.rely("three.reading")
    inner = j.checkpoint()
    j.cite("3")
    j.rely("three.other")
    j.restore(inner)  # the inner layer discarded, the outer one kept
    assert j.cited_ids() == ["1"] and j.relied_ids() == ["three.reading"]
    legal = j.finish("Moved.")
    assert legal.legal and [r.id for r in legal.interpretations] == ["three.reading"]
    j.restore(outer)
    assert j.cited_ids() == [] and j.relied_ids() == []


def test_restore_keeps_effects_and_rejections_and_the_first_citation_object() -> None:
    """Only citations and readings are tentative: effects and rejections recorded in a
    discarded layer stay (a judge that refuses keeps what refused), and a section cited before
    the mark keeps its place and its object."""
    j = _layered()
    first = j.cite("2")[0]
    mark = j.checkpoint()
    j.effect("stop", "Stops.", ["2", "3"])
    j.reject("three.no", "No.", ["1"])
    j.restore(mark)
    assert j.cited_ids() == ["2"] and j.citations()[0] is first
    assert [e.kind for e in j.effects] == ["stop"]
    assert [v.code for v in j.violations] == ["three.no"]
    assert j.refused


def test_refuse_rejects_every_problem_with_its_place_and_sums_up_by_the_first() -> None:
    j = _layered()
    j.cite("2")
    ruling = j.refuse(
        Problem("three.too_far", "Too far.", ["1"], step=2, hex="0102", unit="u1"),
        Problem("three.storm", "A storm.", ["3"], details={"weather": "storms"}),
    )
    assert ruling.legal is False and ruling.summary == "Too far."
    assert [
        (v.code, v.message, [c.section for c in v.citations], v.step, v.hex, v.unit, v.details)
        for v in ruling.violations
    ] == [
        ("three.too_far", "Too far.", ["1"], 2, "0102", "u1", {}),
        ("three.storm", "A storm.", ["3"], None, None, None, {"weather": "storms"}),
    ]
    assert [c.section for c in ruling.citations] == ["2", "1", "3"]
    assert ruling.effects == () and ruling.interpretations == ()


def test_a_project_section_brings_the_clauses_it_implements_and_restore_drops_them_too() -> None:
    j = _layered()
    mark = j.checkpoint()
    cited = j.cite("P")
    assert [c.section for c in cited] == ["P", "1", "3"]
    assert j.cited_ids() == ["P", "1", "3"]
    j.restore(mark)
    assert j.cited_ids() == []
    j.cite("3", "P")  # a clause named in the same call is not repeated
    assert j.cited_ids() == ["3", "P", "1"]


def test_readings_record_the_option_value_in_force_and_the_first_reference_is_kept() -> None:
    j = Judgement(THREE, [THIRD], Options(which_way="that"))
    j.rely("three.reading")
    j.relied_on(InterpretationRef(id="three.reading", text="else", option="which_way", value="x"))
    (ref,) = j.interpretations()
    assert (ref.id, ref.text, ref.option, ref.value) == (
        "three.reading",
        "This way.",
        "which_way",
        "that",
    )


def test_a_zoc_context_restores_the_readings_and_cites_again_after_a_restore() -> None:
    """zoc's judgement records a group of sections once until the next restore: after one, the
    same group cited again is recorded again (with its parents), and a reading relied on in
    the discarded layer is forgotten."""
    from app.rules import registry
    from app.rules.zoc.context import Context

    rs = registry.get("zoc")
    opts = rs.parse_options({})
    board, state = rs.setup(rs.parse_scenario(rs.example_scenario()), opts)
    ctx = Context(board, state, opts)
    ctx.cite("basic.path")
    mark = ctx.checkpoint()
    ctx.cite("8.2.storms-snow")
    ctx.rely("zoc.weather-by-zone")
    assert ctx.cited_ids() == ["basic.path", "8", "8.2", "8.2.storms-snow"]
    ctx.restore(mark)
    assert ctx.cited_ids() == ["basic.path"]
    assert ctx.relied_ids() == []
    ctx.cite("8.2.storms-snow")
    assert ctx.cited_ids() == ["basic.path", "8", "8.2", "8.2.storms-snow"]


# -- a property: random bookkeeping against a plain model of it

_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("cite"), st.lists(st.sampled_from(["1", "2", "3", "P"]), max_size=3)),
        st.tuples(st.just("rely"), st.sampled_from(["three.other", "three.reading"])),
        st.tuples(st.just("checkpoint"), st.just(None)),
        st.tuples(st.just("restore"), st.integers(0, 5)),
        st.tuples(st.just("effect"), st.sampled_from(["1", "2", "3", "P"])),
        st.tuples(st.just("reject"), st.sampled_from(["1", "2", "3", "P"])),
    ),
    max_size=25,
)


@settings(max_examples=examples(300), deadline=None)
@given(_OPS)
def test_random_bookkeeping_finishes_as_a_plain_model_of_it(ops: list[tuple[str, Any]]) -> None:
    """Whole rulings (verdict, citations in order, readings, effects, rejections) of random
    sequences of cite / rely / checkpoint / restore / effect / reject, against a model that
    keeps lists: a restore goes back to the citations *and* readings of its mark."""
    j = _layered()
    implements = {"P": ["1", "3"]}
    cited: list[str] = []
    relied: list[str] = []
    effects: list[str] = []
    codes: list[str] = []
    marks: list[tuple[Any, list[str], list[str]]] = []

    def model_cite(sections: list[str]) -> None:
        for s in sections:
            for one in [s, *(m for m in implements.get(s, []) if m not in sections)]:
                if one not in cited:
                    cited.append(one)

    for op, arg in ops:
        if op == "cite":
            j.cite(*arg)
            model_cite(arg)
        elif op == "rely":
            j.rely(arg)
            if arg not in relied:
                relied.append(arg)
        elif op == "checkpoint":
            marks.append((j.checkpoint(), list(cited), list(relied)))
        elif op == "restore" and marks:
            mark, cited_then, relied_then = marks[arg % len(marks)]
            j.restore(mark)
            cited, relied = list(cited_then), list(relied_then)
        elif op == "effect":
            j.effect(f"e{arg}", "An effect.", [arg])
            model_cite([arg])
            effects.append(f"e{arg}")
        elif op == "reject":
            j.reject(f"three.no{arg}", "No.", [arg])
            model_cite([arg])
            codes.append(f"three.no{arg}")
    ruling = j.finish("Done.")
    assert ruling.legal is (not codes)
    assert [c.section for c in ruling.citations] == cited
    assert [r.id for r in ruling.interpretations] == relied
    assert [e.kind for e in ruling.effects] == effects
    assert [v.code for v in ruling.violations] == codes
