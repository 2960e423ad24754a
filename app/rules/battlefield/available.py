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

from app.rules.base import UMPIRE, AvailableActions, UnitActions
from app.rules.battlefield.models import Board, State
from app.rules.battlefield.table import SOURCES, zone_unit
from app.rules.objective_zones.available import melee_zones, unit_kinds
from app.rules.ruling import Citation

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

POSTURE_PHASES = ("charge_declaration", "movement")


def _unit_kinds(board: Board, state: State, uid: str) -> list[tuple[str, str]]:
    zunit = zone_unit(state, uid)
    phase = state.zones.phase
    pairs = [ON_TABLE[k] for k, _ in unit_kinds(state.zones, zunit)] if zunit else []
    if zunit is None and phase == "movement":
        pairs.append(("move", "BF.Table"))
    attackers = {a.attacker for a in state.zones.assaults if a.turn == state.zones.turn}
    if (
        phase == "charge_declaration"
        and zunit is not None
        and zunit.zone is None
        and zunit.type == "artillery"
        and zunit.side in attackers
    ):
        pairs.append(("support", "OZ.Assault.B.5"))
    if phase in POSTURE_PHASES:
        pairs.append(("hold", "BF.Posture"))
    return list(dict.fromkeys(pairs))


def available_actions(board: Board, state: State, seat: str) -> AvailableActions:
    sides = {s.id for s in board.zones.sides} if seat == UMPIRE else {seat}
    units: list[UnitActions] = []
    cited = ["OZ.Sequence"]
    for unit in state.table.units:
        zunit = zone_unit(state, unit.id)
        if unit.side not in sides or unit.destroyed or (zunit is not None and zunit.men <= 0):
            continue
        pairs = _unit_kinds(board, state, unit.id)
        if not pairs:
            continue
        sections = ["OZ.Sequence", *dict.fromkeys(s for _, s in pairs)]
        cited += sections
        kinds = tuple(dict.fromkeys(k for k, _ in pairs))
        units.append(UnitActions(unit=unit.id, kinds=kinds, citations=_cite(sections)))
    notes: list[str] = []
    open_kinds = {k for u in units for k in u.kinds}
    if state.zones.phase == "objective_combat":
        cited.append("OZ.Assault.B.1")
        notes.append("Objective Combat: each assault's troop allocation is a sealed order.")
        melees = melee_zones(state.zones, sides)
        if melees:
            cited.append("OZ.PostMelee.D.4")
            open_kinds.add("continue_melee")
            notes.append(f"An engaged melee goes on in: {', '.join(melees)} (continue_melee).")
    return AvailableActions(
        kinds=tuple(sorted(open_kinds)),
        units=tuple(units),
        citations=_cite(list(dict.fromkeys(cited))),
        notes=tuple(notes),
    )


def _cite(sections: list[str]) -> tuple[Citation, ...]:
    return tuple(SOURCES.cite(s) for s in sections)
