"""``objective-zones``: what a seat may do now (``Ruleset.available_actions``).

The phase decides the action kinds (OZ.Sequence; the kinds its ``PhaseSpec`` lists), the unit's
place decides which of them fit it -- the first gates each action's judge applies:

* Charge Declaration: the phasing side's units that are not committed (engaged) in a zone
  may be named in a ``declare_assault`` (OZ.Assault.A).
* Movement: a unit on the table may ``enter`` a zone (OZ.Display); a unit in a zone may
  ``exit`` (OZ.Trafficability) or ``transfer`` between sectors (OZ.Basic.C) unless engaged;
  an engaged unit may ``withdraw`` (OZ.PostMelee.D.4).
* Initial and Secondary Fire: any unit with castings may fire ``musketry`` (OZ.Basic.A); a
  garrison battery fires ``garrison_fire`` in the Initial Fire phase only (OZ.Basic.E); a
  battery outside the zones may ``bombard`` a zone (OZ.Basic.G).
* Objective Combat: the open troop allocations are sealed decisions (OZ.Assault.B.1),
  listed by the service; an engaged melee going on in a zone may be fought again,
  ``continue_melee`` (OZ.PostMelee.D.4: a kind of the zone, not of a unit, named in a note).
* In the Movement phase an In-Transit battery of a zone under assault may ``unlimber``
  into the garrison (OZ.Basic.F); in any phase a unit owing a morale test (after a melee
  result or artillery losses) takes it, ``morale_test`` (OZ.Morale).

Units with no castings left act no more. The umpire sees every side's units.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from app.rules.base import AvailableActions
from app.rules.objective_zones.catalog import CATALOG
from app.rules.objective_zones.models import Board, Options, State, Unit
from app.rules.objective_zones.sequence import PHASES
from app.rules.offer import Opening, offer, seat_sides
from app.rules.phases import is_open
from app.rules.ruling import Citation


def unit_kinds(state: State, unit: Unit) -> list[tuple[str, str]]:
    """(kind, section) pairs open to ``unit`` in the current phase: the kinds its place fits,
    kept when the phase allows them (the sequence's ``PhaseSpec.kinds``)."""
    fits: list[tuple[str, str]] = []
    if unit.side == state.phasing_side and not (unit.zone is not None and unit.engaged):
        fits.append(("declare_assault", "OZ.Assault.A"))
    if unit.zone is None:
        fits.append(("enter", "OZ.Display"))
    elif unit.engaged:
        fits.append(("withdraw", "OZ.PostMelee.D.4"))
    else:
        fits += [("exit", "OZ.Trafficability"), ("transfer", "OZ.Basic.C")]
        assaulted = {a.zone for a in state.assaults}
        if unit.type == "artillery" and unit.at == "transit" and unit.zone in assaulted:
            fits.append(("unlimber", "OZ.Basic.F"))
    fits.append(("musketry", "OZ.Basic.A"))
    if unit.type == "artillery" and unit.at == "garrison" and unit.zone is not None:
        if state.phase == "initial_fire":  # a garrison battery's own rule (OZ.Basic.E)
            fits.append(("garrison_fire", "OZ.Basic.E"))
    elif unit.type == "artillery" and unit.zone is None:
        fits.append(("bombard", "OZ.Basic.G"))
    if unit.id in state.morale_due:
        fits.append(("morale_test", "OZ.Morale"))
    return [(kind, section) for kind, section in fits if is_open(PHASES, state.phase, kind)]


def melee_zones(state: State, sides: set[str]) -> list[str]:
    """Zones where an engaged melee going on may be fought again now (OZ.PostMelee.D.4):
    in the Objective Combat phase, by a side with units engaged there."""
    if not is_open(PHASES, state.phase, "continue_melee"):
        return []
    return [
        zone
        for zone in state.melees
        if any(u.zone == zone and u.engaged and u.side in sides for u in state.units)
    ]


def available_actions(board: Board, state: State, options: Options, seat: str) -> AvailableActions:
    sides = seat_sides((s.id for s in board.sides), seat)
    units = (
        (unit.id, [(kind, (section,)) for kind, section in unit_kinds(state, unit)])
        for unit in state.units
        if unit.side in sides and unit.men > 0
    )
    return zone_offer(CATALOG.cite, state, sides, units)


def zone_offer(
    cite: Callable[[str], Citation],
    state: State,
    sides: set[str],
    units: Iterable[tuple[str, Sequence[Opening]]],
) -> AvailableActions:
    """The answer for ``units`` (each with its openings) of ``sides``, with the zone rules'
    sealed allocations and engaged melees (``battlefield`` answers through it too)."""
    combat = state.phase == "objective_combat"  # the sealed allocations (OZ.Assault.B.1)
    melees = melee_zones(state, sides)
    notes = (
        ["Objective Combat: each assault's troop allocation is a sealed order."] if combat else []
    )
    if melees:
        notes.append(f"An engaged melee goes on in: {', '.join(melees)} (continue_melee).")
    return offer(
        cite,
        units,
        unit_lead=("OZ.Sequence",),
        lead=("OZ.Sequence",),
        more=(("OZ.Assault.B.1",) if combat else ()) + (("OZ.PostMelee.D.4",) if melees else ()),
        extra_kinds=("continue_melee",) if melees else (),
        notes=notes,
    )
