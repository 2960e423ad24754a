"""Facts about zones that every rule family reads (OZ.Display, OZ.Basic.B): the per-ruling
judgement type, units by id, who holds which sector, contested or not, the gun load."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from app.rules.judgement import GameJudgement
from app.rules.memo import ByIdentity
from app.rules.objective_zones.catalog import CATALOG, INTERPRETATION_BY_ID
from app.rules.objective_zones.models import Assault, Board, Options, State, Unit, Zone

Ctx = GameJudgement[Board, State, Options]
"""One objective-zones judgement: the kit's bookkeeping and the game it judges."""


def judging(board: Board, state: State, options: Options, dice: Sequence[int] = ()) -> Ctx:
    """A fresh judgement of this game, citing the objective-zones catalog."""
    return GameJudgement(CATALOG, INTERPRETATION_BY_ID, board, state, options, dice)


_UNITS: ByIdentity[dict[str, Unit]] = ByIdentity(lambda state: {u.id: u for u in state.units})


def unit_named(state: State, uid: str) -> Unit | None:
    """The unit with this id, or None."""
    return _UNITS(state).get(uid)


def other_side(board: Board, side: str) -> str:
    """The board's other side (a loop: ``next()`` over a generator left unfinished costs an
    exception when the generator is closed)."""
    for s in board.sides:
        if s.id != side:
            return s.id
    raise StopIteration  # as next() did; a board's two sides are distinct (setup checks)


def rely_capacity(ctx: Ctx, zone: Zone) -> None:
    """A zone's capacity (and so its number of sectors, OZ.Assault.B.1) rests on a reading
    for Classes C and E (oz.class-c-capacity, oz.class-e-capacity)."""
    if zone.zone_class == "C":
        ctx.rely("oz.class-c-capacity")
    if zone.zone_class == "E":
        ctx.rely("oz.class-e-capacity")


def in_zone(state: State, zone: str) -> list[Unit]:
    return [u for u in state.units if u.zone == zone]


def garrison(state: State, zone: str, side: str | None = None) -> list[Unit]:
    return [
        u
        for u in state.units
        if u.zone == zone and u.at == "garrison" and (side is None or u.side == side)
    ]


def battalions(units: Iterable[Unit]) -> list[Unit]:
    """Units that count against troop capacity (everything but guns)."""
    return [u for u in units if u.type != "artillery"]


def sector_holders(state: State, zone: Zone) -> dict[int, set[str]]:
    """Sector -> sides with a garrison unit there."""
    out: dict[int, set[str]] = {n: set() for n in range(1, zone.capacity + 1)}
    for u in garrison(state, zone.id):
        if u.sector is not None and u.type != "artillery":
            out.setdefault(u.sector, set()).add(u.side)
    return out


def sector_status(state: State, zone: Zone) -> dict[int, str | None]:
    """Sector -> the side controlling it, ``"engaged"`` when both sides are in it (or its
    units are engaged), or None when empty."""
    out: dict[int, str | None] = {}
    engaged = {u.sector for u in garrison(state, zone.id) if u.engaged and u.type != "artillery"}
    for n, sides in sector_holders(state, zone).items():
        if len(sides) > 1 or (sides and n in engaged):
            out[n] = "engaged"
        elif sides:
            out[n] = next(iter(sides))
        else:
            out[n] = None
    return out


def contested(state: State, zone: Zone) -> tuple[bool, str | None]:
    """Whether the zone is contested (OZ.Basic.B), and why."""
    if any(a.zone == zone.id and a.turn == state.turn for a in state.assaults):
        return True, "assault"
    status = sector_status(state, zone)
    sides = {v for v in status.values() if v not in (None, "engaged")}
    if len(sides) > 1:
        return True, "split"
    if "engaged" in status.values():
        return True, "engaged"
    return False, None


def pending_assault(state: State, zone: str) -> Assault | None:
    for a in state.assaults:
        if a.zone == zone and a.turn == state.turn:
            return a
    return None


def gun_load(state: State, zone: Zone, options: Options, extra: Unit | None = None) -> int:
    """Guns in the garrison, counted as the gun limit counts (oz.gun-stand)."""
    guns = [u for u in garrison(state, zone.id) if u.type == "artillery"]
    if extra is not None:
        guns.append(extra)
    if zone.zone_class != "F" and options.artillery_limit_counts == "batteries":
        return len(guns)
    return sum(max(u.sections, 1) for u in guns)
