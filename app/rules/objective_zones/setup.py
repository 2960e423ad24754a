"""Setting up an objective-zones game (OZ.Scenario, OZ.Class, OZ.Capacity): the scenario
split into its board (zones with their class data) and its first state, every cross-reference
checked and every problem reported at once."""

from __future__ import annotations

from app.rules.judgement import Judgement
from app.rules.objective_zones.catalog import CATALOG
from app.rules.objective_zones.models import (
    CAPACITY,
    DEFAULT_GRADE_MORALE_PASS,
    TRAFFICABILITY,
    Board,
    Options,
    Scenario,
    State,
    Unit,
    Zone,
)
from app.rules.refs import UnitRefs, repeats


def build(scenario: Scenario, options: Options) -> tuple[Board, State]:
    """Scenario -> board + state, every cross-reference checked."""
    check = Judgement(CATALOG)
    sides = [s.id for s in scenario.sides]
    if repeats(sides):
        check.invalid(["sides"], "duplicate side id", "OZ.Scenario")
    zones: dict[str, Zone] = {}
    for i, z in enumerate(scenario.zones):
        if z.id in zones:
            check.invalid(["zones", i, "id"], f"duplicate zone {z.id}", "OZ.Scenario")
        cls = z.zone_class
        cap: int
        if cls == "C":
            cap = options.class_c_capacity
        elif cls == "E":
            cap = {"C": 2, "D": 3}[z.fortifies] if z.fortifies else options.class_e_capacity
        else:
            cap = CAPACITY[cls]
        zones[z.id] = Zone(
            id=z.id,
            name=z.name or z.id,
            zone_class=cls,
            capacity=z.capacity or cap,
            trafficability=TRAFFICABILITY[cls],
            adjacent=list(z.adjacent),
            road=z.road,
            gun_limit=4 if cls == "F" else 2,
            fort=z.fort,
        )
        if z.fort and not (z.capacity is not None and 6 <= z.capacity <= 12):
            check.invalid(
                ["zones", i, "capacity"],
                "a whole large fort holds 6-12 stands (give its capacity)",
                "A.36",
                code="objective-zones.scenario.fort_capacity",
            )
    for i, z in enumerate(scenario.zones):
        for n in z.adjacent:
            if n not in {x.id for x in scenario.zones}:
                check.invalid(["zones", i, "adjacent"], f"unknown zone {n}", "OZ.Scenario")
    units: list[Unit] = []
    refs = UnitRefs(sides)
    for i, u in enumerate(scenario.units):
        loc: list[str | int] = ["units", i]
        if refs.duplicate(u.id):
            check.invalid([*loc, "id"], f"duplicate unit {u.id}", "OZ.Scenario")
        if refs.unknown_side(u.side):
            check.invalid([*loc, "side"], f"unknown side {u.side}", "OZ.Scenario")
        if u.type != "artillery" and u.grade not in scenario.melee_dice:
            check.invalid([*loc, "grade"], f"no melee dice for grade {u.grade}", "OZ.Scenario")
        if u.grade not in scenario.morale_pass and scenario.default_morale_pass is None:
            check.invalid(
                [*loc, "grade"],
                f"no morale pass mark for grade {u.grade}: add morale_pass.{u.grade} (the "
                "lowest passing d10 reading, 0-10) or a default_morale_pass",
                "OZ.Scenario",
                code="objective-zones.scenario.no_morale_pass",
            )
        # OZ.Scenario, OZ.Assault.C: a unit fights with its castings; one with none is gone
        if u.men < 1:
            check.invalid(
                [*loc, "men"],
                f"{u.id} has {u.men} castings: a unit on the table or in a zone has at least one",
                "OZ.Scenario",
                "OZ.Assault.C",
                code="objective-zones.scenario.no_castings",
            )
        if u.type == "artillery" and u.sections < 1:
            check.invalid([*loc, "sections"], "a battery needs firing sections", "OZ.Scenario")
        if (u.zone is None) != (u.at == "board"):
            check.invalid(
                [*loc, "at"],
                "a unit in a zone is in transit or garrison; one on the board names no zone",
                "OZ.Display",
            )
        elif u.zone is not None and u.zone not in zones:
            check.invalid([*loc, "zone"], f"unknown zone {u.zone}", "OZ.Scenario")
        elif u.zone is not None and u.at == "garrison" and u.type != "artillery":
            zone = zones[u.zone]
            if u.sector is None or u.sector > zone.capacity:
                check.invalid(
                    [*loc, "sector"], f"garrison sector must be 1-{zone.capacity}", "OZ.Capacity"
                )
        units.append(
            Unit(
                id=u.id,
                side=u.side,
                type=u.type,
                grade=u.grade,
                men=u.men,
                sections=u.sections,
                zone=u.zone,
                at=u.at,
                sector=u.sector if u.at == "garrison" and u.type != "artillery" else None,
                entered_turn=u.entered_turn if u.zone else None,
                engaged=u.engaged,
            )
        )
    for zid, side in scenario.melees.items():
        if zid not in zones or side not in sides:
            check.invalid(["melees", zid], "an unknown zone or side", "OZ.Scenario")
    for uid, cause in scenario.morale_due.items():
        if uid not in refs.seen or cause not in ("melee", "artillery"):
            check.invalid(["morale_due", uid], "an unknown unit or cause", "OZ.Scenario")
    phasing = scenario.phasing_side or sides[0]
    if phasing not in sides:
        check.invalid(["phasing_side"], f"unknown side {phasing}", "OZ.Scenario")
    check.raise_if_refused("the objective-zones scenario is inconsistent")
    board = Board(
        title=scenario.title,
        options=options,
        sides=list(scenario.sides),
        zones=zones,
        melee_dice=dict(scenario.melee_dice),
        casualties_per_hit=scenario.casualties_per_hit,
        battery_hit_level=scenario.battery_hit_level,
        morale_pass=dict(scenario.morale_pass),
        default_morale_pass=(
            DEFAULT_GRADE_MORALE_PASS
            if scenario.default_morale_pass is None
            else scenario.default_morale_pass
        ),
    )
    state = State(
        turn=scenario.turn,
        phase=scenario.phase,
        phasing_side=phasing,
        units=units,
        melees=dict(scenario.melees),
        morale_due=dict(scenario.morale_due),
    )
    return board, state
