"""The small shared modules of the rules core, value by value: the registry's one-time loading,
a catalog's implemented clauses, the phase helpers, the scenario's unit references, the map
layout field, a kind's owning unit and the errors' messages (issue 27: the shared kit's
survivors, docs/mutation/core.md)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from app.rules import registry
from app.rules.base import PhaseSpec
from app.rules.catalog import Catalog, RuleSection
from app.rules.dispatch import Kind, NoOutcome
from app.rules.errors import InvalidScenario
from app.rules.geometry.hexgrid import HexLayout
from app.rules.geometry.layout_spec import LayoutSpec
from app.rules.phases import PhaseRule, is_open, open_kinds, out_of_phase
from app.rules.refs import UnitRefs, repeats
from app.rules.ruling import Citation, citation_key

BUILTINS = {"battlefield", "objective-zones", "terrain", "zoc", "zoi"}


def test_the_builtins_are_loaded_once_and_every_one_registered(monkeypatch: Any) -> None:
    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_BUILTINS_LOADED", False)
    registry.load_builtins()
    assert set(registry._REGISTRY) == BUILTINS
    assert registry._BUILTINS_LOADED is True
    assert all(registry._REGISTRY[r].id == r for r in BUILTINS)
    registry.unregister("zoc")
    registry.load_builtins()  # loaded already: nothing is imported or registered again
    assert set(registry._REGISTRY) == BUILTINS - {"zoc"}
    with pytest.raises(registry.UnknownRuleset) as raised:
        registry.get("zoc")
    assert raised.value.args == ("zoc",)


def test_the_builtin_packages_are_the_folders_with_a_ruleset_module() -> None:
    ids = [r.id for r in registry.all_rulesets()]
    assert ids == sorted(ids) and set(ids) >= BUILTINS
    assert registry.builtin_packages() == [
        "app.rules.battlefield",
        "app.rules.objective_zones",
        "app.rules.terrain",
        "app.rules.zoc",
        "app.rules.zoi",
    ]
    assert [registry.package_of(registry.get(r)) for r in sorted(BUILTINS)] == [
        "battlefield",
        "objective_zones",
        "terrain",
        "zoc",
        "zoi",
    ]


def test_a_project_section_brings_the_clauses_it_implements_once_each() -> None:
    catalog = Catalog(
        "bf",
        [
            RuleSection(id="A.1", title="Clause", summary="A clause."),
            RuleSection(id="A.2", title="Other", summary="Another."),
            RuleSection(id="BF.X", title="Project", summary="Ours.", implements=("A.1", "A.2")),
        ],
    )
    assert catalog.with_implemented(["BF.X"]) == ["BF.X", "A.1", "A.2"]
    assert catalog.with_implemented(["A.2", "BF.X", "A.1"]) == ["A.2", "BF.X", "A.1"]
    assert catalog.with_implemented(["A.1"]) == ["A.1"]
    with pytest.raises(ValueError) as raised:
        Catalog("bf", [RuleSection(id="A.1", title="a", summary="a")] * 2)
    assert str(raised.value) == "duplicate catalog section 'A.1'"


def test_a_catalog_made_now_cites_its_sections_with_ruleset_and_title() -> None:
    # made in the test (the built-in catalogs are made at import, before a mutant is active)
    sections = [
        RuleSection(id="8", title="Zones of control", summary="Zones."),
        RuleSection(id="8.1", title="Negation", summary="Negated."),
    ]
    catalog = Catalog("zoc", sections)
    assert catalog.ruleset == "zoc" and list(catalog) == sections and len(catalog) == 2
    cited = Citation(ruleset="zoc", section="8.1", title="Negation")
    assert catalog.cite("8.1") == cited
    assert (
        catalog.cite_keyed("8.1")
        == (citation_key(cited), cited)
        == (
            ("zoc", "8.1", "Negation"),
            cited,
        )
    )


PHASES = (
    PhaseSpec(id="move", title="Move", kinds=("move", "umpire")),
    PhaseSpec(id="free", title="Free"),
    PhaseSpec(id="fire", title="Fire", kinds=("fire", "umpire")),
)


def test_the_kinds_a_phase_allows() -> None:
    assert open_kinds(PHASES, "move") == frozenset({"move", "umpire"})
    assert open_kinds(PHASES, "free") is None  # a phase listing no kinds restricts none
    with pytest.raises(KeyError) as raised:
        open_kinds(PHASES, "rest")
    assert raised.value.args == ("rest",)
    assert is_open(PHASES, "move", "move") and not is_open(PHASES, "move", "fire")
    assert is_open(PHASES, "free", "fire") and is_open(PHASES, "fire", "umpire")


def test_a_refusal_out_of_phase_names_the_unit_and_every_allowed_phase() -> None:
    rule = PhaseRule(code="x.wrong_phase", sections=("4",))
    problem = out_of_phase(rule, PHASES, "fire", "move", unit="u1")
    assert problem is not None
    assert problem.message == "A move belongs to the move or free phase, not fire."
    assert (problem.unit, problem.details) == ("u1", {"phase": "fire", "allowed": ["move", "free"]})
    assert out_of_phase(rule, PHASES, "move", "move", unit="u1") is None


def test_unit_references_tell_a_repeated_id_and_an_unknown_side() -> None:
    refs = UnitRefs(["axis", "allies"])
    assert [refs.duplicate(u) for u in ("a", "b", "a", "a")] == [False, False, True, True]
    assert (refs.unknown_side("axis"), refs.unknown_side("soviet")) == (False, True)
    assert repeats(["axis", "allies", "axis"]) and not repeats(["axis", "allies"])


def test_the_layout_field_builds_the_layout_it_names() -> None:
    spec = LayoutSpec(orientation="pointy", offset="even", col_digits=3, row_digits=1)
    assert spec.layout() == HexLayout("pointy", "even", 3, 1)
    assert LayoutSpec().layout() == HexLayout("flat", "odd", 2, 2)


class _Act(BaseModel):
    kind: str = "act"


class _UnitAct(BaseModel):
    kind: str = "unit_act"
    unit: str


def test_a_kind_without_a_unit_is_owned_by_no_unit_and_needs_no_dice() -> None:
    def judge(ctx: Any, action: Any) -> Any:
        raise AssertionError("not judged")

    def apply(board: Any, state: Any, action: Any, outcome: Any) -> Any:
        raise AssertionError("not applied")

    kind = Kind(_Act, judge, apply, NoOutcome)
    assert kind.owning_unit(_Act()) == ""
    assert kind.owning_unit(_UnitAct(unit="u7")) == "u7"  # type: ignore[arg-type]
    assert kind.dice_needed(None, None, _Act()) == ()
    assert kind.private_to(None, None, _Act()) is None
    seen: list[Any] = []

    def dice(board: Any, state: Any, action: Any) -> list[int]:
        seen.append((board, state, action))
        return [6, 6]

    def private(board: Any, state: Any, action: Any) -> list[str]:
        seen.append((board, state, action))
        return ["axis"]

    act = _Act()
    rolled = Kind(_Act, judge, apply, NoOutcome, dice=dice, private=private)
    assert rolled.dice_needed("b", "s", act) == [6, 6]
    assert rolled.private_to("b", "s", act) == ["axis"]
    assert seen == [("b", "s", act), ("b", "s", act)]


def test_an_invalid_scenario_carries_its_message_and_problems() -> None:
    error = InvalidScenario("2 problems", [{"code": "x", "message": "m"}])
    assert str(error) == "2 problems" and error.args == ("2 problems",)
    assert error.errors == [{"code": "x", "message": "m"}]
    assert error.code == "scenario.invalid"


def test_unregistering_an_unknown_id_is_no_error(monkeypatch: Any) -> None:
    monkeypatch.setattr(registry, "_REGISTRY", {})
    registry.unregister("nothing-here")
    assert registry._REGISTRY == {}
