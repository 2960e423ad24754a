"""``move_refusal`` (the ``reachable`` query's phase check) answers as the kit's
``out_of_phase`` does, in every phase of the sequence and in one it does not know."""

from __future__ import annotations

from app.rules.phases import out_of_phase
from app.rules.zoc.sequence import MOVE_PHASES, PHASE_RULE, PHASES, move_refusal


def test_move_refusal_is_the_kits_refusal_of_a_move() -> None:
    phases = [p.id for p in PHASES]
    assert set(MOVE_PHASES) < set(phases)  # some phases refuse moves
    for phase in [*phases, "no-such-phase"]:
        expected = out_of_phase(PHASE_RULE, PHASES, phase, "move", unit="u1")
        found = move_refusal(phase, "u1")
        assert (found is None) == (expected is None) == (phase in MOVE_PHASES), phase
        if expected is not None:
            assert found is not None
            assert (found.code, found.message, found.sections, found.unit, found.details) == (
                expected.code,
                expected.message,
                expected.sections,
                expected.unit,
                expected.details,
            )
