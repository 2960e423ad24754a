"""Fire on the table that meets zones: musketry (line of sight, the zone ban), artillery at a
zone measured to its border, and a garrison battery's kill zone from the zone's border
(BF.Range, BF.KillZone; OZ.Basic.A, OZ.Basic.E, OZ.Basic.G; A.44, A.45)."""

from __future__ import annotations

from shapely.geometry import LineString, Point
from shapely.ops import nearest_points

from app.rules.battlefield.models import (
    Board,
    Bombard,
    BombardOutcome,
    Fire,
    GarrisonFire,
    State,
    Support,
)
from app.rules.battlefield.moves import TERRAIN, ZONES
from app.rules.battlefield.table import (
    Ctx,
    off_table,
    on_border,
    outline,
    road_exit,
    sync_table,
    table_unit,
    table_view,
    woods_on,
    zone_unit,
)
from app.rules.dispatch import NoOutcome
from app.rules.judgement import Problem
from app.rules.objective_zones import fire as oz_fire
from app.rules.objective_zones import models as oz
from app.rules.ruling import Ruling
from app.rules.terrain import models as tr


def _fire(j: Ctx, action: Fire) -> str:
    ruling = ZONES.adjudicate(
        j.board.zones,
        j.state.zones,
        oz.Musketry(unit=action.unit, target=action.target),
        j.options.zones(),
    )
    j.take(ruling, "zones")
    if not ruling.legal:
        return ""
    view = table_view(j.board, j.state)
    ruling = TERRAIN.adjudicate(
        j.board.table, view, tr.Fire(unit=action.unit, target=action.target), j.options.terrain()
    )
    j.take(ruling, "terrain")
    return f"{action.unit} may fire at {action.target}"


def _kill_zone(
    j: Ctx,
    unit: str,
    origin: tuple[float, float],
    target: tuple[float, float],
    section: str = "BF.Range",
) -> LineString:
    """Range and woods along the centre line of a kill zone: fire at a zone from outside
    (BF.Range) or a garrison battery's (BF.KillZone); woods A.44, A.45."""
    line = LineString([origin, target])
    j.cite(section)
    if line.length > j.board.artillery_range + 1e-6:
        j.reject(
            "bf.out_of_range",
            f"{unit} reaches {j.board.artillery_range:g} yards; the "
            f"target is {line.length:.0f} away",
            [section],
            unit=unit,
            details={"yards": round(line.length, 2), "range": j.board.artillery_range},
        )
    for fid, clause in woods_on(j.board, line):
        j.reject(
            "bf.kill_zone_blocked",
            f"{fid} stops {unit}'s kill zone",
            [clause, section],
            unit=unit,
            details={"feature": fid},
        )
    j.details["kill_zone"] = {
        "from": list(origin),
        "to": list(target),
        "yards": round(line.length, 2),
        "width": j.board.kill_zone_width,
    }
    return line


def _bombard(j: Ctx, action: Bombard) -> str:
    battery = table_unit(j.state, action.unit)
    zunit = zone_unit(j.state, action.unit)
    if (
        battery is not None
        and zunit is not None
        and action.zone in j.board.outlines
        and action.unit not in off_table(j.board, j.state)
        and zunit.zone is None
    ):
        shape = outline(j.board, action.zone)
        near = nearest_points(shape.exterior, Point(battery.at))[0]
        _kill_zone(j, battery.id, battery.at, (near.x, near.y))
        if j.refused:
            return ""
    ruling = ZONES.adjudicate(j.board.zones, j.state.zones, action, j.options.zones(), j.dice)
    j.take(ruling, "zones")
    return ruling.summary


def _garrison_fire(j: Ctx, action: GarrisonFire) -> str:
    ruling = ZONES.adjudicate(
        j.board.zones, j.state.zones, oz.GarrisonFire(unit=action.unit), j.options.zones()
    )
    j.take(ruling, "zones")
    if not ruling.legal:
        return ""
    zunit = zone_unit(j.state, action.unit)
    assert zunit is not None and zunit.zone is not None
    shape = outline(j.board, zunit.zone)
    if not on_border(shape, action.origin):
        j.reject(
            "bf.not_on_border",
            f"a garrison battery's kill zone starts on {zunit.zone}'s border",
            ["OZ.Basic.E", "BF.KillZone"],
            unit=action.unit,
        )
        return ""
    target = table_unit(j.state, action.target)
    if target is None or target.destroyed or target.id in off_table(j.board, j.state):
        j.reject(
            "bf.no_target", f"{action.target} is not on the table", ["BF.Table"], unit=action.target
        )
        return ""
    line = _kill_zone(j, action.unit, action.origin, target.at, "BF.KillZone")
    if j.refused:
        return ""
    exits = road_exit(j.board.table.features, shape)
    if exits is not None:
        band = line.buffer(j.board.kill_zone_width / 2, cap_style="flat")
        j.rely("bf.road-exit-kill-zone")
        if not band.intersects(exits):
            if j.options.road_exit_kill_zone == "required":
                j.reject(
                    "bf.road_exit_not_covered",
                    f"the kill zone must take in part of {zunit.zone}'s road exit",
                    ["OZ.Basic.E"],
                    unit=action.unit,
                )
                return ""
            j.effect(
                "bf.road_exit_not_covered",
                f"the kill zone misses {zunit.zone}'s road exit",
                ["OZ.Basic.E"],
                unit=action.unit,
                details={"zone": zunit.zone},
            )
    return f"{action.unit} fires from {zunit.zone}'s border at {action.target}"


def support_names(j: Ctx, action: Support) -> Problem | None:
    """``Kind.names`` of a support: a battery on the table, of the side that declared an
    assault on the zone this turn."""
    battery = table_unit(j.state, action.unit)
    zunit = zone_unit(j.state, action.unit)
    zstate = j.state.zones
    assault = next(
        (a for a in zstate.assaults if a.zone == action.zone and a.turn == zstate.turn), None
    )
    if battery is None or zunit is None or zunit.type != "artillery" or zunit.zone is not None:
        return Problem(
            "oz.bad_support",
            f"{action.unit} is not a battery on the table",
            ["OZ.Assault.B.5"],
            unit=action.unit,
        )
    if assault is None or assault.attacker != zunit.side:
        return Problem(
            "oz.no_assault",
            f"{zunit.side} declared no assault on {action.zone} this turn",
            ["OZ.Assault.A", "OZ.Assault.B.5"],
            unit=action.unit,
        )
    return None


def _support(j: Ctx, action: Support) -> str:
    """A battery on the table names itself as support of this turn's assault on a zone: the
    zone's border must be within its range and no woods between (BF.Range, OZ.Assault.B.5)."""
    if (p := support_names(j, action)) is not None:
        j.reject_problem(p)
        return ""
    battery = table_unit(j.state, action.unit)
    assert battery is not None
    shape = outline(j.board, action.zone)
    near = nearest_points(shape.exterior, Point(battery.at))[0]
    _kill_zone(j, battery.id, battery.at, (near.x, near.y))
    if j.refused:
        return ""
    j.rely("oz.support-secondary")
    j.effect(
        "oz.support_named",
        f"{battery.id} supports the assault on {action.zone}; no Secondary Fire for it this turn",
        ["OZ.Assault.B.5"],
        by=[battery.id],
        details={"zone": action.zone},
    )
    return f"{battery.id} supports the assault on {action.zone}"


def judge_fire(j: Ctx, action: Fire) -> Ruling:
    return j.finish(_fire(j, action))


def judge_bombard(j: Ctx, action: Bombard) -> Ruling:
    return j.finish(_bombard(j, action))


def judge_garrison_fire(j: Ctx, action: GarrisonFire) -> Ruling:
    return j.finish(_garrison_fire(j, action))


def judge_support(j: Ctx, action: Support) -> Ruling:
    return j.finish(_support(j, action))


# -- application ------------------------------------------------------------------------


def apply_bombard(board: Board, state: State, action: Bombard, out: BombardOutcome) -> State:
    """The zone part's losses; units it removed are gone from the table."""
    zones = oz_fire.apply_bombard(board.zones, state.zones, action, out.zones)
    return sync_table(board, state, zones)


def apply_support(board: Board, state: State, action: Support, out: NoOutcome) -> State:
    """The battery is named in this turn's assault on the zone (OZ.Assault.B.5)."""
    zones = state.zones.model_copy(deep=True)
    for a in zones.assaults:
        if a.zone == action.zone and a.turn == zones.turn:
            a.batteries.append(action.unit)
    return state.model_copy(update={"zones": zones})


def apply_nothing(board: Board, state: State, action: Fire | GarrisonFire, out: NoOutcome) -> State:
    """Fire that hits nobody the rules keep track of changes nothing."""
    return state.model_copy(deep=True)
