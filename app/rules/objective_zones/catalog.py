"""Rule catalog and interpretations of the ``objective-zones`` ruleset (seed 003).

The source text has no section numbers. The ids below follow its own lettering: the zone
concept (``OZ``), its display, classes, capacity, trafficability and morale, the Basic Rules
``A``-``G``, the assault rules ``A``, ``B.1``-``B.5`` and ``C`` and the post-melee results
``D.1``-``D.4``. ``OZ.Sequence`` and ``OZ.Scenario`` are project rules (not in the text): the
phase order and the numbers the text leaves to the scenario.

Every summary is written in our own words; the project cites the text and never quotes it.
"""

from __future__ import annotations

from app.rules.catalog import Catalog, Interpretation, RuleSection, RulesText

RULESET_ID = "objective-zones"
SOURCE = "Measured horse-and-musket rules, Operational Objective Zones (seed 003)"
PROJECT = "project rule (not in the source text)"

_SECTIONS: tuple[tuple[str, str, str, str], ...] = (
    (
        "OZ",
        "Objective Zones",
        "Built-up or fortified objectives (a village, a farm, a redoubt, a bridge) are fought "
        "over as abstract zones rather than on the table surface.",
        SOURCE,
    ),
    (
        "OZ.Display",
        "Zone display: in-transit and garrison sectors",
        "Each zone has its own status display with one In-Transit box and a garrison area cut "
        "into numbered sectors, one per point of troop capacity. Troops entering a zone leave "
        "the table and are kept on that display, except in a Class A zone, where they stay "
        "on the table.",
        SOURCE,
    ),
    (
        "OZ.Class",
        "Zone classes A to F",
        "Zones are graded from A (an open point such as a ford or crossroads) through B (light "
        "cover or a farm), C (village), D (town) and E (a fortified village or town) to F (a "
        "linear fortification). The class fixes trafficability and troop capacity by table.",
        SOURCE,
    ),
    (
        "OZ.Capacity",
        "Troop capacity",
        "A zone shelters as many battalions as its capacity; units beyond that stand in the "
        "In-Transit box, out on the roads and without cover.",
        SOURCE,
    ),
    (
        "OZ.Trafficability",
        "Trafficability",
        "The number of turns needed to pass through a zone: a unit may leave no earlier than "
        "its entry turn plus this number, both after ordinary movement and after winning a "
        "melee there. Mounted troops and guns leave along a road where the zone has one.",
        SOURCE,
    ),
    (
        "OZ.Morale",
        "Morale in a zone",
        "Units inside a zone test morale only after a melee result or after losing men to "
        "artillery fire, never because other units nearby broke.",
        SOURCE,
    ),
    (
        "OZ.Basic.A",
        "Basic A: no musketry into or out of a zone",
        "Small-arms fire is not effective against troops inside a zone, nor from them, except "
        "in a Class A zone.",
        SOURCE,
    ),
    (
        "OZ.Basic.B",
        "Basic B: contested zones",
        "A zone becomes contested when a charge is aimed at it or when the two sides each hold "
        "some of its sectors.",
        SOURCE,
    ),
    (
        "OZ.Basic.C",
        "Basic C: moving between sectors",
        "Sectors of zones other than Class F are arranged like slices of a pie, so troops pass "
        "freely from one to any other. Class F sectors lie in a line. While an F zone is "
        "contested, troops cross only sectors their own side holds, never enemy-held or "
        "engaged ones. Reaching a neighbouring zone requires going In-Transit first.",
        SOURCE,
    ),
    (
        "OZ.Basic.D",
        "Basic D: guns in a zone",
        "Artillery may garrison a zone beyond its troop capacity: up to four firing sections "
        "in a Class F zone, two firing stands in any other. Batteries beyond that limit are "
        "limbered in the In-Transit box.",
        SOURCE,
    ),
    (
        "OZ.Basic.E",
        "Basic E: garrison batteries",
        "Garrison guns fire section by section and only in the Initial Fire Phase; they still "
        "count as a melee modifier. Their kill zone starts from the zone's edge and should "
        "cover a road exit if there is one.",
        SOURCE,
    ),
    (
        "OZ.Basic.F",
        "Basic F: batteries and assaulted zones",
        "Limbered batteries in the In-Transit box of a zone under assault must either leave "
        "it or unlimber into the garrison if the gun limit allows. No battery may move into a "
        "contested zone.",
        SOURCE,
    ),
    (
        "OZ.Basic.G",
        "Basic G: artillery fire from outside at a zone",
        "Fire at an empty zone does nothing. Against an occupied zone, losses fall first on "
        "the In-Transit units (a crowded target hit on 0 and 1), then on the garrison; the "
        "zone class worsens the fire: A as in the open, B-D hit only on 0 with one die fewer, "
        "E-F hit only on 0 with half the dice.",
        SOURCE,
    ),
    (
        "OZ.Assault.A",
        "Assault A: declaring an assault",
        "The attacker names the units assaulting a zone in the Charge Declaration Phase. The "
        "defender may move troops in or out in normal movement but may not counter-charge.",
        SOURCE,
    ),
    (
        "OZ.Assault.B.1",
        "Assault B.1: secret troop allocation",
        "In the Objective Combat Resolution Phase each side secretly allocates troops to "
        "combat sectors, as many as the zone's capacity; the In-Transit box plays no part.",
        SOURCE,
    ),
    (
        "OZ.Assault.B.2",
        "Assault B.2: short of garrison troops",
        "A defender without a garrison battalion for every sector may fill the gaps from the "
        "In-Transit box, or leave sectors undefended.",
        SOURCE,
    ),
    (
        "OZ.Assault.B.3",
        "Assault B.3: defender allocation",
        "The defender puts one garrison battalion, plus any supporting gun sections, in each "
        "sector. In-Transit units and reinforcements from outside fill empty sectors before "
        "strengthening held ones, and get no zone modifier.",
        SOURCE,
    ),
    (
        "OZ.Assault.B.4",
        "Assault B.4: attacker allocation",
        "The attacker commits at least one infantry unit to every combat sector.",
        SOURCE,
    ),
    (
        "OZ.Assault.B.5",
        "Assault B.5: attacking batteries",
        "Each attacking battery supports one named sector (several batteries may split "
        "between sectors), gives a melee modifier, may not be the only attacker of a sector "
        "and may not fire at anything else in the Secondary Fire Phase.",
        SOURCE,
    ),
    (
        "OZ.Assault.C",
        "Assault C: melee dice and to-hit numbers",
        "Each unit rolls its melee-grade dice once, however many units share the sector; each "
        "supporting gun section adds two dice. The to-hit range depends on the castings a "
        "unit commits (levels one to four) and is raised one level for garrisons of B, C and "
        "D zones and two for E and F; In-Transit and Class A troops are not raised, and "
        "engaged units receive the defensive modifier. Defending guns count in the fire "
        "phase.",
        SOURCE,
    ),
    (
        "OZ.PostMelee.D.1",
        "Post-melee D.1: defender shattered",
        "When the attacker inflicts at least three times the defender's casualties, the "
        "defenders are shattered and leave play.",
        SOURCE,
    ),
    (
        "OZ.PostMelee.D.2",
        "Post-melee D.2: defender engaged",
        "When the attacker inflicts more casualties than it takes but less than three times "
        "as many, the defenders are locked in melee with the attackers of their sector.",
        SOURCE,
    ),
    (
        "OZ.PostMelee.D.3",
        "Post-melee D.3: everyone engaged",
        "The text's third result, worded as another 'attacker inflicts more' case, puts every "
        "unit in melee (see interpretation oz.d3-scope).",
        SOURCE,
    ),
    (
        "OZ.PostMelee.D.4",
        "Post-melee D.4: staying engaged, withdrawing",
        "Engaged units stay engaged until one side is destroyed or falls back; a player may "
        "pull engaged units out of the zone by paying one casting of attrition.",
        SOURCE,
    ),
    (
        "A.36",
        "Large forts (Terrain Definitions A.36) as a zone",
        "A whole fort on the table holds six to twelve stands in as many sectors, one stand "
        "each, reassigned between turns unless locked in melee; no sector takes more than two "
        "attacking units; once the attackers control a sector the defenders lose the fort's "
        "modifiers.",
        "Measured horse-and-musket rules, Terrain Definitions A.36 (seed 003)",
    ),
    (
        "OZ.Sequence",
        "Sequence of play (project)",
        "Project order of a player turn: Charge Declaration, Movement, Initial Fire, "
        "Secondary Fire, Objective Combat Resolution. Each action kind belongs to a phase.",
        PROJECT,
    ),
    (
        "OZ.Scenario",
        "Scenario data (project)",
        "Numbers the text leaves open (melee dice per grade, casualties per hit, the level "
        "battery dice hit at) come from the scenario, with documented defaults; a scenario's "
        "ids are unique and its references (sides, zones, units, grades) resolve.",
        PROJECT,
    ),
)

CATALOG = Catalog(
    RULESET_ID,
    [RuleSection(id=i, title=t, summary=s, source=src) for i, t, s, src in _SECTIONS],
)

INTERPRETATIONS: tuple[Interpretation, ...] = (
    Interpretation(
        id="oz.class-c-capacity",
        question="Does a Class C zone have two sectors (class table) or three (display example)?",
        reading="Two: the class table is the rule; the display example is taken as a slip.",
        alternative="Three, as the display example describes.",
        option="class_c_capacity",
        sections=("OZ.Class", "OZ.Display"),
    ),
    Interpretation(
        id="oz.class-e-capacity",
        question="The class table gives Class E a capacity of '2/3'. Which applies?",
        reading="The capacity of what was fortified: 2 for a village (C), 3 for a town (D), "
        "named by the zone's `fortifies` field; without it the option decides (default 2).",
        alternative="Always 3 (option class_e_capacity=3).",
        option="class_e_capacity",
        sections=("OZ.Class", "OZ.Capacity"),
    ),
    Interpretation(
        id="oz.level-overlap",
        question="Level TWO covers 11-20 castings and Level THREE '20+': where do exactly 20 "
        "castings belong?",
        reading="Level TWO: the closed range 11-20 is read first; Level THREE starts at 21.",
        alternative="Level THREE from 20 castings (option level_three_from=20).",
        option="level_three_from",
        sections=("OZ.Assault.C",),
    ),
    Interpretation(
        id="oz.level-raise",
        question="What does raising a unit's ability one or two levels mean, and how high "
        "can it go?",
        reading="The unit's level from its castings moves up one (B-D) or two (E-F) rows of "
        "the intensity table, never above Level FOUR.",
        alternative="Level FOUR needs more than 20 castings as its row says; raising stops at "
        "Level THREE otherwise (option level_four_needs_strength).",
        option="level_four_needs_strength",
        sections=("OZ.Assault.C",),
    ),
    Interpretation(
        id="oz.engaged-modifier",
        question="Engaged units 'receive defensive modifiers': which?",
        reading="An engaged unit of either side fighting in a zone gets that zone's class "
        "raise, as a garrison would.",
        alternative="Only the garrison gets the raise (option engaged_get_zone_modifier).",
        option="engaged_get_zone_modifier",
        sections=("OZ.Assault.C",),
    ),
    Interpretation(
        id="oz.d10",
        question="The to-hit numbers run from 0 to 3: which die?",
        reading="A ten-sided die read 0-9: a rolled 10 counts as 0.",
        alternative="(no option: the terrain part of the same text reads the d10 the same way)",
        option=None,
        sections=("OZ.Assault.C", "OZ.Basic.G"),
    ),
    Interpretation(
        id="oz.d3-scope",
        question="D.2 and D.3 both describe the attacker inflicting more casualties; what does "
        "D.3 add?",
        reading="D.3 covers the remaining case, the attacker inflicting no more than the "
        "defender: every unit in that sector is engaged (so any assault short of triple locks "
        "the sector in melee).",
        alternative="'zone-wide': D.2 and D.3 apply together; more-but-not-triple engages "
        "every unit in the whole zone, and an attacker inflicting no more gets no result "
        "(option post_melee).",
        option="post_melee",
        sections=("OZ.PostMelee.D.2", "OZ.PostMelee.D.3"),
    ),
    Interpretation(
        id="oz.attack-every-sector",
        question="Must the attacker commit infantry to every combat sector?",
        reading="Yes: each sector needs at least one attacking infantry unit.",
        alternative="Only sectors the attacker chooses to attack need infantry; the others "
        "are left alone (option attack_every_sector=false).",
        option="attack_every_sector",
        sections=("OZ.Assault.B.4", "OZ.Assault.B.5"),
    ),
    Interpretation(
        id="oz.class-f-transfer",
        question="Class F sectors are entered only from a neighbour, yet uncontested units "
        "move 'freely between any sectors'. Which wins?",
        reading="Uncontested F: any sector; contested F: along the line through own-held "
        "sectors only.",
        alternative="Neighbouring sectors only, contested or not (option class_f_adjacent_only).",
        option="class_f_adjacent_only",
        sections=("OZ.Basic.C",),
    ),
    Interpretation(
        id="oz.gun-stand",
        question="Non-F zones hold 'two firing stands' of guns, F zones 'four firing "
        "sections': same unit?",
        reading="Yes: a firing stand is a firing section; a battery counts its sections.",
        alternative="Non-F zones count batteries, not sections: two batteries (option "
        "artillery_limit_counts=batteries).",
        option="artillery_limit_counts",
        sections=("OZ.Basic.D",),
    ),
    Interpretation(
        id="oz.defender-guns",
        question="Garrison guns support a sector (B.3) but defensive artillery is 'accounted "
        "in the fire phase' (C). Do they roll melee dice?",
        reading="No: they are allocated and their fire happened in the Initial Fire Phase; "
        "they add no melee dice.",
        alternative="They add two dice per section like attacking guns (option "
        "defender_guns_add_dice).",
        option="defender_guns_add_dice",
        sections=("OZ.Assault.B.3", "OZ.Assault.C", "OZ.Basic.E"),
    ),
    Interpretation(
        id="oz.half-dice",
        question="Fire at a Class E or F zone rolls half the dice: rounded how?",
        reading="Rounded down (one die halves to none).",
        alternative="Rounded up (option half_dice_rounding=up).",
        option="half_dice_rounding",
        sections=("OZ.Basic.G",),
    ),
    Interpretation(
        id="oz.class-a-skirmish",
        question="Does a Class A garrison count as being in skirmish order for musketry?",
        reading="Yes: musketry at it is allowed and resolved as against skirmishers.",
        alternative="No: it is an ordinary formed target (option class_a_skirmish=false).",
        option="class_a_skirmish",
        sections=("OZ.Class", "OZ.Basic.A"),
    ),
    Interpretation(
        id="oz.missing-allocation",
        question="What if a side's allocation is missing when the umpire opens the decision?",
        reading="A missing defender order leaves each garrison battalion in its own sector "
        "and nothing else; a missing attacker order calls the assault off.",
        alternative="(no option: the text presumes both sides allocate)",
        option=None,
        sections=("OZ.Assault.B.1",),
    ),
    Interpretation(
        id="oz.support-secondary",
        question="Supporting batteries may not fire at other targets in the Secondary Fire "
        "Phase, but the troop allocation that assigns them comes after that phase: how is "
        "the ban applied?",
        reading="A battery named as support when the assault is declared may not fire in "
        "that turn's Secondary Fire Phase, and a battery that did fire in it may not be "
        "allocated to support a sector.",
        alternative="(no option: both halves follow from the text's order of phases)",
        option=None,
        sections=("OZ.Assault.B.5",),
    ),
    Interpretation(
        id="oz.flee-trafficability",
        question="In-Transit batteries of an assaulted zone 'must flee': does trafficability "
        "still hold them?",
        reading="No: a fleeing battery leaves whatever its entry turn (it still leaves by the "
        "road when the zone has one).",
        alternative="(no option)",
        option=None,
        sections=("OZ.Basic.F", "OZ.Trafficability"),
    ),
    Interpretation(
        id="oz.morale-test",
        question="The text says who tests morale in a zone, not how the test is rolled.",
        reading="One d10 read 0-9; the unit passes on its grade's `morale_pass` reading or "
        "more (scenario data, default elite 3, veteran 4, trained 5, green 6; a grade it "
        "does not list uses default_morale_pass, 5 unless the scenario says otherwise). The "
        "consequence of a failure belongs to the main rules and is left to the umpire.",
        alternative="(no option: change the scenario's morale_pass)",
        option=None,
        sections=("OZ.Morale", "OZ.Scenario"),
    ),
    Interpretation(
        id="oz.outside-reinforcements",
        question="Which 'outside reinforcements' may the defender allocate?",
        reading="Any defending unit still on the table (the umpire checks it is close "
        "enough; distances are not modelled).",
        alternative="None: only the garrison and the In-Transit box (option "
        "outside_reinforcements=false).",
        option="outside_reinforcements",
        sections=("OZ.Assault.B.3",),
    ),
    Interpretation(
        id="oz.withdraw-last-casting",
        question="Withdrawing an engaged unit costs one casting (D.4): what of a unit that has "
        "only one left?",
        reading="It may withdraw: it pays its last casting and is destroyed, removed from play "
        "as a unit the melee leaves without castings is.",
        alternative="It cannot pay the cost and remain a unit: the withdrawal is refused and it "
        "stays engaged (option withdraw_last_casting=refused).",
        option="withdraw_last_casting",
        sections=("OZ.PostMelee.D.4",),
    ),
    Interpretation(
        id="oz.counter-charge-scope",
        question="Who may not counter-charge the attackers of a zone: every unit of the defending "
        "side, or only the troops of the zone?",
        reading="Every unit of the defending side, in the zone or on the table: the text speaks of "
        "the defender, the side that may move troops into or out of the zone by normal movement.",
        alternative="Only the zone's own troops (garrison and In-Transit); a unit of that side "
        "elsewhere may charge the attackers, as the main rules allow (option "
        "counter_charge_ban=zone_units).",
        option="counter_charge_ban",
        sections=("OZ.Assault.A",),
    ),
)

INTERPRETATION_BY_ID = {i.id: i for i in INTERPRETATIONS}

TEXT = RulesText(SOURCE, CATALOG, INTERPRETATIONS)
"""What the ruleset rules from (``Ruleset.text``)."""
