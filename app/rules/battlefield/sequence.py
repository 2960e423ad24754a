"""The ``battlefield`` sequence of play: the objective-zone rules' phases (OZ.Sequence), each
allowing the battlefield kinds that play its zone actions on the table -- the one place
that says which phase a battlefield kind belongs to."""

from __future__ import annotations

from dataclasses import replace

from app.rules.base import PhaseSpec, SequenceOfPlay
from app.rules.objective_zones import sequence as zone_sequence
from app.rules.objective_zones.models import Board as ZoneBoard
from app.rules.phases import PhaseRule

ANY_PHASE = zone_sequence.ANY_PHASE

KINDS_OF: dict[str, tuple[str, ...]] = {
    "charge_declaration": ("charge", "hold", "support", *ANY_PHASE),
    "movement": ("move", "hold", "transfer", "withdraw", "unlimber", *ANY_PHASE),
    "initial_fire": ("fire", "garrison_fire", "bombard", *ANY_PHASE),
    "secondary_fire": ("fire", "garrison_fire", "bombard", *ANY_PHASE),
    "objective_combat": ("continue_melee", *ANY_PHASE),
}
"""Phase -> the battlefield kinds it allows (a charge declares an assault, a move enters or
leaves a zone, fire is musketry: each in its zone action's phase; orders to hold or advance in
the charge declaration and movement phases, BF.Posture; support is named with the charges,
OZ.Assault.B.5)."""

PHASES: tuple[PhaseSpec, ...] = tuple(
    replace(p, kinds=KINDS_OF[p.id]) for p in zone_sequence.PHASES
)

PHASE_RULE = PhaseRule(
    "bf.wrong_phase",
    ("OZ.Sequence",),
    message="a {kind} belongs to the {allowed} phase, not {phase}",
    messages={
        "hold": "a hold order belongs to the {allowed} phase, not {phase}",
        "support": "support is named in the charge declaration phase",
    },
)
"""How a battlefield kind out of its phase is refused (its zone actions keep the zone rules'
own refusal)."""


def sequence_of_play(board: ZoneBoard) -> SequenceOfPlay:
    """The zone rules' sequence, with the battlefield kinds each phase allows."""
    return replace(zone_sequence.sequence_of_play(board), phases=PHASES)
