"""The judgement kit's wording and documents (app/rules/judgement.py), value by value: counts
with their nouns, JSON pointers, a scenario problem's default code and its JSON, the refused
summary, interpretation references (issue 27: the shared kit's survivors,
docs/mutation/core.md)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from pydantic import BaseModel

from app.rules.catalog import Interpretation
from app.rules.errors import InvalidScenario
from app.rules.judgement import (
    Catalogs,
    Judgement,
    Problem,
    count_of,
    interpretation_ref,
    pointer,
)
from app.rules.ruling import Citation
from tests.support.kit import ONE, READING, TWO

PLAIN = Interpretation(
    id="one.plain", question="Which?", reading="This.", alternative="That.", sections=("1",)
)


class Options(BaseModel):
    which_way: Any = "this"


@pytest.mark.parametrize(
    ("n", "noun", "said"),
    [
        (1, "hex", "1 hex"),
        (0, "hex", "0 hexes"),
        (2, "unit", "2 units"),
        (2, "pass", "2 passes"),
        (3, "box", "3 boxes"),
        (2, "buzz", "2 buzzes"),
        (2, "march", "2 marches"),
        (4, "marsh", "4 marshes"),
        (2, "yard", "2 yards"),
        (2, "bath", "2 baths"),
    ],
)
def test_a_count_takes_its_noun_in_the_right_number(n: int, noun: str, said: str) -> None:
    assert count_of(n, noun) == said


def test_a_pointer_escapes_tilde_then_slash() -> None:
    assert pointer(("units", 1, "side")) == "/units/1/side"
    assert pointer(("a/b", "c~d", "~/")) == "/a~1b/c~0d/~0~1"
    assert pointer(()) == ""


def test_a_scenario_problem_is_coded_by_the_last_named_field() -> None:
    j = Judgement(ONE)
    a = j.invalid(["units", 2, "hex"], "Off the map.", "1")
    b = j.invalid([3], "Not a unit.", "2")
    c = j.invalid(["units", 0], "Twice.", "1", code="one.scenario.duplicate_unit")
    assert (a.code, b.code, c.code) == (
        "one.scenario.invalid_hex",
        "one.scenario.invalid_scenario",
        "one.scenario.duplicate_unit",
    )
    assert (a.location, b.location) == ("/units/2/hex", "/3")


def test_a_scenario_problem_of_a_source_without_a_ruleset_has_an_empty_prefix() -> None:
    class Bare:
        def cite(self, section_id: str) -> Citation:
            return ONE.cite(section_id)

    v = Judgement(Bare()).invalid(["sides"], "No sides.", "1")
    assert v.code == ".scenario.invalid_sides"


def test_problems_are_the_json_the_harnesses_read() -> None:
    j = Judgement(ONE)
    j.problem("one.bad", ["units", 1, "id"], "Twice.", ["1", "2"], unit_id="u1")
    j.reject("one.other", "Not placed.", ["2"], unit="u2")
    first, second = j.problems()
    assert first == {
        "code": "one.bad",
        "message": "Twice.",
        "location": "/units/1/id",
        "citations": [
            {"ruleset": "one", "section": "1", "title": "Moving"},
            {"ruleset": "one", "section": "2", "title": "Stopping"},
        ],
        "details": {"unit_id": "u1"},
        "loc": ["units", 1, "id"],
        "msg": "Twice.",
        "section": "1",
    }
    assert second["loc"] == [] and second["section"] == "2" and second["unit"] == "u2"
    assert "location" not in second


def test_an_invalid_scenario_says_how_many_problems_and_the_first() -> None:
    j = Judgement(ONE)
    j.raise_if_refused("the one scenario is inconsistent")  # nothing found: no raise
    j.invalid(["units", 0, "hex"], "Off the map.", "1")
    j.invalid(["units", 1, "hex"], "Off the map too.", "1")
    with pytest.raises(InvalidScenario) as raised:
        j.raise_if_refused("the one scenario is inconsistent")
    assert str(raised.value) == (
        "the one scenario is inconsistent: 2 problem(s), first: Off the map."
    )
    assert [p["loc"] for p in raised.value.errors] == [["units", 0, "hex"], ["units", 1, "hex"]]
    empty = Judgement(ONE).invalid_scenario("fine")
    assert str(empty) == "fine: 0 problem(s), first: none" and empty.errors == []


def test_a_refusal_sums_up_by_its_first_problem_or_every_message() -> None:
    j = Judgement(ONE)
    ruling = j.refuse(Problem("one.a", "First.", ["1"]), Problem("one.b", "Second.", ["2"]))
    assert ruling.summary == "First." and not ruling.legal
    j2 = Judgement(ONE)
    j2.reject("one.a", "First.", ["1"])
    j2.reject("one.b", "Second.", ["2"])
    assert j2.finish("Moved.").summary == "First.; Second."
    with pytest.raises(ValueError) as raised:
        j2.reject("one.c", "Uncited.", [])
    assert str(raised.value) == "rejection 'one.c' cites no section"


def test_a_problem_keeps_its_details() -> None:
    v = Judgement(ONE).problem("one.bad", ["x"], "Bad.", ["1"], limit=3, seen=[1, 2])
    assert v.details == {"limit": 3, "seen": [1, 2]}


def test_an_unknown_section_of_catalogs_names_itself() -> None:
    with pytest.raises(KeyError) as raised:
        Catalogs(ONE, TWO).cite_keyed("Y")
    assert raised.value.args == ("Y",)


class _ReadOnly(Mapping[str, Interpretation]):
    """A mapping of readings that is not a dict."""

    def __init__(self, *readings: Interpretation) -> None:
        self._by_id = {r.id: r for r in readings}

    def __getitem__(self, key: str) -> Interpretation:
        return self._by_id[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)


def test_readings_come_as_a_list_a_dict_or_any_mapping() -> None:
    for readings in ([READING], {READING.id: READING}, _ReadOnly(READING)):
        j = Judgement(ONE, readings, Options(which_way="that"))
        j.rely("one.reading")
        assert [(r.id, r.text, r.value) for r in j.interpretations()] == [
            ("one.reading", "This way.", "that")
        ]


def test_a_citable_without_keys_is_cited_with_its_own_citations() -> None:
    class Plain:
        implements: dict[str, tuple[str, ...]] = {}

        def cite(self, section_id: str) -> Citation:
            c = ONE.cite(section_id)
            return Citation(ruleset="plain", section=c.section, title=c.title)

    j = Judgement(Plain())
    assert [c.ruleset for c in j.cite("1", "2", "1")] == ["plain", "plain", "plain"]
    assert [(c.ruleset, c.section) for c in j.citations()] == [("plain", "1"), ("plain", "2")]


def test_a_restore_brings_back_what_was_cited_and_relied_on() -> None:
    j = Judgement(ONE, [READING, PLAIN], Options())
    j.cite("1")
    j.rely("one.plain")
    mark = j.checkpoint()
    j.cite("2")
    j.rely("one.reading")
    j.restore(mark)
    assert (j.cited_ids(), j.relied_ids()) == (["1"], ["one.plain"])


def test_an_interpretation_reference_names_the_option_value_in_force() -> None:
    assert interpretation_ref(READING, Options(which_way="that")).value == "that"
    assert interpretation_ref(READING, None).value is None
    plain = interpretation_ref(PLAIN, Options())
    assert (plain.option, plain.value, plain.text) == (None, None, "This.")
    # an unhashable value (a list) is built each time, equal but not kept
    listed = interpretation_ref(READING, Options(which_way=[1, 2]))
    again = interpretation_ref(READING, Options(which_way=[1, 2]))
    assert listed.value == [1, 2] and listed == again and listed is not again
    # equal values of different types are told apart (True is not 1)
    assert interpretation_ref(READING, Options(which_way=1)).value == 1
    flag = interpretation_ref(READING, Options(which_way=True))
    assert flag.value is True
    # a hashable value is built once
    assert interpretation_ref(READING, Options(which_way="x")) is interpretation_ref(
        READING, Options(which_way="x")
    )


def test_an_option_the_options_lack_is_none() -> None:
    class Other(BaseModel):
        something_else: int = 1

    assert interpretation_ref(READING, Other()).value is None


def test_catalogs_cited_as_one_are_of_the_first_catalogs_ruleset() -> None:
    both = Catalogs(ONE, TWO)
    assert both.ruleset == "one" and Catalogs(TWO, ONE).ruleset == "two"
    assert "X" in both and "1" in both and "Y" not in both
    assert [c.ruleset for c in (both.cite("1"), both.cite("X"))] == ["one", "two"]
