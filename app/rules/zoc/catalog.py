"""The rule catalog and the interpretations of the ``zoc`` ruleset (seed 000, sections 8-8.2).

The source numbers three sections (``8``, ``8.1``, ``8.2``). The clause ids below
(``8.exc.mountain``, ``8.2.mud`` ...) are this project's stable ids for the single points those
sections make, in the order the text makes them. Entries whose id starts with ``basic.`` are
not in the source: they name the movement basics every ruling needs (paths, movement points,
terrain, phases, enemy-occupied hexes, overrun, retreat length, supply range). Their numbers are
scenario data with documented defaults (``docs/rulesets/zoc.md``).

Every summary is written in our own words; the project cites the text and does not quote it.
"""

from __future__ import annotations

from app.rules.catalog import Catalog, Interpretation, RuleSection, RulesText

RULESET_ID = "zoc"
SOURCE = "Operational hex wargame rules, section 8 (Zone of Control), seed 000"
PROJECT = "project rule (not in the source text)"

_SECTIONS: tuple[tuple[str, str, str, str], ...] = (
    (
        "8",
        "Zone of Control",
        "Every ground unit on the map exerts a zone of control over the six hexes that "
        "surround its own hex, subject to the exceptions listed under this section.",
        SOURCE,
    ),
    (
        "8.exc.mountain",
        "Exception: Mountain hexside",
        "No zone reaches a neighbouring hex when the shared hexside is a Mountain hexside.",
        SOURCE,
    ),
    (
        "8.exc.sea",
        "Exception: All-Sea and Strait hexsides",
        "No zone reaches across a hexside that is All-Sea or Strait, unless that hexside is "
        "the Beachhead Hexside of a Beachhead marker.",
        SOURCE,
    ),
    (
        "8.clar.beachhead",
        "Clarification: Beachhead in an All-Sea hex",
        "When an All-Sea hex holds a Beachhead marker, zones pass between that hex and its "
        "neighbours only across the marker's own Beachhead Hexside; every other side of the "
        "hex carries no zone.",
        SOURCE,
    ),
    (
        "8.exc.policy-hex",
        "Exception: hexes of Policy Affected Countries",
        "A hex that belongs to a country whose posture is Policy Affected receives no zone "
        "from anyone (see the country rules, 13.6.1).",
        SOURCE,
    ),
    (
        "8.exc.policy-unit",
        "Exception: units of Policy Affected Countries",
        "Ground units of a Policy Affected country exert no zone at all.",
        SOURCE,
    ),
    (
        "8.1",
        "Enemy Zone of Control (EZOC)",
        "A zone exerted by a unit of the other side is, for the reader's side, an enemy zone "
        "of control, abbreviated EZOC.",
        SOURCE,
    ),
    (
        "8.1.clar.nonphasing",
        "Clarification: non-phasing units are enemies",
        "For the side whose phase it is, every unit that does not belong to that side counts "
        "as an enemy unit and its zone is an EZOC.",
        SOURCE,
    ),
    (
        "8.1.negation",
        "Negation by a friendly unit or Airdrop marker",
        "Where a later rule says so, a friendly unit or a friendly Airdrop marker standing in a "
        "hex cancels the effects of every EZOC in that hex.",
        SOURCE,
    ),
    (
        "8.1.clar.markers",
        "Clarification: markers that do not negate",
        "Logistics markers, Partisan Base markers and Detachment markers never cancel an EZOC.",
        SOURCE,
    ),
    (
        "8.1.duration",
        "Negation starts at once and lasts while present",
        "The cancelling takes effect the moment the friendly unit or marker arrives and lasts "
        "as long as it remains in that hex.",
        SOURCE,
    ),
    (
        "8.1.example",
        "Example: a unit that stopped negates for the next movers",
        "Illustration: a unit that moves into an EZOC hex and halts there cancels that EZOC for "
        "friendly units that move through the hex later in the same phase.",
        SOURCE,
    ),
    (
        "8.2",
        "EZOC Effects",
        "How an EZOC affects movement in each phase, supply lines, retreats and exploitation.",
        SOURCE,
    ),
    (
        "8.2.operational",
        "Operational Movement: stop on entering EZOC",
        "In the Operational Movement Phase a unit that moves into a hex with an EZOC ends its "
        "move in that hex.",
        SOURCE,
    ),
    (
        "8.2.operational.exceptions",
        "Operational Movement: friendly unit or overrun",
        "The halt is not required when another friendly unit is already in that hex, nor when "
        "the mover is overrunning the very unit that exerts the EZOC.",
        SOURCE,
    ),
    (
        "8.2.operational.started-in",
        "Operational Movement: starting the phase in EZOC",
        "A unit that begins the phase in an EZOC hex is free to leave it, and may step straight "
        "into a different EZOC hex, where the halt rule above then applies to it.",
        SOURCE,
    ),
    (
        "8.2.mud",
        "Mud",
        "A unit in an EZOC hex whose weather is Mud may not leave that hex; friendly units and "
        "overruns change nothing.",
        SOURCE,
    ),
    (
        "8.2.storms-snow",
        "Storms and Snow",
        "Where the weather is Storms or Snow, a unit ends its move as soon as it has entered or "
        "left an EZOC hex; friendly units and overruns change nothing.",
        SOURCE,
    ),
    (
        "8.2.reserve",
        "Reserve Movement",
        "In the Reserve Movement Phase a unit may neither enter nor leave an EZOC hex, whatever "
        "else is in the hex.",
        SOURCE,
    ),
    (
        "8.2.supply",
        "Supply lines",
        "A supply line may not be traced into an EZOC hex unless some other friendly unit "
        "occupies that hex.",
        SOURCE,
    ),
    (
        "8.2.retreat",
        "Retreat",
        "A retreating unit may not enter an EZOC hex unless some other friendly unit occupies "
        "that hex.",
        SOURCE,
    ),
    (
        "8.2.retreat.priorities",
        "Retreat priorities",
        "Retreats follow the retreat priorities (4.2.5.1): when a hex free of EZOC is available "
        "the retreat has to use it rather than an EZOC hex.",
        SOURCE,
    ),
    (
        "8.2.exploitation",
        "Exploitation",
        "A unit moving in Exploitation ends its move on entering an EZOC hex unless some other "
        "friendly unit is already in that hex.",
        SOURCE,
    ),
    (
        "8.2.example",
        "Example: mountain hexside and a negated hex",
        "Illustration around Cernauti (e3306): the Soviet army zones its neighbours except the "
        "hex behind the mountain hexside, and a German unit already in e3207 lets other German "
        "units pass through that hex without halting.",
        SOURCE,
    ),
    (
        "basic.path",
        "Movement basics: a contiguous path of known hexes",
        "An action names an existing unit on the map and a path of map hexes, each adjacent to "
        "the one before it (the first to the unit's hex).",
        PROJECT,
    ),
    (
        "basic.phase",
        "Movement basics: who may move when",
        "Only ground units of the phasing side move, once per phase, in the Operational "
        "Movement, Exploitation or Reserve Movement phase.",
        PROJECT,
    ),
    (
        "basic.movement-points",
        "Movement basics: movement points",
        "Each hex entered costs the terrain cost of that hex plus any hexside cost (scenario "
        "table); the total may not exceed the unit's movement allowance.",
        PROJECT,
    ),
    (
        "basic.terrain",
        "Movement basics: impassable terrain",
        "Terrain or hexsides whose cost is null in the scenario's cost table may not be "
        "entered or crossed by moves, retreats or supply lines.",
        PROJECT,
    ),
    (
        "basic.enemy-hex",
        "Movement basics: enemy-occupied hexes",
        "Moves, retreats and supply lines may not enter a hex that holds an enemy ground unit, "
        "except the hex of the unit being overrun.",
        PROJECT,
    ),
    (
        "basic.overrun",
        "Movement basics: overrun",
        "A move may end by entering the hex of an enemy ground unit it overruns; the overrun "
        "itself is resolved outside this ruleset and the mover stays in the hex it attacked "
        "from.",
        PROJECT,
    ),
    (
        "basic.retreat",
        "Retreat basics: length and direction",
        "A retreat covers the number of hexes the combat result gives, never re-enters a hex, "
        "and (by default) takes each hex one step farther from where it began.",
        PROJECT,
    ),
    (
        "basic.supply",
        "Supply basics: sources and range",
        "A supply line runs from the unit's hex to a supply source of its side listed in the "
        "scenario, over no more hexes than the scenario's maximum supply length.",
        PROJECT,
    ),
    (
        "basic.umpire",
        "Umpire actions",
        "The umpire sets the game up from a scenario whose references resolve (unique ids; "
        "every unit, marker, supply source and start position on a side, country and hex the "
        "scenario has; a movement cost for every terrain), starts phases (which records every "
        "unit's position at the start of the phase), sets the weather, and places units and "
        "markers.",
        PROJECT,
    ),
)

CATALOG = Catalog(
    RULESET_ID,
    [
        RuleSection(id=sid, title=title, summary=summary, source=source)
        for sid, title, summary, source in _SECTIONS
    ],
)

INTERPRETATIONS: tuple[Interpretation, ...] = (
    Interpretation(
        id="zoc.airdrop-supply-retreat",
        question="Does a friendly Airdrop marker count as 'another friendly unit' for supply "
        "lines and retreats?",
        reading="Yes: 8.1 puts the Airdrop marker on a par with a friendly unit for negation, so "
        "it opens an EZOC hex to supply lines and retreats as well as to moves.",
        alternative="No: only a real friendly unit opens an EZOC hex to supply lines and "
        "retreats; the Airdrop marker then only helps moving units.",
        option="airdrop_negates_supply_retreat",
        sections=("8.1.negation", "8.2.supply", "8.2.retreat"),
    ),
    Interpretation(
        id="zoc.overrun-only-target",
        question="A unit overruns an enemy; the hex it passes through is also zoned by other "
        "enemy units. Must it stop?",
        reading="Yes: the overrun exception lifts only the EZOC of the overrun target; any other "
        "enemy zone in the hex still stops the mover.",
        alternative="No: while conducting an overrun the mover ignores every EZOC in hexes that "
        "the target zones.",
        option="overrun_exempts_all_ezoc",
        sections=("8.2.operational.exceptions",),
    ),
    Interpretation(
        id="zoc.overrun-whole-stack",
        question="The overrun target shares its hex with other enemy units. Does the overrun "
        "exception lift their EZOC too?",
        reading="Yes: an overrun attacks the whole stack in the target hex, so every unit in it "
        "counts as the unit being overrun.",
        alternative="No: only the unit named as the target; the EZOC of its stackmates still "
        "stops the mover.",
        option="overrun_exempts_target_stack",
        sections=("8.2.operational.exceptions",),
    ),
    Interpretation(
        id="zoc.reserve-no-negation",
        question="Does a friendly unit or Airdrop marker let a unit enter or leave an EZOC hex "
        "in Reserve Movement?",
        reading="No: the reserve rule admits no exceptions, so negation does not apply.",
        alternative="Yes: a negated EZOC hex is treated as free of EZOC in Reserve Movement.",
        option="reserve_negation",
        sections=("8.2.reserve", "8.1.negation"),
    ),
    Interpretation(
        id="zoc.weather-not-retreat",
        question="Do the Mud and Storms/Snow restrictions apply to retreats?",
        reading="No: they govern movement; a retreat is a combat result and follows only the "
        "retreat paragraph.",
        alternative="Yes: a retreat may not leave an EZOC hex in Mud, and ends after entering "
        "or leaving an EZOC hex in Storms or Snow.",
        option="weather_affects_retreat",
        sections=("8.2.mud", "8.2.storms-snow", "8.2.retreat"),
    ),
    Interpretation(
        id="zoc.weather-in-exploitation",
        question="Do the Mud and Storms/Snow restrictions apply in Exploitation?",
        reading="Yes: they are stated for every move without exception, so they bind "
        "exploiting units too.",
        alternative="No: they belong to Operational Movement only.",
        option="weather_in_exploitation",
        sections=("8.2.mud", "8.2.storms-snow", "8.2.exploitation"),
    ),
    Interpretation(
        id="zoc.storms-leaving-start",
        question="Must a unit that begins its move in an EZOC hex under Storms or Snow stop "
        "right after leaving it?",
        reading="Yes: leaving such a hex ends the move one hex later, wherever the unit began.",
        alternative="No: the halt on leaving applies only to hexes entered during this move.",
        option="storms_stop_on_leaving_start",
        sections=("8.2.storms-snow",),
    ),
    Interpretation(
        id="zoc.ground-units-negate",
        question="Do friendly non-ground units (air, naval) in a hex negate EZOC?",
        reading="No: only friendly ground units and Airdrop markers negate.",
        alternative="Yes: any friendly unit in the hex negates.",
        option="non_ground_negates",
        sections=("8.1.negation",),
    ),
    Interpretation(
        id="zoc.retreat-negated-not-free",
        question="For retreat priorities, is an EZOC hex negated by a friendly unit a 'hex "
        "without an EZOC'?",
        reading="No: the EZOC is still there; the retreat may enter it, but a hex with no EZOC "
        "at all must be preferred.",
        alternative="Yes: a negated EZOC hex ranks as a hex without EZOC.",
        option="retreat_negated_ezoc_is_free",
        sections=("8.2.retreat.priorities",),
    ),
    Interpretation(
        id="zoc.retreat-ezoc-free-first",
        question="The retreat priorities (4.2.5.1) are not in the text: which comes first, "
        "avoiding EZOC hexes or covering the full retreat length?",
        reading="Avoiding EZOC comes first, as the 8.2 clarification demands it whenever a hex "
        "without EZOC is available; among those hexes, one allowing the longest retreat must "
        "be taken. The retreat may then fall short.",
        alternative="Covering the full length comes first; among hexes that allow the longest "
        "retreat, one without EZOC must be taken.",
        option="retreat_ezoc_free_first",
        sections=("8.2.retreat.priorities",),
    ),
    Interpretation(
        id="zoc.retreat-away",
        question="Must each retreat hex lie farther from the retreat's starting hex?",
        reading="Yes (project default): every step increases the distance from the start hex.",
        alternative="No: any hex not yet used by the retreat may be entered.",
        option="retreat_must_move_away",
        sections=("basic.retreat",),
    ),
    Interpretation(
        id="zoc.started-in-uniform",
        question="Does a unit that began the phase in EZOC stop when it enters an EZOC hex "
        "after first leaving EZOC?",
        reading="Yes: starting in EZOC only frees the unit to leave; every later entry into an "
        "EZOC hex follows the ordinary halt rule.",
        alternative="No: such a unit halts only when its very first step goes into another "
        "EZOC hex; later EZOC hexes do not stop it.",
        option="started_in_ezoc_exempt",
        sections=("8.2.operational.started-in", "8.2.operational"),
    ),
    Interpretation(
        id="zoc.weather-by-zone",
        question="Which hexes are 'affected by' Mud, Storms or Snow?",
        reading="A hex is affected by the weather currently set for its weather zone; the EZOC "
        "hex being entered or left is the one whose weather counts.",
        alternative="Zones are scenario data, so a club that reads weather differently "
        "(e.g. one weather for the whole map) puts every hex in one zone; no option needed.",
        option=None,
        sections=("8.2.mud", "8.2.storms-snow"),
    ),
)

INTERPRETATION_BY_ID = {i.id: i for i in INTERPRETATIONS}

TEXT = RulesText(SOURCE, CATALOG, INTERPRETATIONS)
"""What the ruleset rules from (``Ruleset.text``)."""
