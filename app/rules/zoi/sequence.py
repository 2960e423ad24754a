"""The ``zoi`` sequence of play: the phases of a player turn, who acts in each and the
action kinds each allows (the one place that says which phase a kind belongs to)."""

from __future__ import annotations

from app.rules.base import PhaseSpec
from app.rules.phases import PhaseRule

UMPIRE_KINDS = ("set_phase",)
"""The umpire sets the phase in any phase."""

PHASES: tuple[PhaseSpec, ...] = (
    PhaseSpec("charges", "Charges", kinds=UMPIRE_KINDS),
    PhaseSpec("movement", "Movement", kinds=("move", *UMPIRE_KINDS)),
    PhaseSpec("defensive_fire", "Defensive fire", acts="non_phasing", kinds=UMPIRE_KINDS),
    PhaseSpec("offensive_fire", "Offensive fire", kinds=UMPIRE_KINDS),
    # the side driven out retreats (rule 14)
    PhaseSpec("melee", "Melee", acts="both", kinds=("melee_retreat", *UMPIRE_KINDS)),
    PhaseSpec("morale_recovery", "Morale recovery", kinds=UMPIRE_KINDS),
)

PHASE_RULE = PhaseRule(
    "zoi.wrong_phase",
    ("sequence",),
    messages={
        "move": "Units move in the {allowed} phase; the game is in {phase}.",
        "melee_retreat": "Melee retreats happen in the {allowed} phase; the game is in {phase}.",
    },
    details=(),
    unit=True,
)
"""How a kind out of its phase is refused (the sequence of play)."""
