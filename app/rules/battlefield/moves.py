"""Moves and charges on the table that meet zones (BF.Enter, BF.Leave, BF.Charge).

A path is judged in three parts, each by the rules that own it: leaving a zone (the
objective-zone exit rules, from a point of its border), the stretch on the table (the terrain
rules, measured up to the border of the zone it enters) and entering a zone (garrison or
In-Transit) or, for a charge, declaring or joining the assault on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shapely.geometry import LineString, Point
from shapely.ops import substring

from app.rules.battlefield.models import (
    EDGE_TOLERANCE,
    Board,
    Charge,
    Hold,
    Move,
    MoveOutcome,
    State,
)
from app.rules.battlefield.models import Point as XY
from app.rules.battlefield.table import (
    WOODS,
    Ctx,
    at_road_exit,
    off_table,
    on_border,
    outline,
    outlines,
    table_unit,
    table_view,
    zone_unit,
)
from app.rules.dispatch import NoOutcome
from app.rules.judgement import Problem
from app.rules.objective_zones import models as oz
from app.rules.objective_zones.assault import counter_charge_problem
from app.rules.objective_zones.checks import castings_problem
from app.rules.objective_zones.ruleset import ObjectiveZonesRuleset
from app.rules.objective_zones.zones import garrison
from app.rules.ruling import Ruling
from app.rules.terrain import models as tr
from app.rules.terrain.cover import cover_answer, cover_features
from app.rules.terrain.geometry import TOLERANCE, pieces
from app.rules.terrain.ground import PROLONGE_CAP
from app.rules.terrain.ruleset import TerrainRuleset

TERRAIN = TerrainRuleset()
ZONES = ObjectiveZonesRuleset()


def unit_names(j: Ctx, action: Move | Charge | Hold) -> Problem | None:
    """``Kind.names``: the unit the action names is not on the table."""
    unit = table_unit(j.state, action.unit)
    if unit is not None and not unit.destroyed:
        return None
    return Problem(
        "bf.unknown_unit", f"there is no unit {action.unit!r}", ["BF.Table"], unit=action.unit
    )


def _leave(
    j: Ctx, unit: tr.Unit, zunit: oz.Unit, path: Sequence[XY], charge: bool
) -> tuple[tr.Unit, list[XY]] | None:
    """Judge leaving ``zunit.zone``; return the unit placed where its table path starts and
    the waypoints still to judge, or None when leaving is refused."""
    assert zunit.zone is not None
    zone = j.board.zones.zones[zunit.zone]
    shape = outline(j.board, zone.id)
    j.cite("BF.Leave")
    if zone.zone_class == "A":
        start, rest = unit.at, list(path)
        line = LineString([unit.at, *path])
        inside = pieces(line, shape)
        exit_at = line.interpolate(inside[0].end) if inside else Point(unit.at)
        exit_point: XY = (exit_at.x, exit_at.y)
    else:
        start, rest = path[0], list(path[1:])
        exit_point = start
        if not on_border(shape, start):
            j.reject(
                "bf.not_on_border",
                f"{unit.id} leaves {zone.id} from a point of its "
                "border: the path's first point is not on it",
                ["BF.Leave"],
                unit=unit.id,
                details={"zone": zone.id},
            )
            return None
        if not rest:
            j.reject(
                "bf.no_path",
                f"{unit.id} names no point beyond {zone.id}'s border",
                ["BF.Leave"],
                unit=unit.id,
            )
            return None
    by_road = False
    if zunit.type in ("cavalry", "artillery") and zone.road:
        j.rely("bf.road-exit")
        by_road = at_road_exit(j.board.table.features, shape, exit_point)
    zstate = j.state.zones
    if charge:  # leaving as part of a charge (OZ.Trafficability): judged as a move out
        zstate = zstate.model_copy(update={"phase": "movement"})
    ruling = ZONES.adjudicate(
        j.board.zones, zstate, oz.ExitZone(unit=unit.id, by_road=by_road), j.options.zones()
    )
    j.take(ruling, "zone_exit")
    if not ruling.legal:
        return None
    j.details["left"] = zone.id
    return unit.model_copy(update={"at": (float(start[0]), float(start[1]))}), rest


def _keeps_post(j: Ctx, unit: tr.Unit, zunit: oz.Unit, path: Sequence[XY]) -> bool:
    """Whether a Class A garrison's path stays inside its zone and so does not leave it
    (interpretation ``bf.class-a-move-within``; an engaged one is refused: it can only
    withdraw). False for every other move out of a zone, which :func:`_leave` judges."""
    assert zunit.zone is not None
    zid = zunit.zone
    if j.board.zones.zones[zid].zone_class != "A":
        return False
    if not outline(j.board, zid).covers(LineString([unit.at, *path])):
        return False
    j.rely("bf.class-a-move-within")
    if j.options.class_a_move_within == "leaves":
        return False
    j.cite("BF.Leave")
    if zunit.engaged:
        j.reject(
            "oz.engaged",
            f"{unit.id} is engaged in {zid}: it can only withdraw",
            ["OZ.PostMelee.D.4"],
            unit=unit.id,
            details={"zone": zid},
        )
        return False
    return True


def _turn_budget(j: Ctx, unit: tr.Unit, details: dict[str, Any]) -> None:
    """Allowance and prolonge are per turn: add this move to what the unit has already spent
    in this player turn (T.Scenario, A.45)."""
    spent = j.state.moved.get(unit.id, 0.0)
    cost = float(details.get("cost", 0.0))
    j.details["spent"] = round(spent + cost, 2)
    if spent > 0:
        j.cite("T.Scenario")
        if spent + cost > unit.movement + TOLERANCE:
            j.reject(
                "bf.allowance_spent",
                f"{unit.id} already moved {spent:g} yards this "
                f"turn; {cost:g} more exceeds its {unit.movement:g}",
                ["T.Scenario"],
                unit=unit.id,
                details={"spent": spent, "cost": cost, "allowance": unit.movement},
            )
    if unit.type != "artillery" or unit.limbered:
        return
    woods = {f.id for f in j.board.table.features if f.kind in WOODS}
    into = sum(y for fid, y in details.get("yards_by_feature", {}).items() if fid in woods)
    if into <= TOLERANCE:
        return
    before = j.state.prolonged.get(unit.id, 0.0)
    j.details["prolonged"] = round(before + into, 2)
    j.cite("A.45")
    if before + into > PROLONGE_CAP + TOLERANCE:
        j.reject(
            "bf.prolonge_spent",
            f"{unit.id} was prolonged {before:g} yards into woods "
            f"this turn; {into:g} more exceeds 20",
            ["A.45"],
            unit=unit.id,
            details={"prolonged": before, "more": into},
        )


def _zone_entered(j: Ctx, line: LineString, leaving: str | None) -> tuple[str, float] | None:
    """The first zone the path crosses into (id, yards along the path); a Class A zone only
    when the path ends in it. The zone the unit leaves counts too when the path goes back into
    it (a Class A garrison stands inside it: the stretch it walks out of does not count)."""
    end = Point(line.coords[-1])
    best: tuple[str, float] | None = None
    for zid, shape in outlines(j.board).items():
        parts = pieces(line, shape)
        walks_out = zid == leaving and j.board.zones.zones[zid].zone_class == "A"
        if walks_out and parts and parts[0].start <= TOLERANCE:
            parts = parts[1:]
        if not parts:
            continue
        if j.board.zones.zones[zid].zone_class == "A" and not shape.covers(end):
            continue
        if best is None or parts[0].start < best[1]:
            best = (zid, parts[0].start)
    return best


def _a_zones_crossed(j: Ctx, unit: tr.Unit, line: LineString) -> tuple[list[str], list[str]]:
    """The Class A zones the path runs through: (held by the enemy, not held by the enemy)."""
    enemy, other = [], []
    for zid, shape in outlines(j.board).items():
        if j.board.zones.zones[zid].zone_class != "A" or not pieces(line, shape):
            continue
        if any(u.side != unit.side for u in garrison(j.state.zones, zid)):
            enemy.append(zid)
        else:
            other.append(zid)
    return enemy, other


def _table_line(
    j: Ctx, unit: tr.Unit, zunit: oz.Unit | None, path: Sequence[XY]
) -> LineString | Point:
    """The charge's line on the table: from a zone other than Class A it starts at the
    border point the path leaves by; otherwise at the unit."""
    start = unit.at
    if zunit is not None and zunit.zone is not None and unit.id in off_table(j.board, j.state):
        start, path = path[0], path[1:]
    pts = [start, *path]
    return LineString(pts) if len(pts) > 1 else Point(start)


def _counter_charge(
    j: Ctx, unit: tr.Unit, zunit: oz.Unit | None, path: Sequence[XY]
) -> list[Problem]:
    """OZ.Assault.A on the table: the defender of a zone may not counter-charge the units
    assaulting it this turn. A charge is at an attacker when its path comes within contact
    reach of it, where it stands or along its declared charge (``bf.counter-charge-contact``);
    who counts as the defender is ``oz.counter-charge-scope``."""
    zstate = j.state.zones
    assaults = [a for a in zstate.assaults if a.turn == zstate.turn and a.defender == unit.side]
    found: list[Problem] = []
    if not assaults:
        return found
    line = _table_line(j, unit, zunit, path)
    charges = {c.unit: c for c in j.state.table.charges}
    for assault in assaults:
        for tid in assault.units:
            target = table_unit(j.state, tid)
            if target is None or target.destroyed:
                continue
            declared = charges.get(tid)
            route = [target.at, *(declared.path if declared is not None else [])]
            reach = max(EDGE_TOLERANCE, (unit.frontage + target.frontage) / 2)
            where = LineString(route) if len(route) > 1 else Point(target.at)
            if line.distance(where) > reach:
                continue
            j.rely("bf.counter-charge-contact")
            zone = zunit.zone if zunit is not None else None
            p = counter_charge_problem(j, j.options, assault, unit.id, zone, tid)
            if p is not None:
                found.append(p)
    return found


def charge_bans(j: Ctx, action: Charge) -> list[Problem]:
    """``Kind.despite_phase`` of a charge, cited before its phase's refusal: the
    counter-charge ban is the assault rule's, not the sequence's."""
    unit = table_unit(j.state, action.unit)
    assert unit is not None
    return _counter_charge(j, unit, zone_unit(j.state, action.unit), action.path)


def _move(j: Ctx, action: Move | Charge) -> str:
    """Judge a move or a charge; return the summary of a legal one."""
    charge = isinstance(action, Charge)
    if (p := unit_names(j, action)) is not None:
        j.reject_problem(p)
        return ""
    unit = table_unit(j.state, action.unit)
    assert unit is not None
    zunit = zone_unit(j.state, action.unit)
    if isinstance(action, Charge):
        for p in charge_bans(j, action):
            j.reject_problem(p)
    j.cite("BF.Table")
    path: list[XY] = list(action.path)
    leaving = zunit.zone if zunit is not None else None
    before = len(j.violations)  # a counter-charge refused above: the leaving is judged too
    if zunit is not None and zunit.zone is not None and not _keeps_post(j, unit, zunit, path):
        if len(j.violations) > before:
            return ""
        left = _leave(j, unit, zunit, path, charge)
        if left is None:
            return ""
        unit, path = left
    line = LineString([unit.at, *path])
    entered = _zone_entered(j, line, leaving)
    enemy_a, passable_a = _a_zones_crossed(j, unit, line)
    if any(zid != leaving and (entered is None or entered[0] != zid) for zid in passable_a):
        j.cite("BF.Enter")  # friends pass through a Class A zone the enemy does not hold
    for zid in enemy_a:
        if entered is None or entered[0] != zid:
            j.reject(
                "bf.enemy_zone_in_path",
                f"{unit.id} cannot pass through {zid}: the enemy holds it",
                ["OZ.Class", "BF.Enter"],
                unit=unit.id,
                details={"zone": zid},
            )
    on_table_path = line
    if entered is not None:
        zid, at = entered
        j.cite("BF.Enter")
        shape = outline(j.board, zid)
        if not shape.covers(Point(line.coords[-1])):
            j.reject(
                "bf.through_zone",
                f"{unit.id} enters {zid} on the way: a move that "
                "crosses a zone's border ends in it",
                ["BF.Enter"],
                unit=unit.id,
                details={"zone": zid},
            )
        if j.board.zones.zones[zid].zone_class != "A":
            on_table_path = substring(line, 0, at)
        if zunit is None:
            j.reject(
                "bf.not_a_zone_unit",
                f"{unit.id} is a {unit.type}: only battalions and batteries enter zones",
                ["OZ.Capacity", "BF.Enter"],
                unit=unit.id,
            )
    end = on_table_path.coords[-1]
    j.details["end"] = [round(end[0], 3), round(end[1], 3)]
    if on_table_path.length > TOLERANCE:
        waypoints = [tuple(p) for p in list(on_table_path.coords)[1:]]
        view = table_view(j.board, j.state, unit)
        taction: Any = (tr.DeclareCharge if charge else tr.Move)(unit=unit.id, path=waypoints)
        dice = list(j.dice)
        ruling = TERRAIN.adjudicate(j.board.table, view, taction, j.options.terrain(), dice)
        j.take(ruling, "terrain")
        if ruling.legal and not charge:
            _turn_budget(j, unit, ruling.details)
        if "destroyed_at" in ruling.details:
            j.details["destroyed_at"] = ruling.details["destroyed_at"]
            entered = None
    if j.refused:
        return ""
    if entered is not None and zunit is not None:
        _enter(j, zunit, entered[0], action, charge)
    j.rely("bf.move-advances")
    j.cite("BF.Posture")
    target = f" into {entered[0]}" if entered else ""
    return f"{unit.id} {'charges' if charge else 'moves'}{target}"


def _enter(j: Ctx, zunit: oz.Unit, zid: str, action: Move | Charge, charge: bool) -> None:
    zstate = j.state.zones
    if "left" in j.details:  # judged as if already out of the zone it leaves
        units = [
            u.model_copy(update={"zone": None, "at": "board", "sector": None})
            if u.id == zunit.id
            else u
            for u in zstate.units
        ]
        zstate = zstate.model_copy(update={"units": units})
    opts = j.options.zones()
    if not charge:
        assert isinstance(action, Move)
        ruling = ZONES.adjudicate(
            j.board.zones, zstate, oz.EnterZone(unit=zunit.id, zone=zid, sector=action.sector), opts
        )
        j.take(ruling, "zone_enter")
        return
    j.cite("BF.Charge")
    pending = next((a for a in zstate.assaults if a.zone == zid and a.turn == zstate.turn), None)
    if pending is not None and pending.attacker == zunit.side:
        # OZ.Assault.A, OZ.Assault.C: a unit with no castings left joins no assault (a guard;
        # a declaration is the zone part's own judge_declare, which refuses it the same way)
        if (p := castings_problem(zunit, "OZ.Assault.A", "BF.Charge")) is not None:
            j.reject_problem(p)
            return
        j.effect(
            "bf.joins_assault",
            f"{zunit.id} joins the assault on {zid}",
            ["OZ.Assault.A", "BF.Charge"],
            unit=zunit.id,
            details={"zone": zid},
        )
        j.details["joins"] = zid
        return
    ruling = ZONES.adjudicate(
        j.board.zones, zstate, oz.DeclareAssault(zone=zid, units=[zunit.id]), opts
    )
    j.take(ruling, "assault")


def _hold(j: Ctx, action: Hold) -> str:
    if (p := unit_names(j, action)) is not None:
        j.reject_problem(p)
        return ""
    unit = table_unit(j.state, action.unit)
    assert unit is not None
    j.effect(
        "bf.posture",
        f"{unit.id} is {action.posture}",
        ["BF.Posture", "A.47"],
        unit=unit.id,
        details={"posture": action.posture},
    )
    return f"{unit.id} is ordered {action.posture}"


def judge_move(j: Ctx, action: Move | Charge) -> Ruling:
    return j.finish(_move(j, action))


def judge_hold(j: Ctx, action: Hold) -> Ruling:
    return j.finish(_hold(j, action))


# -- application ------------------------------------------------------------------------


def apply_move(board: Board, state: State, action: Move | Charge, out: MoveOutcome) -> State:
    uid = action.unit
    zstate = state.zones.model_copy(deep=True)
    zunits = {u.id: u for u in zstate.units}
    table_units = []
    for u in state.table.units:
        if u.id == uid:
            if isinstance(action, Charge):
                u = u.model_copy()
            elif out.destroyed_at is not None:
                u = u.model_copy(update={"at": tuple(out.destroyed_at), "destroyed": True})
            else:
                u = u.model_copy(update={"at": tuple(out.end)})
        table_units.append(u)
    zu = zunits.get(uid)
    if zu is not None and out.left is not None and not isinstance(action, Charge):
        zu.zone, zu.at, zu.sector, zu.entered_turn = None, "board", None, None
    if zu is not None and out.zone_enter is not None:
        entry = out.zone_enter
        zu.zone, zu.at, zu.sector = entry.zone, entry.at, entry.sector
        zu.entered_turn = zstate.turn
    if out.destroyed_at is not None and zu is not None:
        zstate.units = [u for u in zstate.units if u.id != uid]
        zstate.removed = [*zstate.removed, uid]
    charges = list(state.table.charges)
    if isinstance(action, Charge):
        charges = [c for c in charges if c.unit != uid]
        charges.append(tr.Charge(unit=uid, path=list(action.path)))
        if out.assault is not None:
            zstate.assaults.append(
                oz.Assault(
                    zone=out.assault.zone,
                    attacker=zunits[uid].side,
                    defender=out.assault.defender,
                    units=[uid],
                    turn=zstate.turn,
                )
            )
        if out.joins is not None:
            for a in zstate.assaults:
                if a.zone == out.joins and a.turn == zstate.turn:
                    a.units.append(uid)
    table = state.table.model_copy(update={"units": table_units, "charges": charges})
    postures = {**state.postures, uid: "advancing"}
    moved = dict(state.moved)
    prolonged = dict(state.prolonged)
    if out.spent is not None:
        moved[uid] = out.spent
    if out.prolonged is not None:
        prolonged[uid] = out.prolonged
    return State(table=table, zones=zstate, postures=postures, moved=moved, prolonged=prolonged)


def apply_hold(board: Board, state: State, action: Hold, out: NoOutcome) -> State:
    postures = {**state.postures, action.unit: action.posture}
    return state.model_copy(update={"postures": postures}, deep=True)


def cover_of(j: Ctx, uid: str) -> dict[str, Any]:
    """The cover a unit has now, as terrain answers it (``app.rules.terrain.cover``: protective
    cover counts in a melee only while Holding, A.47; prepared earthworks do not depend on
    posture, A.41), plus the zone's: a garrison of a zone other than Class A is sheltered
    (OZ.Capacity: In-Transit troops are on the road, void of cover; a Class A zone has no
    defensive works, OZ.Class); an engaged unit gets no cover in the melee."""
    unit = table_unit(j.state, uid)
    zunit = zone_unit(j.state, uid)
    if unit is None:
        raise KeyError(uid)
    posture = j.state.postures.get(uid, "holding")
    engaged = bool(zunit and zunit.engaged)
    found: dict[str, list[str]] = {"protective": [], "earthworks": []}
    if uid not in off_table(j.board, j.state):
        found = cover_features(j.board.table, unit, j.options.terrain())
    zone_cover = bool(
        zunit
        and zunit.zone
        and zunit.at == "garrison"
        and j.board.zones.zones[zunit.zone].zone_class != "A"
    )
    j.cite("A.47", "BF.Posture")
    zone = j.board.zones.zones[zunit.zone] if zunit is not None and zunit.zone else None
    if zone is not None and zone.zone_class == "A":
        j.cite("OZ.Class")  # an open objective: no defensive works, no zone cover
    elif zone is not None:
        j.cite("OZ.Capacity")  # the garrison is sheltered; In-Transit troops are on the road
    answer = cover_answer(
        j,
        uid,
        "engaged" if engaged else posture,
        found,
        holding=posture == "holding" and not engaged,
        extra_cover=zone_cover,
    )
    j.rely("bf.move-advances")
    return {
        **{k: answer[k] for k in ("unit", "posture", "features", "earthworks")},
        "zone_garrison": zone_cover,
        **{k: answer[k] for k in ("in_cover", "cover_in_melee")},
    }
