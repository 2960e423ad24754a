"""The ``zoc`` sequence of play: the phases of one player turn, who acts in each and the
action kinds each allows (the one place that says which phase a kind belongs to)."""

from __future__ import annotations

from app.rules.base import PhaseSpec, SequenceOfPlay
from app.rules.judgement import Problem
from app.rules.memo import ByIdentity
from app.rules.phases import PhaseRule, allows, out_of_phase
from app.rules.zoc.catalog import CATALOG
from app.rules.zoc.models import Board

UMPIRE_KINDS = ("set_phase", "place_unit", "place_marker", "remove_marker")
"""The umpire's commands (basic.umpire)."""

ANY_PHASE = ("trace_supply", *UMPIRE_KINDS)
"""Supply is traced in any phase (8.2.supply); the umpire's commands (basic.umpire) too."""

MOVING = ("move", *ANY_PHASE)

PHASES: tuple[PhaseSpec, ...] = (
    PhaseSpec("operational_movement", "Operational Movement Phase", kinds=MOVING),
    PhaseSpec("combat", "Combat Phase", acts="both", kinds=("retreat", *ANY_PHASE)),
    PhaseSpec("exploitation", "Exploitation Phase", kinds=MOVING),
    PhaseSpec("reserve_movement", "Reserve Movement Phase", kinds=MOVING),
)
"""Project default sequence of one player turn (the source gives none): units move in the
three movement phases (basic.phase); in Combat both sides act: retreats belong to the
retreating unit's side.

A ``retreat`` belongs to the Combat phase: it is offered there only, and in a match the step
refuses one in another phase as out of sequence (409, ``PHASE_RULE.sequence_only``) -- a
phasing side cannot retreat its units during movement. Its judge does not rule on the
phase: the source's retreat rules (8.2.retreat, basic.retreat) say nothing of it, and 27
rule cases (every ``retreat-*`` and ``mut-retreat-*`` case marked ``out_of_sequence``) judge
retreats in the Operational Movement phase of their scenario."""

PHASE_RULE = PhaseRule(
    "zoc.wrong_phase",
    ("basic.phase",),
    message="No {kind} in the {phase} phase.",
    messages={"move": "No unit moves in the {phase} phase."},
    details=("phase",),
    unit=True,
    sequence_only=("retreat",),
)
"""How a kind out of its phase is refused (basic.phase)."""


MOVE_PHASES = frozenset(p.id for p in PHASES if allows(p, "move"))
"""The phases in which units move: those where :func:`out_of_phase` refuses no move."""


def move_refusal(phase: str, unit: str) -> Problem | None:
    """Why no unit moves in ``phase`` (None: it is a movement phase): the refusal the kit
    gives a move there, as the ``reachable`` query reports it."""
    if phase in MOVE_PHASES:  # asked at every ``reachable``: the phases looked up once
        return None
    return out_of_phase(PHASE_RULE, PHASES, phase, "move", unit=unit)


def _sequence_of(board: Board) -> SequenceOfPlay:
    return SequenceOfPlay(PHASES, CATALOG.cite("basic.phase"), tuple(s.id for s in board.sides))


sequence_of_play: ByIdentity[SequenceOfPlay] = ByIdentity(_sequence_of)
"""Board -> its sequence of play (project default; the source text gives no sequence): made
once per board -- it depends on the board's sides alone, and a write asks for it twice (a
frozen value; boards are never changed once made)."""
