"""``zoi``: what a seat may do now (``Ruleset.available_actions``).

Each unit is offered a kind only if the ruling on that kind would accept some action of it,
by the same predicates the rulings use (never a copy of their conditions).
The phase allows the kinds its ``PhaseSpec`` lists (``sequence``: move in the movement phase,
melee retreat in the melee phase); a unit is offered an allowed kind when:

* ``move``: a unit may move when :func:`~app.rules.zoi.movement.may_move` -- it
  belongs to the phasing side (``sequence``), has not moved this phase (``movement``) and some
  first step of a move is legal for it (a unit hemmed in by enemies and closed terrain, with
  no change it may make, has no move).
* ``melee_retreat``: a unit may retreat when
  :func:`~app.rules.zoi.retreat.may_melee_retreat` -- it is a combat formation (a leader is
  not, 14.melee-retreat) and some hex next to it is open to a retreat.
* Other phases (charges, fire, morale recovery) have no action of rule 14 here: nothing to
  submit but the end of the phase.
* The umpire acts for every side and alone sets the phase (``sequence``).
"""

from __future__ import annotations

from collections.abc import Callable

from app.rules.base import UMPIRE, AvailableActions
from app.rules.offer import Opening, offer, seat_sides
from app.rules.phases import is_open
from app.rules.zoi.catalog import CATALOG
from app.rules.zoi.models import Unit, ZoiBoard, ZoiOptions, ZoiState
from app.rules.zoi.movement import may_move
from app.rules.zoi.retreat import may_melee_retreat
from app.rules.zoi.sequence import PHASES
from app.rules.zoi.zones import Game


def available_actions(
    board: ZoiBoard, state: ZoiState, options: ZoiOptions, seat: str
) -> AvailableActions:
    game = Game(board, state, options)
    sides = seat_sides((s.id for s in board.sides), seat)
    gone = set(state.eliminated)
    units = [
        (unit.id, _openings(game, unit))
        for unit in state.units
        if unit.side in sides and unit.id not in gone
    ]
    cited = ["sequence", *(OPENS[k][1] for k in OPENS if is_open(PHASES, state.phase, k))]
    notes: tuple[str, ...] = ()
    if not any(openings for _, openings in units) and seat != UMPIRE:
        notes = (f"No unit of {seat} acts in the {state.phase.replace('_', ' ')} phase here.",)
    return offer(
        CATALOG.cite,
        units,
        citations=cited,
        extra_kinds=("set_phase",) if seat == UMPIRE else (),
        notes=notes,
    )


OPENS: dict[str, tuple[Callable[[Game, Unit], bool], str]] = {
    "move": (may_move, "movement"),
    "melee_retreat": (may_melee_retreat, "14.melee-retreat"),
}
"""Each unit kind: the predicate the ruling uses (the phase aside) and the section behind it."""


def _openings(game: Game, unit: Unit) -> list[Opening]:
    return [
        (kind, ("sequence", section))
        for kind, (may, section) in OPENS.items()
        if is_open(PHASES, game.state.phase, kind) and may(game, unit)
    ]
