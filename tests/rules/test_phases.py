"""Which phase allows which action kind: one declaration (``PhaseSpec.kinds``), read by the
kit's refusal before the judge, the step and the offer of what a seat may do
(``app.rules.phases``)."""

from __future__ import annotations

import ast
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from app.rules import registry
from app.rules.base import UMPIRE, PhaseSpec, Ruleset
from app.rules.phases import PhaseRule, allowed_phases, is_open, open_kinds, out_of_phase
from app.rules.play import step


def _example(ruleset: Ruleset[Any, Any, Any, Any]) -> tuple[Any, Any, Any]:
    options = ruleset.parse_options({})
    scenario = ruleset.example_scenario()
    assert scenario is not None
    board, state = ruleset.setup(ruleset.parse_scenario(scenario), options)
    return board, state, options


def _sequenced() -> list[str]:
    found = []
    for ruleset in registry.all_rulesets():
        if ruleset.example is None:
            continue
        board, _, _ = _example(ruleset)
        if ruleset.sequence_of_play(board) is not None:
            found.append(ruleset.id)
    return sorted(found)


RULESETS = _sequenced()


def test_the_four_sequenced_rulesets_are_covered() -> None:
    assert RULESETS == ["battlefield", "objective-zones", "zoc", "zoi"]


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_phase_lists_real_kinds_and_every_kind_has_a_phase(ruleset_id: str) -> None:
    ruleset = registry.get(ruleset_id)
    board, _, _ = _example(ruleset)
    sequence = ruleset.sequence_of_play(board)
    assert sequence is not None
    kinds = set(ruleset.action_models)
    for phase in sequence.phases:
        assert phase.kinds, f"{phase.id} lists no kinds"
        assert set(phase.kinds) <= kinds, sorted(set(phase.kinds) - kinds)
    for kind in kinds:
        assert allowed_phases(sequence.phases, kind), f"no phase allows {kind}"
    assert isinstance(ruleset.phase_rule, PhaseRule)


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_the_offer_never_names_a_kind_its_phase_does_not_allow(ruleset_id: str) -> None:
    ruleset = registry.get(ruleset_id)
    board, state, options = _example(ruleset)
    sequence = ruleset.sequence_of_play(board)
    assert sequence is not None
    seen: set[str] = set()
    for _ in range(2 * len(sequence.phases)):  # every phase of two player turns
        position = ruleset.position(board, state)
        assert position is not None
        phase = position.phase
        allowed = open_kinds(sequence.phases, phase)
        assert allowed is not None
        for seat in (UMPIRE, *ruleset.sides(board).names):
            answer = ruleset.available_actions(board, state, options, seat)
            assert set(answer.kinds) <= allowed, (phase, seat, answer.kinds)
            seen.update(answer.kinds)
        state = ruleset.advance_phase(board, state)
    assert seen  # the example offers something somewhere


PACKAGES = [name.rpartition(".")[2] for name in registry.builtin_packages()]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_judge_words_a_phase_refusal_of_its_own(package: str) -> None:
    """The wrong-phase code appears only in the package's sequence declaration: the kit
    words every phase refusal with the generic ``out_of_phase``."""
    root = Path(str(resources.files(f"app.rules.{package}")))
    for path in sorted(root.glob("*.py")):
        if path.name == "sequence.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not node.value.endswith("wrong_phase"), f"{path.name}: {node.value}"


def test_out_of_phase_words_the_refusal_from_the_declaration() -> None:
    phases = (
        PhaseSpec("a", "A", kinds=("walk", "note")),
        PhaseSpec("b", "B", kinds=("shoot", "note")),
        PhaseSpec("c", "C", kinds=("shoot", "note")),
    )
    rule = PhaseRule("x.wrong_phase", ("seq",), messages={"walk": "Walking is for {allowed}."})
    assert allowed_phases(phases, "shoot") == ("b", "c")
    assert is_open(phases, "a", "note") and not is_open(phases, "a", "shoot")
    assert out_of_phase(rule, phases, "b", "shoot") is None
    shot = out_of_phase(rule, phases, "a", "shoot", unit="u1")
    assert shot is not None
    assert (shot.code, shot.message, list(shot.sections), shot.unit) == (
        "x.wrong_phase",
        "A shoot belongs to the b or c phase, not a.",
        ["seq"],
        "u1",
    )
    assert shot.details == {"phase": "a", "allowed": ["b", "c"]}
    walked = out_of_phase(
        PhaseRule("x.p", ("seq",), "{kind}", {"walk": "Walking is for {allowed}."}, ("phase",)),
        phases,
        "c",
        "walk",
    )
    assert (
        walked is not None
        and walked.message == "Walking is for a."
        and walked.details == {"phase": "c"}
    )
    open_all = (PhaseSpec("free", "Free"),)
    assert is_open(open_all, "free", "anything") and open_kinds(open_all, "free") is None


def test_a_ruleset_with_a_phase_rule_rules_on_the_phase_instead_of_refusing() -> None:
    """zoi declares its phase refusal: a melee retreat in the movement phase, by the phasing
    side, is judged (a cited ruling), not refused as out of sequence before the judge."""
    zoi = registry.get("zoi")
    board, state, options = _example(zoi)
    assert state.phase == "movement" and state.phasing == "french"
    action = {"kind": "melee_retreat", "unit": "fr-4-2", "result": "R", "path": ["0607"]}
    done = step(zoi, board, state, options, "french", action, [])
    assert done.refusal is None and done.ruling is not None and not done.ruling.legal
    (v,) = done.ruling.violations
    assert v.code == "zoi.wrong_phase" and v.unit == "fr-4-2"
    assert v.message == "Melee retreats happen in the melee phase; the game is in movement."
    assert [c.section for c in v.citations] == ["sequence"]
    # an unknown unit is still reported first: the kit checks the kind's names before its phase
    ghost = step(zoi, board, state, options, "french", {**action, "unit": "ghost"}, [])
    assert ghost.refusal is None and ghost.ruling is not None
    assert [v.code for v in ghost.ruling.violations] == ["zoi.unknown_unit"]
