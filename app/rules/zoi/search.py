"""Rule 14 for the ``reachable`` query: a Pareto search over the hexes a unit can enter.

Each label is one way of reaching a hex: the movement points spent, the opportunity-fire chances
given the enemy on the way (14.opportunity.*), whether the unit had to stop (14.stop.*) and
whether every zone hex entered so far was a shift within the zone it started in (14.exit); a
label is kept unless another one reaching the same hex is at least as good on all four. The
steps are judged exactly as :class:`~app.rules.zoi.movement.Walk` judges a move of enter steps
(the tests compare both on generated games), but a label is a few fields and a pointer to its
parent instead of a copy of the walk, and what the search looks up is found once per hex:

* the board's adjacency once per board, the units by hex once per state;
* the enemy zone, the adjacent enemy carrés and the entry cost of a hex once per query, from the
  units in its six neighbours, so a query pays for the hexes it reaches, not for every unit;
* rule objects (citations, effects) are not built during the search: the answer lists the
  sections once, and a refused step is simply not taken.
"""

from __future__ import annotations

import heapq
from typing import Any

from app.rules.memo import ByIdentity
from app.rules.zoi.facing import front_directions
from app.rules.zoi.models import Unit, ZoiBoard, ZoiOptions, ZoiState
from app.rules.zoi.tables import UNLIMBERED
from app.rules.zoi.zones import Game, is_combat, is_foot, is_mounted

Fire = tuple[str, int, tuple[str, ...], str]
"""One opportunity-fire chance: hex, step, the units entitled to fire, reason."""

Neighbours = dict[str, tuple[tuple[int, str], ...]]


def _adjacency(board: ZoiBoard) -> Neighbours:
    layout = board.layout.layout()
    out: Neighbours = {}
    for hex_id in board.hexes:
        found = []
        for d in range(6):
            n = layout.neighbor(hex_id, d)
            if n is not None and n in board.hexes:
                found.append((d, n))
        out[hex_id] = tuple(found)
    return out


_ADJACENCY_OF: ByIdentity[Neighbours] = ByIdentity(_adjacency)


def adjacency(board: ZoiBoard) -> Neighbours:
    """Hex -> its on-map neighbours ``(direction, hex)`` in direction order, once per board."""
    return _ADJACENCY_OF(board)


def _units_by_hex(state: ZoiState) -> dict[str, tuple[Unit, ...]]:
    out: dict[str, list[Unit]] = {}
    for u in state.units:
        out.setdefault(u.hex, []).append(u)
    return {h: tuple(us) for h, us in out.items()}


_UNITS_OF: ByIdentity[dict[str, tuple[Unit, ...]]] = ByIdentity(_units_by_hex, maxsize=128)


class Label:
    """One Pareto-optimal way of reaching ``hex`` (its path through ``parent``)."""

    __slots__ = ("chances", "entered", "fire", "hex", "mp_spent", "parent", "slid_only", "stopped")

    def __init__(
        self,
        hex: str,
        mp_spent: int,
        chances: int,
        stopped: bool,
        slid_only: bool,
        entered: int,
        parent: Label | None,
        fire: tuple[Fire, ...],
    ) -> None:
        self.hex = hex
        self.mp_spent = mp_spent
        self.chances = chances
        self.stopped = stopped
        self.slid_only = slid_only
        self.entered = entered
        self.parent = parent
        self.fire = fire

    def path(self) -> list[str]:
        """The hexes entered, in order (the start hex excluded)."""
        out: list[str] = []
        label: Label | None = self
        while label is not None and label.parent is not None:
            out.append(label.hex)
            label = label.parent
        out.reverse()
        return out

    def visits(self, hex_id: str) -> bool:
        label: Label | None = self
        while label is not None:
            if label.hex == hex_id:
                return True
            label = label.parent
        return False

    def dominates(self, other: Label) -> bool:
        return (
            self.mp_spent <= other.mp_spent
            and self.chances <= other.chances
            and (not self.stopped or other.stopped)
            and (self.slid_only or not other.slid_only)
        )


class _Zone:
    """The enemy zone in one hex, for the moving unit's side (14.zone)."""

    __slots__ = ("by", "cavalry", "others")

    def __init__(self, by: tuple[str, ...], cavalry: tuple[str, ...], others: bool) -> None:
        self.by = by
        """Units projecting it, sorted."""
        self.cavalry = cavalry
        """Those of them that are cavalry, sorted."""
        self.others = others
        """Whether any of them is not cavalry."""


class _Lookups:
    """What the search asks about hexes, each found once per query from the neighbours."""

    def __init__(self, game: Game, unit: Unit) -> None:
        self.game = game
        self.unit = unit
        self.side = unit.side
        self.adjacent = adjacency(game.board)
        self.units_at = _UNITS_OF(game.state)
        self._zones: dict[str, _Zone | None] = {}
        self._carres: dict[str, tuple[str, ...]] = {}
        self._costs: dict[str, int | None] = {}

    def zone(self, hex_id: str) -> _Zone | None:
        """Enemies projecting a zone into ``hex_id`` across a front hexside (14.zone, 14.front),
        None if none does."""
        if hex_id in self._zones:
            return self._zones[hex_id]
        game, side = self.game, self.side
        found: list[Unit] = []
        for d, n in self.adjacent.get(hex_id, ()):
            toward = (d + 3) % 6  # from the unit in n back to hex_id
            for u in self.units_at.get(n, ()):
                if u.side == side or not game.exerts_zone(u):
                    continue
                spec = game.front_spec(u)
                if spec is not None and toward in front_directions(spec, u.facing):
                    found.append(u)
        zone = None
        if found:
            zone = _Zone(
                tuple(sorted({u.id for u in found})),
                tuple(sorted({u.id for u in found if u.type == "cavalry"})),
                any(u.type != "cavalry" for u in found),
            )
        self._zones[hex_id] = zone
        return zone

    def carres(self, hex_id: str) -> tuple[str, ...]:
        """Enemy carrés adjacent to ``hex_id`` (14.carre), sorted."""
        found = self._carres.get(hex_id)
        if found is None:
            ids = [
                u.id
                for _, n in self.adjacent.get(hex_id, ())
                for u in self.units_at.get(n, ())
                if u.side != self.side and u.formation == "carre" and is_combat(u)
            ]
            found = self._carres[hex_id] = tuple(sorted(ids))
        return found

    def cost(self, hex_id: str) -> int | None:
        """Movement points to enter ``hex_id`` (movement), None if it may not be entered:
        enemy units in it or terrain closed to the unit."""
        if hex_id in self._costs:
            return self._costs[hex_id]
        cost = None
        if not any(u.side != self.side for u in self.units_at.get(hex_id, ())):
            cost = self.game.terrain_cost(self.unit, hex_id)
        self._costs[hex_id] = cost
        return cost


def _union(*groups: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({uid for g in groups for uid in g}))


def reachable_labels(game: Game, unit: Unit) -> dict[str, list[Label]]:
    """Hex -> the Pareto-best labels reaching it by enter steps only (rule 14, movement).

    Labels are expanded cheapest first (movement points, then fire chances, then the order
    they were found), a label dominated after it was queued is still expanded, and ties keep
    the label found first: the same labels, in the same order, as walking each path."""
    look = _Lookups(game, unit)
    opts = game.options
    combat, foot, mounted = is_combat(unit), is_foot(unit), is_mounted(unit)
    slide_on = opts.shift_within_zone != "stop"
    began_in_zone = (
        combat
        and game.state.phase_start.get(unit.id, unit.hex) == unit.hex
        and look.zone(unit.hex) is not None
    )
    labels: dict[str, list[Label]] = {}
    if unit.type == "artillery" and unit.formation == UNLIMBERED:
        return labels  # movement: an unlimbered battery must limber before it moves
    counter = 0
    heap: list[tuple[int, int, int, Label]] = [
        (0, 0, 0, Label(unit.hex, 0, 0, False, True, 0, None, ()))
    ]
    while heap:
        walk = heapq.heappop(heap)[3]
        if walk.stopped:
            continue
        here, step = walk.hex, walk.entered
        src_here = look.zone(here) if combat else None
        leaving: tuple[Fire, ...] = ()
        if combat:
            if src_here is not None and foot and not _may_leave(opts, walk, began_in_zone):
                continue
            leaving = _leaving_fire(look, opts, walk, src_here)
        for _, n in look.adjacent.get(here, ()):
            cost = look.cost(n)
            if cost is None or cost > unit.ma - walk.mp_spent or walk.visits(n):
                continue
            fire = walk.fire + leaving
            stopped = slide = False
            src_new = look.zone(n) if combat else None
            if src_new is not None:
                if opts.entering_counts_as_expenditure:  # 14.opportunity.expend (entry)
                    fire += ((n, step, src_new.by, "expend"),)
                if foot:  # 14.stop.infantry-artillery, unless a shift within the zone
                    slide = (
                        slide_on and src_here is not None and set(src_new.by) <= set(src_here.by)
                    )
                    stopped = not slide
                elif mounted:  # 14.stop.cavalry, 14.cavalry-passes
                    stopped = bool(src_new.cavalry)
                    if src_new.cavalry and src_new.others:
                        stopped = opts.mixed_zone_stops_cavalry == "any_cavalry"
            nxt = Label(
                n,
                walk.mp_spent + cost,
                len(fire),
                stopped,
                walk.slid_only and slide,
                step + 1,
                walk,
                fire,
            )
            found = labels.setdefault(n, [])
            if any(old.dominates(nxt) for old in found):
                continue
            found[:] = [old for old in found if not nxt.dominates(old)]
            found.append(nxt)
            counter += 1
            heapq.heappush(heap, (nxt.mp_spent, nxt.chances, counter, nxt))
    return labels


def _may_leave(opts: ZoiOptions, walk: Label, began_in_zone: bool) -> bool:
    """14.exit.infantry-artillery: a foot unit leaves an enemy zone only at the beginning of
    its movement (after shifts within the zone, under the ``slide`` reading)."""
    if walk.entered == 0:
        return began_in_zone
    return began_in_zone and walk.slid_only and opts.shift_within_zone == "slide"


def _leaving_fire(
    look: _Lookups, opts: ZoiOptions, walk: Label, src_here: _Zone | None
) -> tuple[Fire, ...]:
    """The fire chances of leaving ``walk.hex`` (the same whichever hex is entered next)."""
    here, step = walk.hex, walk.entered
    carres = look.carres(here)
    if carres and step == 0 and opts.carre_fire_only_after_moving_adjacent:
        carres = ()  # 14.carre: only once the unit has moved next to the carré
    if src_here is not None:  # 14.opportunity.exit (with 14.carre), 14.opportunity.expend
        out: tuple[Fire, ...] = ((here, step, _union(src_here.by, carres), "exit"),)
        if opts.exit_cost_counts_in_departed_hex:
            out += ((here, step, src_here.by, "expend"),)
        return out
    if carres:
        return ((here, step, carres, "carre"),)
    return ()


def path_json(label: Label, ma: int) -> dict[str, Any]:
    """One path of the ``reachable`` answer."""
    return {
        "path": label.path(),
        "mp_spent": label.mp_spent,
        "mp_left": ma - label.mp_spent,
        "must_stop": label.stopped,
        "opportunity_fire": [
            {"hex": h, "step": s, "by": list(by), "reason": reason}
            for h, s, by, reason in label.fire
        ],
    }


def sort_key(label: Label) -> tuple[int, int, list[str]]:
    return (label.mp_spent, label.chances, label.path())
