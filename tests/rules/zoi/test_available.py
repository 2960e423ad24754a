"""``zoi``'s "what can I do now" (``app/rules/zoi/available.py``) on the shipped example, phase
by phase and seat by seat: exact units, kinds, citations and notes (docs/rulesets/zoi.md)."""

from __future__ import annotations

from typing import Any

from app.rules import UMPIRE
from app.rules.base import AvailableActions
from app.rules.zoi import ZoiRuleset

RS = ZoiRuleset()
FRENCH = ("fr-4-2", "fr-art-1", "fr-cuir-1", "fr-ldr")
AUSTRIAN = ("aus-ir49", "aus-gr1", "aus-h3", "aus-ldr")


def _ask(seat: str, **state: Any) -> AvailableActions:
    example = RS.example_scenario()
    assert example is not None
    options = RS.parse_options({})
    board, initial = RS.setup(RS.parse_scenario(example), options)
    return RS.available_actions(board, initial.model_copy(update=state), options, seat)


def _units(answer: AvailableActions) -> dict[str, tuple[tuple[str, ...], list[str]]]:
    return {u.unit: (u.kinds, [c.section for c in u.citations]) for u in answer.units}


def _sections(answer: AvailableActions) -> list[str]:
    return [c.section for c in answer.citations]


def test_movement_phase_the_phasing_side_moves_each_unit_once() -> None:
    answer = _ask("french", moved=["fr-cuir-1"], eliminated=["fr-ldr"])
    move = (("move",), ["sequence", "movement"])
    assert _units(answer) == {"fr-4-2": move, "fr-art-1": move}
    assert answer.kinds == ("move",)
    assert _sections(answer) == ["sequence", "movement"]
    assert answer.notes == ()


def test_movement_phase_the_other_side_has_nothing() -> None:
    answer = _ask("austrian")
    assert answer.units == () and answer.kinds == ()
    assert _sections(answer) == ["sequence", "movement"]
    assert answer.notes == ("No unit of austrian acts in the movement phase here.",)


def test_the_umpire_sees_the_phasing_side_and_sets_the_phase() -> None:
    answer = _ask(UMPIRE)
    assert list(_units(answer)) == list(FRENCH)
    assert answer.kinds == ("move", "set_phase")
    assert answer.notes == ()


def test_melee_phase_every_unit_of_either_side_may_retreat() -> None:
    retreat = (("melee_retreat",), ["sequence", "14.melee-retreat"])
    answer = _ask("austrian", phase="melee")
    assert _units(answer) == {u: retreat for u in AUSTRIAN}
    assert answer.kinds == ("melee_retreat",)
    assert _sections(answer) == ["sequence", "14.melee-retreat"]
    umpire = _ask(UMPIRE, phase="melee")
    assert list(_units(umpire)) == [*FRENCH, *AUSTRIAN]
    assert umpire.kinds == ("melee_retreat", "set_phase")


def test_a_fire_phase_has_no_action_of_rule_14() -> None:
    answer = _ask("french", phase="defensive_fire")
    assert answer.units == () and answer.kinds == ()
    assert _sections(answer) == ["sequence"]
    assert answer.notes == ("No unit of french acts in the defensive fire phase here.",)
    umpire = _ask(UMPIRE, phase="defensive_fire")
    assert umpire.units == () and umpire.kinds == ("set_phase",) and umpire.notes == ()
