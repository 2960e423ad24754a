"""The example ruleset ``pin`` (app/rules/examples/pin, docs/ADDING_A_RULESET.md): it plays,
its rulings are cited, it is not served, and it stays within the published concept count."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from app.rules import InvalidScenario, registry
from app.rules.examples.pin import RULESET
from app.rules.examples.pin.models import Board, State
from app.rules.judgement import GameJudgement

ROOT = Path(__file__).resolve().parents[2] / "app" / "rules" / "examples" / "pin"

CONCEPTS = {
    "Ruleset": "the ruleset class and its declarations",
    "Kind": "an action kind: model, judge, apply",
    "NoOutcome": "the outcome apply takes",
    "Outcome": "the outcome apply takes",
    "Catalog": "the catalog of citable sections",
    "RuleSection": "the catalog of citable sections",
    "Judgement": "the judgement kit: cite, reject, finish",
    "GameJudgement": "the judgement kit: cite, reject, finish",
    "Ruling": "the ruling a judge returns",
    "UnitRefs": "the shared scenario check of unit ids and sides",
}
"""Each core name a ruleset package may import, and the concept it belongs to (names of one
concept are learnt together). docs/ADDING_A_RULESET.md publishes this table."""

MAX_CONCEPTS = 8
"""The published target for a ruleset without dice or sealed orders."""


def _core_names() -> set[str]:
    """The names the example imports from the rules core (outside its own package)."""
    names: set[str] = set()
    for path in ROOT.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            module = node.module or ""
            if module.startswith("app.rules.") and ".examples" not in module:
                names |= {a.name for a in node.names}
    return names


def test_the_example_needs_at_most_eight_concepts() -> None:
    names = _core_names()
    unknown = names - set(CONCEPTS)
    assert not unknown, f"core names not in the published concept table: {sorted(unknown)}"
    concepts = {CONCEPTS[n] for n in names}
    assert len(concepts) <= MAX_CONCEPTS, sorted(concepts)
    body = next(
        n for n in ast.parse((ROOT / "ruleset.py").read_text()).body if isinstance(n, ast.ClassDef)
    ).body
    declared = {n.name for n in body if isinstance(n, ast.FunctionDef)} | {
        t.id
        for n in body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    assert declared <= {
        *("id", "version", "title", "catalog", "kinds", "example", "builder"),
        "scenario_model",
    }, declared
    # the board, state and options models are the type parameters, said once
    assert (RULESET.board_model, RULESET.state_model) == (Board, State)


def test_the_example_is_not_served() -> None:
    assert RULESET.id not in {r.id for r in registry.all_rulesets()}
    assert "app.rules.examples" not in registry.builtin_packages()


def _game() -> tuple[Board, State]:
    scenario = RULESET.parse_scenario(RULESET.example_scenario())
    return RULESET.setup(scenario, RULESET.parse_options({}))


def test_a_free_unit_moves_citing_both_rules() -> None:
    board, state = _game()
    action = RULESET.parse_action({"kind": "move", "unit": "r1", "to": [2, 2]})
    ruling = RULESET.adjudicate(board, state, action, RULESET.parse_options({}))
    assert ruling.legal, ruling.summary
    assert [c.section for c in ruling.citations] == ["P.2", "P.1"]
    assert RULESET.actor_side(board, state, action) == "red"
    after = RULESET.apply(board, state, action, ruling)
    assert next(u.at for u in after.units if u.id == "r1") == (2, 2)
    assert isinstance(RULESET.context(board, state, RULESET.parse_options({}), ()), GameJudgement)


def test_a_pinned_unit_may_not_move_and_every_rule_is_named() -> None:
    board, state = _game()
    action = RULESET.parse_action({"kind": "move", "unit": "r2", "to": [4, 2]})
    ruling = RULESET.adjudicate(board, state, action, RULESET.parse_options({}))
    assert not ruling.legal
    assert [(v.code, [c.section for c in v.citations]) for v in ruling.violations] == [
        ("pin.occupied", ["P.1"]),
        ("pin.pinned", ["P.2"]),
    ]


@pytest.mark.parametrize(
    ("units", "expected"),
    [
        (
            [{"id": "a", "side": "red", "at": [0, 0]}, {"id": "a", "side": "green", "at": [9, 0]}],
            [
                ("pin.scenario.invalid_id", "/units/1/id", "duplicate unit a"),
                ("pin.scenario.invalid_side", "/units/1/side", "unknown side green"),
                ("pin.scenario.invalid_at", "/units/1/at", "a is off the board"),
            ],
        ),
    ],
)
def test_scenario_refusals_are_cited(
    units: list[dict[str, object]], expected: list[tuple[str, str, str]]
) -> None:
    doc = {**RULESET.example_scenario(), "units": units}  # type: ignore[dict-item]
    with pytest.raises(InvalidScenario) as caught:
        RULESET.setup(RULESET.parse_scenario(doc), RULESET.parse_options({}))
    got = [(e["code"], e["location"], e["message"]) for e in caught.value.errors]
    assert got == expected
    assert all(e["citations"][0]["section"] == "P.Scenario" for e in caught.value.errors)
