"""The rule catalog of the ``zoi`` ruleset: La Bataille rule 14 (Zone d'Influence).

The source numbers the whole rule ``14`` and gives no sub-numbers. The clause ids below
(``14.zone``, ``14.carre`` ...) follow the order in which the text states each point; they are
this project's ids, stable and documented in ``docs/rulesets/zoi.md``. Two further entries,
``movement`` and ``sequence``, name the series rules the referee needs around rule 14 (movement
point costs, phases); their numbers are scenario data, never guesses of the text.

Every summary is written in our own words; the project cites the text and does not quote it.
"""

from __future__ import annotations

from app.rules.catalog import Catalog, Interpretation, RuleSection, RulesText

RULESET_ID = "zoi"
SOURCE = "La Bataille de Prusse 1809, Premier Rules for La Bataille ME (2017), rule 14"

_SECTIONS: tuple[tuple[str, str, str], ...] = (
    (
        "14",
        "Zone d'Influence",
        "Each combat unit projects a zone of influence one hex deep in front of it. The zone "
        "governs how enemies may move near the unit, who may be shot at in the defensive fire "
        "segment, and opportunity and reaction charges.",
    ),
    (
        "14.zone",
        "Zone across the front hexsides",
        "The zone consists of the hexes that touch the unit across its front hexsides. A combat "
        "unit moving into such a hex of an enemy combat unit has entered that enemy's zone.",
    ),
    (
        "14.front",
        "Front follows formation and facing",
        "The zone shows the direction in which the unit defends best: which hexsides are front "
        "depends on the unit type, its formation and the hexside or vertex it faces (the series "
        "facing table, scenario data).",
    ),
    (
        "14.carre",
        "Carré: no zone, but fire on adjacent movers",
        "Infantry formed in carré (square) projects no zone. Even so, an enemy that has moved "
        "next to the square may be fired on when it leaves that hex or changes its organisation, "
        "facing or formation there.",
    ),
    (
        "14.defensive-fire",
        "Units in an enemy zone may be fired on",
        "During the defensive fire segment the opponent may fire at any unit that stands in one "
        "of its zones.",
    ),
    (
        "14.stop.infantry-artillery",
        "Infantry and foot artillery stop",
        "An infantry or foot artillery unit ends its movement as soon as it moves into a hex of "
        "an enemy zone.",
    ),
    (
        "14.unlimber",
        "Artillery may still unlimber",
        "Artillery halted this way may still pay the movement point cost to unlimber, provided "
        "enough movement allowance is left.",
    ),
    (
        "14.exit.infantry-artillery",
        "Infantry and foot artillery leave only at the start",
        "Infantry and foot artillery may move out of an enemy zone only when their movement "
        "phase begins, and doing so draws a defensive fire attack.",
    ),
    (
        "14.stop.cavalry",
        "Cavalry stopped by enemy cavalry",
        "Cavalry and horse artillery end their movement when they move into a zone projected by "
        "enemy cavalry.",
    ),
    (
        "14.cavalry-passes",
        "Cavalry passes infantry and artillery zones",
        "A zone projected only by infantry or artillery does not halt moving cavalry, which may "
        "go on moving.",
    ),
    (
        "14.opportunity.exit",
        "Opportunity fire on leaving a zone hex",
        "Each time a combat unit leaves a hex lying in an enemy zone, of its own will, the "
        "non-moving side may fire at it. Such fire is called opportunity fire.",
    ),
    (
        "14.opportunity.expend",
        "Opportunity fire on spending points in a zone",
        "Whenever a combat unit pays movement points while in a hex of an enemy zone the "
        "non-moving side gets an opportunity fire attack; changes of facing or formation count "
        "when they cost points.",
    ),
    (
        "14.opportunity.formation-then-exit",
        "Change, then leave: two attacks",
        "A unit that first changes formation inside the zone (for instance from line to column) "
        "and then moves out gives the opponent two opportunity fire attacks.",
    ),
    (
        "14.opportunity.resolution",
        "Opportunity fire resolved as defensive fire",
        "An opportunity fire attack is worked out exactly like fire in the defensive fire "
        "segment: same fire values, same column shifts. The referee lists the chances; the fire "
        "itself is resolved elsewhere.",
    ),
    (
        "14.melee-retreat",
        "Losses when driven out by melee",
        "A formation forced out by a melee result loses one increment for each hex under an "
        "enemy zone that it leaves while retreating.",
    ),
    (
        "14.melee-retreat.friendly",
        "No retreat loss where friends stand",
        "Leaving a zone hex that a friendly combat formation occupies costs the retreating "
        "formation nothing.",
    ),
    (
        "14.melee-matrix",
        "Melee result matrix",
        "Melee outcomes come from the series matrix, indexed by unit type, condition and result. "
        "The referee takes the matrix as scenario data (retreat length, increments lost).",
    ),
    (
        "movement",
        "Movement procedure (series rules, scenario data)",
        "Outside rule 14: a move is a list of steps (enter an adjacent hex, face, change "
        "formation, limber, unlimber), each paid from the movement allowance using the "
        "scenario's terrain and change cost tables; enemy-occupied and prohibited hexes may not "
        "be entered; a unit moves once per movement phase. The scenario gives the map (ranges "
        "ascending, every terrain in the cost table) and the units (unique ids, each on a side "
        "and a map hex, never sharing a hex with an enemy).",
    ),
    (
        "sequence",
        "Sequence of play (series rules)",
        "Outside rule 14: moves happen in the phasing side's movement phase and melee retreats in "
        "the melee phase; the umpire advances the phase and the phasing side.",
    ),
)

CATALOG = Catalog(
    RULESET_ID,
    (RuleSection(id=i, title=t, summary=s, source=SOURCE) for i, t, s in _SECTIONS),
)
"""Every section the ``zoi`` ruleset may cite, in the text's order."""


# -- interpretations ---------------------------------------------------------------------

I_ENTRY = "zoi.entry-is-expenditure"
I_ROUTED = "zoi.routed-zone"
I_MIXED = "zoi.mixed-zone-cavalry"
I_EXIT_COST = "zoi.exit-cost-location"
I_EXIT_AFTER_CHANGES = "zoi.exit-after-changes"
I_SHIFT = "zoi.shift-within-zone"
I_HORSE_UNLIMBER = "zoi.horse-artillery-unlimber"
I_CHANGES_AFTER_STOP = "zoi.changes-after-stop"
I_CARRE_DF = "zoi.carre-defensive-fire"
I_CARRE_START = "zoi.carre-start-adjacent"
I_RETREAT_HEXES = "zoi.retreat-loss-hexes"

INTERPRETATIONS: tuple[Interpretation, ...] = (
    Interpretation(
        id=I_ENTRY,
        question="Does paying the cost to move into a zone hex count as spending movement "
        "points in that hex (and so draw opportunity fire on entry)?",
        reading="No. The entry cost buys the move itself; opportunity fire comes when the unit "
        "later leaves the hex or pays for something else while in it.",
        alternative="Yes: each zone hex entered gives one opportunity fire chance there.",
        option="entering_counts_as_expenditure",
        sections=("14.opportunity.expend",),
    ),
    Interpretation(
        id=I_ROUTED,
        question="Do routed units project a zone of influence?",
        reading="Yes. The text gives every combat unit a zone and makes only the carré an "
        "exception; a routed unit uses the routed row of the facing table.",
        alternative="No: a routed unit has no formed front, so it projects no zone (the "
        "series' wider reading, not stated in rule 14).",
        option="routed_units_exert_zone",
        sections=("14", "14.zone"),
    ),
    Interpretation(
        id=I_MIXED,
        question="What halts cavalry in a hex covered at once by enemy cavalry and by enemy "
        "infantry or artillery?",
        reading="Any enemy cavalry contributing to the zone of the hex halts it.",
        alternative="Only a zone projected by cavalry alone halts it; once infantry or "
        "artillery share the hex's zone the cavalry may go on.",
        option="mixed_zone_stops_cavalry",
        sections=("14.stop.cavalry", "14.cavalry-passes"),
    ),
    Interpretation(
        id=I_EXIT_COST,
        question="When a unit leaves a zone hex, the points it pays are paid for the next hex. "
        "Is that also spending points in the hex being left (a second chance)?",
        reading="No. Leaving gives one chance, the exit; the entry cost belongs to the next hex.",
        alternative="Yes: leaving a zone hex gives an exit chance and an expenditure chance.",
        option="exit_cost_counts_in_departed_hex",
        sections=("14.opportunity.exit", "14.opportunity.expend"),
    ),
    Interpretation(
        id=I_EXIT_AFTER_CHANGES,
        question="Is a foot unit that first changes facing or formation in its zone hex still "
        "at the beginning of its movement when it then leaves?",
        reading="Yes. Changes made in place before the first hex entered keep the unit at the "
        "start of its movement (each costed change is still an opportunity fire chance).",
        alternative="No: the exit must be the very first step of the move.",
        option="exit_after_changes_in_place",
        sections=("14.exit.infantry-artillery", "14.opportunity.formation-then-exit"),
    ),
    Interpretation(
        id=I_SHIFT,
        question="Does a foot unit moving from one zone hex to another hex of the same enemy "
        "units' zone enter a zone (and stop), and may it leave afterwards?",
        reading="It stops: every zone hex moved into counts as entering a zone.",
        alternative="'slide': moving within the zone of the same enemy units is no new entry "
        "and the unit may leave later in the same move; 'slide_no_exit': it may shift within "
        "the zone but may not leave after shifting.",
        option="shift_within_zone",
        sections=("14.stop.infantry-artillery", "14.exit.infantry-artillery"),
    ),
    Interpretation(
        id=I_HORSE_UNLIMBER,
        question="May horse artillery halted by an enemy cavalry zone still unlimber?",
        reading="Yes. The unlimber allowance speaks of artillery in general.",
        alternative="No: only foot artillery keeps that allowance.",
        option="horse_artillery_unlimber_when_stopped",
        sections=("14.unlimber", "14.stop.cavalry"),
    ),
    Interpretation(
        id=I_CHANGES_AFTER_STOP,
        question="May a unit halted on entering a zone still change facing or formation?",
        reading="No. Halting ends its movement; unlimbering artillery is the only exception the "
        "text makes.",
        alternative="Yes, if it has the points; each costed change draws opportunity fire.",
        option="changes_after_stop",
        sections=("14.stop.infantry-artillery", "14.stop.cavalry", "14.unlimber"),
    ),
    Interpretation(
        id=I_CARRE_DF,
        question="Is a unit next to an enemy carré a target in the defensive fire segment even "
        "though the carré projects no zone?",
        reading="Yes. The carré clause says units next to the square are subject to defensive "
        "fire although it has no zone, so the segment lists them with the carré as firer.",
        alternative="No: the segment targets only units in enemy zones, and the carré fires only "
        "when a neighbour leaves or changes next to it.",
        option="carre_adjacent_in_defensive_fire",
        sections=("14.carre", "14.defensive-fire"),
    ),
    Interpretation(
        id=I_CARRE_START,
        question="The carré clause speaks of units that moved next to the square. Does it also "
        "cover a unit that began its move there?",
        reading="Yes. Any enemy next to the carré draws its fire when it leaves or changes.",
        alternative="No: only a unit that moved into the adjacent hex during this move.",
        option="carre_fire_only_after_moving_adjacent",
        sections=("14.carre",),
    ),
    Interpretation(
        id=I_RETREAT_HEXES,
        question="Which hexes of a melee retreat count for the increment loss?",
        reading="The hexes the unit leaves: the melee hex and every path hex but the last.",
        alternative="'entered': every hex of the retreat path, the last one included.",
        option="retreat_loss_hexes",
        sections=("14.melee-retreat",),
    ),
)

INTERPRETATIONS_BY_ID = {i.id: i for i in INTERPRETATIONS}

TEXT = RulesText(SOURCE, CATALOG, INTERPRETATIONS)
"""What the ruleset rules from (``Ruleset.text``)."""
