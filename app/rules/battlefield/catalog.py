"""Rule catalog of the ``battlefield`` ruleset: seed 003 as one game on one measured table.

The ruleset composes ``terrain`` (Terrain Definitions A.1-A.47) and ``objective-zones``
(Operational Objective Zones). Rulings keep citing those rulesets' sections, each citation
naming the ruleset whose catalog defines it. This catalog adds the one clause of the seed that
only means something on a table (the zone's size on the board, ``OZ.Display.B``) and the
project's composition rules (``BF.*``, not in the source text: where the two parts meet).
Each ``BF.*`` section names the seed clauses it implements (``RuleSection.implements``); every
citation of it brings theirs.
:data:`CATALOG` lists all three sets, so ``GET /rulesets/battlefield`` documents every section
a ruling of this ruleset may cite. Summaries are our own words.
"""

from __future__ import annotations

from app.rules.catalog import Catalog, Interpretation, RuleSection, RulesText
from app.rules.objective_zones.catalog import CATALOG as OZ_CATALOG
from app.rules.objective_zones.catalog import INTERPRETATIONS as OZ_INTERPRETATIONS
from app.rules.terrain.catalog import CATALOG as TERRAIN_CATALOG
from app.rules.terrain.catalog import INTERPRETATIONS as TERRAIN_INTERPRETATIONS

RULESET_ID = "battlefield"
SOURCE = "seed 003 (measured horse-and-musket rules): objective zones and terrain on one table"
PROJECT = "project rule (not in the source text): how the two parts of seed 003 meet"

OWN_SECTIONS: tuple[RuleSection, ...] = (
    RuleSection(
        id="OZ.Display.B",
        title="Zone size on the table",
        summary="A zone's outline on the table is drawn to fit the ground, in any shape; the "
        "text suggests largest diameters by class (A-B 150-250 yards, C 200-400, D-E 250-500, "
        "F 250-400 wide and 150-200 deep).",
        source=SOURCE,
    ),
    RuleSection(
        id="BF.Table",
        title="One measured table",
        summary="Terrain features and objective zones are areas on the same table measured in "
        "yards; units stand at points; a unit inside a zone other than Class A is on the "
        "zone's display, not on the table.",
        source=PROJECT,
        implements=("OZ.Display", "OZ.Display.B"),
    ),
    RuleSection(
        id="BF.Enter",
        title="Crossing a zone's border",
        summary="A move whose path crosses into a zone ends there: the terrain rules measure "
        "it up to the border, then the unit enters the zone (garrison or In-Transit). Friendly "
        "troops may pass through a Class A zone their side holds or nobody holds.",
        source=PROJECT,
        implements=("OZ.Display", "OZ.Capacity", "OZ.Trafficability", "OZ.Class"),
    ),
    RuleSection(
        id="BF.Leave",
        title="Leaving a zone onto the table",
        summary="A unit leaving a zone starts its move at a point of the zone's border; "
        "cavalry and artillery start it where a road crosses the border when the zone has a "
        "road exit; the terrain rules judge the rest of the path.",
        source=PROJECT,
        implements=("OZ.Trafficability",),
    ),
    RuleSection(
        id="BF.Charge",
        title="Charging into a zone",
        summary="A charge whose path ends in a zone held by the enemy is the declaration of an "
        "assault on that zone; further charges of the same side into it join that assault.",
        source=PROJECT,
        implements=("OZ.Assault.A", "OZ.Basic.B"),
    ),
    RuleSection(
        id="BF.Range",
        title="Artillery ranges and kill zones on the table",
        summary="Gun ranges and kill-zone widths are scenario data. Artillery firing at a zone "
        "from outside it (a bombardment, or a battery supporting an assault on it) is measured "
        "to the nearest point of its border; woods on the line stop its kill zone.",
        source=PROJECT,
        implements=("OZ.Basic.G",),
    ),
    RuleSection(
        id="BF.KillZone",
        title="A garrison battery's kill zone on the table",
        summary="A garrison battery's kill zone starts at a point of its zone's border, reaches "
        "as far as the scenario's gun range and is stopped by woods on its line.",
        source=PROJECT,
        implements=("OZ.Basic.E",),
    ),
    RuleSection(
        id="BF.Posture",
        title="Unit posture",
        summary="Each unit is Holding or Advancing, and Engaged while locked in a melee. A "
        "move or charge makes a unit Advancing, a hold order makes it Holding, a melee result "
        "makes it Engaged.",
        source=PROJECT,
        implements=("A.47",),
    ),
)

OWN_IDS: tuple[str, ...] = tuple(s.id for s in OWN_SECTIONS)
OWN = Catalog(RULESET_ID, OWN_SECTIONS)
CATALOG = Catalog(
    RULESET_ID,
    # A.36 is in both parts (terrain: capacities; zones: a fort fought as a zone): one entry
    list({s.id: s for s in [*OWN_SECTIONS, *TERRAIN_CATALOG, *OZ_CATALOG]}.values()),
)

OWN_INTERPRETATIONS: tuple[Interpretation, ...] = (
    Interpretation(
        id="bf.zone-diameter",
        question="What is a zone's 'diameter' for the suggested sizes?",
        reading="The longer side of the smallest rectangle around the outline (for Class F "
        "its width; the shorter side is its depth). Sizes are guidance: a finding, never a "
        "refusal.",
        alternative="(no option: guidance only)",
        option=None,
        sections=("OZ.Display.B",),
    ),
    Interpretation(
        id="bf.road-exit",
        question="Where is a zone's road exit on the table?",
        reading="Where a road feature crosses the zone's border; a unit leaves by it when its "
        "first point lies on the border inside the road's area.",
        alternative="(no option)",
        option=None,
        sections=("OZ.Trafficability", "BF.Leave"),
    ),
    Interpretation(
        id="bf.road-exit-kill-zone",
        question="A garrison battery's kill zone must include part of a road exit 'if "
        "possible': is that enforced?",
        reading="No: when the zone has a road exit and the kill zone misses it, the ruling "
        "notes it (an effect), since whether another kill zone was possible is the players' "
        "call.",
        alternative="A kill zone that misses the zone's road exit is refused.",
        option="road_exit_kill_zone",
        sections=("OZ.Basic.E",),
    ),
    Interpretation(
        id="bf.class-a-move-within",
        question="Does a Class A garrison whose move stays inside its zone leave the zone?",
        reading="No: a unit leaves a zone by crossing its border. A Class A garrison stands on "
        "the table and may move about inside the outline keeping its post (box and sector); "
        "the move is judged on the table only, with no trafficability check. An engaged one "
        "is refused: it can only withdraw.",
        alternative="Any move of a Class A garrison leaves the zone: a path that stays inside "
        "the outline leaves it where it ends (trafficability applies), and the unit stands "
        "in the outline without garrisoning it.",
        option="class_a_move_within",
        sections=("BF.Leave", "OZ.Display", "OZ.Trafficability"),
    ),
    Interpretation(
        id="bf.counter-charge-contact",
        question="When is a charge on the table 'at' the attackers of a zone (OZ.Assault.A)?",
        reading="When its path comes within contact reach of an attacking unit (half the two "
        "frontages, at least the table's edge tolerance), where that unit stands or anywhere "
        "along the charge it declared: meeting the attackers' charge is counter-charging it.",
        alternative="(no option: how a charge meets a unit on the table)",
        option=None,
        sections=("OZ.Assault.A", "BF.Charge"),
    ),
    Interpretation(
        id="bf.move-advances",
        question="Which orders make a unit stop Holding?",
        reading="Any move or charge makes the unit Advancing until a hold order.",
        alternative="(no option)",
        option=None,
        sections=("A.47", "BF.Posture"),
    ),
)

INTERPRETATIONS: tuple[Interpretation, ...] = (
    *OWN_INTERPRETATIONS,
    *OZ_INTERPRETATIONS,
    *TERRAIN_INTERPRETATIONS,
)
INTERPRETATION_BY_ID = {i.id: i for i in INTERPRETATIONS}

TEXT = RulesText(SOURCE, CATALOG, INTERPRETATIONS)
"""What the ruleset rules from (``Ruleset.text``)."""
