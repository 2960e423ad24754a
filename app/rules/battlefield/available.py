"""``battlefield``: what a seat may do now (``Ruleset.available_actions``).

The zone part's phase decides, as in ``objective-zones`` (OZ.Sequence), with each zone action
played on the table: a unit on the table may ``move`` in the Movement phase (BF.Table; a move
that crosses into a zone enters it, BF.Enter), and a unit in a zone leaves it by a ``move``
from its border (BF.Leave); the phasing side's uncommitted units may ``charge`` in the Charge
Declaration phase (BF.Charge, a charge into a held zone declares its assault); any unit may be
ordered to ``hold`` or advance in either of those phases (BF.Posture). ``transfer``,
``withdraw``, ``fire``, ``garrison_fire`` and ``bombard`` open as the zone rules open them.
A battery on the table of the side that declared this turn's assault on a zone may name
itself as its ``support`` in the Charge Declaration phase (OZ.Assault.B.5); ``unlimber``,
``morale_test`` and ``continue_melee`` open as in the zone rules.
Units destroyed or without castings act no more. The umpire sees every side's units.
"""

from __future__ import annotations

from app.rules.base import AvailableActions
from app.rules.battlefield.models import Board, Options, State
from app.rules.battlefield.sequence import PHASES
from app.rules.battlefield.table import SOURCES, zone_unit
from app.rules.objective_zones.available import unit_kinds, zone_offer
from app.rules.offer import seat_sides
from app.rules.phases import is_open

ON_TABLE: dict[str, tuple[str, str]] = {
    "declare_assault": ("charge", "BF.Charge"),
    "enter": ("move", "BF.Enter"),
    "exit": ("move", "BF.Leave"),
    "transfer": ("transfer", "OZ.Basic.C"),
    "withdraw": ("withdraw", "OZ.PostMelee.D.4"),
    "musketry": ("fire", "OZ.Basic.A"),
    "garrison_fire": ("garrison_fire", "OZ.Basic.E"),
    "bombard": ("bombard", "OZ.Basic.G"),
    "unlimber": ("unlimber", "OZ.Basic.F"),
    "morale_test": ("morale_test", "OZ.Morale"),
}
"""An objective-zone kind -> the battlefield kind that plays it on the table, and its section."""


def _unit_kinds(board: Board, state: State, uid: str) -> list[tuple[str, str]]:
    zunit = zone_unit(state, uid)
    pairs = [ON_TABLE[k] for k, _ in unit_kinds(state.zones, zunit)] if zunit else []
    if zunit is None:
        pairs.append(("move", "BF.Table"))
    attackers = {a.attacker for a in state.zones.assaults if a.turn == state.zones.turn}
    if (
        zunit is not None
        and zunit.zone is None
        and zunit.type == "artillery"
        and zunit.side in attackers
    ):
        pairs.append(("support", "OZ.Assault.B.5"))
    pairs.append(("hold", "BF.Posture"))
    phase = state.zones.phase
    return [pair for pair in dict.fromkeys(pairs) if is_open(PHASES, phase, pair[0])]


def available_actions(board: Board, state: State, options: Options, seat: str) -> AvailableActions:
    sides = seat_sides((s.id for s in board.zones.sides), seat)
    units = (
        (unit.id, [(kind, (section,)) for kind, section in _unit_kinds(board, state, unit.id)])
        for unit in state.table.units
        if unit.side in sides and not unit.destroyed and _has_men(state, unit.id)
    )
    return zone_offer(SOURCES.cite, state.zones, sides, units)


def _has_men(state: State, uid: str) -> bool:
    zunit = zone_unit(state, uid)
    return zunit is None or zunit.men > 0
