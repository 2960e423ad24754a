"""Rule catalog of the ``terrain`` ruleset (seed 003, Terrain Definitions A.1-A.47).

Section ids follow the source numbering. The source prints the last clause as ``A47``; the
project cites it as ``A.47``. Summaries are our own words; the project never quotes the text.
"""

from __future__ import annotations

from app.rules.catalog import Catalog, Interpretation, RuleSection, RulesText

RULESET_ID = "terrain"
SOURCE = "seed 003 (measured horse-and-musket rules), Terrain Definitions A.1-A.47"

_S = RuleSection

SECTIONS: tuple[RuleSection, ...] = (
    _S(
        id="A.1",
        title="Basic geography",
        summary="Heading of the four table layouts a campaign or scenario may pick.",
    ),
    _S(
        id="A.11",
        title="Rolling hills layout",
        summary="The usual battlefield: up to eight gentle hills and a main road that leaves the "
        "table (or branches into secondary roads); a stream, orchards, ploughed land, fences "
        "and walls are optional. Gentle slopes do not slow troops; hills stand above the "
        "ground around them.",
    ),
    _S(
        id="A.12",
        title="Rough layout",
        summary="Many movement-hindering features with roughly half the table left open; hills "
        "may have steep slopes and several levels; a road crosses open ground and may be "
        "sunken in places.",
    ),
    _S(
        id="A.13",
        title="Wooded layout",
        summary="Many patches of heavy or light woods, while seven tenths or more of the table "
        "stays open; streams, exiting roads and rough patches are optional.",
    ),
    _S(
        id="A.14",
        title="River valley layout",
        summary="A river crossed by a road at a stone bridge; woods, rough and one to four hills "
        "may be added.",
    ),
    _S(
        id="A.2",
        title="Additional guidelines",
        summary="Heading of the guidelines on rough patches and water features.",
    ),
    _S(
        id="A.21",
        title="Rough patches (layout)",
        summary="A rough patch is rocky broken ground or swamp; near water it is preferably "
        "(not necessarily) swamp.",
    ),
    _S(
        id="A.22",
        title="Streams",
        summary="A stream may be waded unless the scenario says otherwise; one with steep banks "
        "is crossed only at a ford or a bridge; a stream marker is 40 yards wide at most.",
    ),
    _S(
        id="A.23",
        title="Rivers",
        summary="A river may run across the table or along an edge, and needs at least one "
        "ford or bridge.",
    ),
    _S(
        id="A.24",
        title="Fords",
        summary="No ford within 50 yards of a bridge; a ford counts as 30 yards wide (a stand's "
        "width is preferred); crossing it halves movement; a unit halted in it may not fire "
        "and nobody may move through it.",
    ),
    _S(
        id="A.3",
        title="Major terrain definitions",
        summary="Heading of the large features: farms, stockades, hilltops, towns, roads, "
        "large forts.",
    ),
    _S(
        id="A.31",
        title="Farms",
        summary="Farmhouse, barns and fields; a wooden house is mostly a landmark, and fences "
        "or low walls only slow troops briefly when crossed.",
    ),
    _S(
        id="A.32",
        title="Stockades and small forts",
        summary="Supply bases that become the scenario's focus; they hold a garrison of one to "
        "five stands and should sit with farms, roads or water.",
    ),
    _S(
        id="A.33",
        title="Hilltops",
        summary="Commanding heights with woods and rough and two trail exits on opposite "
        "sides; water optional; best for one-to-one skirmish play.",
    ),
    _S(
        id="A.34",
        title="Towns",
        summary="Battles seldom happened in towns; street fighting belongs to skirmish rules.",
    ),
    _S(
        id="A.35",
        title="Roads",
        summary="Every table has roads leaving by two edges and crossing the middle line; a "
        "road meets a river at a bridge and a stream at a bridge or ford.",
    ),
    _S(
        id="A.36",
        title="Large forts",
        summary="A whole fort holds six to twelve stands in as many sectors, one stand per "
        "sector, at most two attacking units per sector; wall sections alone count as "
        "prepared earthworks.",
    ),
    _S(
        id="T.Scenario",
        title="Numbers left to the scenario",
        summary="Project rule (not in the text): the yards a fence or wall crossing costs, the "
        "cost of steep slopes and movement allowances are scenario data with documented "
        "defaults; a scenario's ids are unique, its references (sides) resolve and its "
        "units stand on the table; an action names a unit on the table and a move's path has "
        "some length and stays on the table.",
        source="project rule (not in the source text)",
    ),
    _S(
        id="A.4",
        title="Tactical terrain definitions",
        summary="Heading of the features that change movement, sight and protection.",
    ),
    _S(
        id="A.41",
        title="Earthworks and fortifications",
        summary="Trenches, redoubts and barricades are prepared (earthworks, a strong defensive "
        "rating) or hasty (a protective position).",
    ),
    _S(
        id="A.42",
        title="Bushes and high grass",
        summary="Bushes, tall grass and ripe fields affect nothing but line of sight, which "
        "they block.",
    ),
    _S(
        id="A.43",
        title="Buildings",
        summary="One to three structures occupied in and around; mounted cavalry may not "
        "occupy them; occupants count as in a protective position, which hasty works do not "
        "improve.",
    ),
    _S(
        id="A.44",
        title="Heavy woods",
        summary="Dense trees block sight, line of sight and artillery kill zones; closed to "
        "wagons, limbers and formed horse or foot; skirmishers move and charge 60 yards at "
        "most.",
    ),
    _S(
        id="A.45",
        title="Light woods (orchards)",
        summary="Sparse trees that still block sight; formed troops move 40 yards at most and "
        "may not charge; skirmishers are unaffected; wagons and limbers are excluded; "
        "unlimbered guns go in by prolonge, 20 yards a turn.",
    ),
    _S(
        id="A.46",
        title="Rough patches (movement)",
        summary="Rock or swamp: wheeled equipment may enter but a 0 on a d10 breaks a wheel and "
        "destroys it; closed to formed cavalry; formed infantry move and charge 60 yards at "
        "most; skirmishers unaffected; beach sand counts as rough.",
    ),
    _S(
        id="A.47",
        title="Protective cover",
        summary="From hasty works to walls, sunken roads, building groups, dry creek beds and "
        "wagon barricades; a melee defender benefits only while Holding and not once the melee "
        "is engaged.",
    ),
)

CATALOG = Catalog(RULESET_ID, SECTIONS)

GUIDANCE_SECTIONS: tuple[str, ...] = (
    "A.1",
    "A.13",
    "A.14",
    "A.2",
    "A.21",
    "A.3",
    "A.33",
    "A.34",
)
"""Scenario-design guidance: cited by the ``scenario-check`` query, never by a move. A.11,
A.12 and A.31 also name terrain with effects (slopes, fences and walls, sunken roads)."""

INTERPRETATIONS: tuple[Interpretation, ...] = (
    Interpretation(
        id="terrain.formed-troops",
        question="The text sets formed troops against skirmishers: where do unformed troops "
        "(e.g. disordered or routing) fall?",
        reading="Every order other than skirmish is treated as formed.",
        alternative="Unformed troops move like skirmishers.",
        option="unformed_counts_as",
        sections=("A.44", "A.45", "A.46"),
    ),
    Interpretation(
        id="terrain.in-feature",
        question="Is a unit that is only partly inside a feature 'in' it?",
        reading="A unit is in a feature when its position point lies inside it or on its edge.",
        alternative="A unit is in a feature when any part of its frontage (a circle of half its "
        "frontage around the position) overlaps it.",
        option="in_feature",
        sections=("A.24", "A.43", "A.44", "A.45", "A.46"),
    ),
    Interpretation(
        id="terrain.shared-edge",
        question="A path running along the edge two features share (woods against woods, "
        "woods against rough) is on the edge of both: does each count those yards?",
        reading="No: the stretch counts once, for the feature the unit is already moving in "
        "there (it came along inside it), else for the one it goes on into, else for the one "
        "the scenario lists first. The clauses charge a unit for the ground it moves through, "
        "and a yard is walked once. Overlapping features (woods on a hill) still both count.",
        alternative="The stretch counts in each feature (an edge belongs to both, as a halt on "
        "it is in both).",
        option="shared_edge",
        sections=("A.12", "A.44", "A.45", "A.46"),
    ),
    Interpretation(
        id="terrain.cap-scope",
        question="Does a 40- or 60-yard maximum in woods or rough limit the whole move, or "
        "only the yards inside the feature?",
        reading="A move that enters the feature may total no more than the maximum.",
        alternative="Only the yards inside the feature count against the maximum.",
        option="cap_scope",
        sections=("A.44", "A.45", "A.46"),
    ),
    Interpretation(
        id="terrain.ford-halving",
        question="Movement is halved in a ford: the part of the move in the ford, or the "
        "whole move?",
        reading="Each yard inside the ford costs two yards of allowance.",
        alternative="A move that enters a ford has its whole allowance halved.",
        option="ford_halving",
        sections=("A.24",),
    ),
    Interpretation(
        id="terrain.wheel-check",
        question="How often do wheeled units roll for a broken wheel in rough?",
        reading="One d10 for each separate entry into a rough patch along the path.",
        alternative="One d10 per move that spends any yards in rough.",
        option="wheel_check",
        sections=("A.46",),
    ),
    Interpretation(
        id="terrain.d10-zero",
        question="The service rolls a d10 as 1-10; which value is the breaking 0?",
        reading="A rolled 10 reads as 0 (values 0-9 are also accepted).",
        alternative="(no option: the objective-zones part of the same text reads d10s alike)",
        option=None,
        sections=("A.46",),
    ),
    Interpretation(
        id="terrain.limbered-guns",
        question="Are limbered guns 'limbers' for woods?",
        reading="Limbered artillery moves as a limber: heavy and light woods are closed to it.",
        alternative="Only separate limber units are excluded; limbered guns move as unlimbered.",
        option="limbered_guns_as_limbers",
        sections=("A.44", "A.45"),
    ),
    Interpretation(
        id="terrain.guns-heavy-woods",
        question="Heavy woods do not mention unlimbered guns: may they be prolonged in?",
        reading="No: heavy woods are closed to guns.",
        alternative="Yes, by prolonge at 20 yards a turn, as in light woods.",
        option="guns_in_heavy_woods",
        sections=("A.44",),
    ),
    Interpretation(
        id="terrain.river-crossing",
        question="May troops cross a river away from its fords and bridges?",
        reading="No: a river is crossed only at a ford or bridge (that is why it must have "
        "one), like a steep-banked stream.",
        alternative="(no option)",
        option=None,
        sections=("A.22", "A.23"),
    ),
    Interpretation(
        id="terrain.los-own-feature",
        question="Does a wood or bush patch block sight for a unit standing inside it?",
        reading="Yes: any stretch of the sight line inside a blocking feature blocks it.",
        alternative="A feature that holds either end of the sight line does not block it.",
        option="los_from_inside",
        sections=("A.42", "A.44", "A.45"),
    ),
)

INTERPRETATIONS = (
    *INTERPRETATIONS,
    Interpretation(
        id="terrain.wall-delay",
        question="Fences and low walls are 'more of a temporary delay than a serious "
        "obstacle': what does crossing one cost?",
        reading="Each crossing costs the scenario's obstacle_yards of allowance (default: "
        "fence 10, stone wall 20, each kept unless the scenario names that kind); every unit "
        "may cross.",
        alternative="(no option: set obstacle_yards to 0 to ignore them)",
        option=None,
        sections=("A.31", "A.11"),
    ),
    Interpretation(
        id="terrain.steep-slope",
        question="Steep slopes hinder movement (A.12) by how much?",
        reading="Each yard on a steep hill costs steep_slope_cost yards (scenario data, "
        "default 2); gentle slopes cost nothing extra.",
        alternative="(no option: set steep_slope_cost)",
        option=None,
        sections=("A.12", "A.11"),
    ),
    Interpretation(
        id="terrain.hill-sight",
        question="Hills dominate the countryside: what do they do to sight lines?",
        reading="A hill blocks a sight line that crosses it between two points off it; a "
        "unit on the hill sees and is seen over it.",
        alternative="Hills never block sight.",
        option="hills_block_sight",
        sections=("A.11", "A.33"),
    ),
    Interpretation(
        id="terrain.road-exits",
        question="Roads 'must' leave by two table edges and cross the mid-line: a requirement "
        "on every road, or advice?",
        reading="A requirement on every road drawn as a line: its two ends lie on two "
        "different edges of the table and it crosses the table's vertical or horizontal "
        "mid-line; a scenario that breaks it is refused.",
        alternative="Advice: the scenario check reports it and the scenario is accepted.",
        option="roads_must_exit",
        sections=("A.35",),
    ),
    Interpretation(
        id="terrain.posture",
        question="A.47 gives protective cover in a melee only to a Holding defender: what makes "
        "a unit Holding, on a table with no turns?",
        reading="The last posture it was given: Holding unless the scenario or a hold order "
        "makes it Advancing; moving or charging does not change it (the terrain definitions "
        "have no turns to advance in).",
        alternative="Any move or charge makes the unit Advancing until a hold order, as "
        "battlefield rules (bf.move-advances; option move_advances=true).",
        option="move_advances",
        sections=("A.47",),
    ),
)

INTERPRETATION_BY_ID = {i.id: i for i in INTERPRETATIONS}

TEXT = RulesText(SOURCE, CATALOG, INTERPRETATIONS)
"""What the ruleset rules from (``Ruleset.text``)."""
