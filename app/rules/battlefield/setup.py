"""Scenario -> board + state: the table and the zones each built by their own part, then
checked together (zones on the table, units inside outlines, road exits)."""

from __future__ import annotations

from pydantic import ValidationError
from shapely.geometry import Point, Polygon

from app.rules.base import InvalidScenario
from app.rules.battlefield.models import (
    EDGE_TOLERANCE,
    Board,
    Options,
    Scenario,
    State,
    UnitSpec,
)
from app.rules.battlefield.table import SOURCES, road_exit
from app.rules.judgement import Judgement
from app.rules.objective_zones import models as oz
from app.rules.objective_zones.setup import build as build_zones
from app.rules.terrain import models as tr
from app.rules.terrain.setup import build as build_table
from app.rules.terrain.setup import placed_unit

ZONE_TYPES = frozenset({"infantry", "cavalry", "artillery"})


def _take(check: Judgement, exc: InvalidScenario, unit_index: list[int]) -> None:
    """Fold a part's scenario problems into ``check``, their unit locations mapped back from
    the part's unit list to the battlefield scenario's (zones and features map one to one)."""
    for err in exc.errors:
        loc = list(err.get("loc", ()))
        if len(loc) > 1 and loc[0] == "units" and isinstance(loc[1], int):
            loc[1] = unit_index[loc[1]]
        check.adopt(err, loc)


TABLE_FIELDS = ("id", "side", "type", "order", "limbered", "mounted", "movement", "frontage")
"""What a unit's entry in the terrain part copies from its battlefield entry (with a point)."""

ZONE_FIELDS = (
    *("id", "side", "type", "grade", "men", "sections"),
    *("zone", "sector", "entered_turn", "engaged"),
)
"""What a unit's entry in the objective-zone part copies from its battlefield entry (with
its box: ``board`` when it names none)."""


def table_spec(u: UnitSpec, at: tuple[float, float]) -> tr.UnitSpec:
    """The terrain part's scenario entry of a battlefield unit standing at ``at``."""
    return tr.UnitSpec(**{f: getattr(u, f) for f in TABLE_FIELDS}, at=at)


def zone_spec(u: UnitSpec) -> oz.UnitSpec:
    """The objective-zone part's scenario entry of a battlefield unit."""
    return oz.UnitSpec(**{f: getattr(u, f) for f in ZONE_FIELDS}, at=u.box or "board")


def build(scenario: Scenario, options: Options) -> tuple[Board, State]:
    """Build both parts; a value one part's own schema refuses (e.g. a side id the zone part
    does not accept) is an :class:`InvalidScenario` too, never an unhandled error."""
    try:
        return _build(scenario, options)
    except ValidationError as exc:
        check = Judgement(SOURCES)
        for e in exc.errors(include_url=False):
            check.invalid(
                ["part", exc.title, *e["loc"]],
                str(e["msg"]),
                "BF.Table",
                code="battlefield.scenario.part_refuses",
            )
        raise check.invalid_scenario("a part of the battlefield refuses the scenario") from None


def _build(scenario: Scenario, options: Options) -> tuple[Board, State]:
    check = Judgement(SOURCES)
    shapes: dict[str, Polygon] = {}
    for i, z in enumerate(scenario.zones):
        shape = Polygon(z.polygon)
        if not shape.is_valid or shape.area <= 0:
            check.invalid(["zones", i, "polygon"], "not a valid area", "BF.Table")
            continue
        for other, prior in shapes.items():
            if shape.intersection(prior).area > 1e-6:
                check.invalid(
                    ["zones", i, "polygon"],
                    f"zone {z.id} overlaps zone {other}",
                    "BF.Table",
                    code="battlefield.scenario.zones_overlap",
                )
        shapes[z.id] = shape
    for i, z in enumerate(scenario.zones):
        for other in z.adjacent:
            if (
                z.id in shapes
                and other in shapes
                and shapes[z.id].distance(shapes[other]) > EDGE_TOLERANCE
            ):
                check.invalid(
                    ["zones", i, "adjacent"],
                    f"zone {z.id} does not touch its neighbour {other}",
                    "BF.Table",
                    code="battlefield.scenario.zones_apart",
                )
    classes = {z.id: z.zone_class for z in scenario.zones}
    on_table: list[tr.UnitSpec] = []
    table_index: list[int] = []
    for i, u in enumerate(scenario.units):
        if u.at is not None:
            inside = [zid for zid, s in shapes.items() if s.contains(Point(u.at))]
            if u.zone is None and any(classes[z] != "A" for z in inside):
                check.invalid(
                    ["units", i, "at"],
                    f"{u.id} stands inside zone {inside[0]}: give its zone",
                    "BF.Table",
                    code="battlefield.scenario.zone_missing",
                )
        # OZ.Display, BF.Table: a Class A garrison stays on the table, inside its zone (on
        # the outline, within EDGE_TOLERANCE, counts as inside)
        if (
            u.at is not None
            and u.zone in shapes
            and classes.get(u.zone) == "A"
            and shapes[u.zone].distance(Point(u.at)) > EDGE_TOLERANCE
        ):
            check.invalid(
                ["units", i, "at"],
                f"{u.id} is in Class A zone {u.zone} but stands "
                f"{shapes[u.zone].distance(Point(u.at)):.1f} yards outside its outline: "
                "give a point inside the zone",
                "BF.Table",
                "OZ.Display",
                code="battlefield.scenario.class_a_outside",
            )
        if u.zone is not None and u.type not in ZONE_TYPES:
            check.invalid(
                ["units", i, "type"],
                "only battalions and batteries enter zones",
                "OZ.Capacity",
                code="battlefield.scenario.unit_type_in_zone",
            )
        if u.at is not None and (u.zone is None or classes.get(u.zone) == "A"):
            table_index.append(i)
            on_table.append(table_spec(u, u.at))
    table_scenario = tr.Scenario(
        title=scenario.title,
        layout=scenario.layout,
        table=scenario.table,
        sides=[tr.Side(id=s.id, label=s.label) for s in scenario.sides],
        features=scenario.features,
        units=on_table,
        movement_defaults=scenario.movement_defaults,
    )
    try:
        table_board, table_state = build_table(table_scenario, options.terrain())
    except InvalidScenario as exc:
        _take(check, exc, table_index)
        table_board, table_state = None, None
    zone_specs = [
        oz.ZoneSpec.model_validate(
            {
                "id": z.id,
                "name": z.name,
                "class": z.zone_class,
                "fortifies": z.fortifies,
                "capacity": z.capacity,
                "adjacent": z.adjacent,
                "fort": z.fort,
                "road": z.id in shapes and road_exit(scenario.features, shapes[z.id]) is not None,
            }
        )
        for z in scenario.zones
    ]
    zone_units = [zone_spec(u) for u in scenario.units if u.type in ZONE_TYPES]
    try:
        zone_board, zone_state = build_zones(
            oz.Scenario(
                title=scenario.title,
                sides=[oz.SideSpec(id=s.id, label=s.label) for s in scenario.sides],
                zones=zone_specs,
                units=zone_units,
                melee_dice=scenario.melee_dice,
                casualties_per_hit=scenario.casualties_per_hit,
                battery_hit_level=scenario.battery_hit_level,
                morale_pass=scenario.morale_pass,
                default_morale_pass=scenario.default_morale_pass,
                melees=scenario.melees,
                morale_due=scenario.morale_due,
                turn=scenario.turn,
                phase=scenario.phase,
                phasing_side=scenario.phasing_side,
            ),
            options.zones(),
        )
    except InvalidScenario as exc:
        _take(check, exc, [i for i, u in enumerate(scenario.units) if u.type in ZONE_TYPES])
        zone_board, zone_state = None, None
    check.raise_if_refused("the battlefield scenario is inconsistent")
    assert table_board is not None and table_state is not None
    assert zone_board is not None and zone_state is not None
    # a unit on a zone's display keeps a point: where it would come back onto the table
    placed = {u.id for u in table_state.units}
    defaults = {**tr.DEFAULT_MOVEMENT, **scenario.movement_defaults}
    extra: list[tr.Unit] = []
    for u in scenario.units:
        if u.id in placed:
            continue
        point = shapes[u.zone].representative_point() if u.zone in shapes else None
        at = u.at or ((point.x, point.y) if point is not None else (0.0, 0.0))
        extra.append(placed_unit(table_spec(u, at), defaults))
    board = Board(
        title=scenario.title,
        options=options,
        table=table_board,
        zones=zone_board,
        outlines={z.id: list(z.polygon) for z in scenario.zones},
        artillery_range=scenario.artillery_range,
        kill_zone_width=scenario.kill_zone_width,
    )
    state = State(
        table=table_state.model_copy(update={"units": [*table_state.units, *extra]}),
        zones=zone_state,
        postures={u.id: u.posture for u in scenario.units},
    )
    return board, state
