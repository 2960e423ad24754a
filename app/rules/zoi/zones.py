"""The per-ruling context of ``zoi``: one :class:`~app.rules.judgement.GameJudgement` (board,
state, options and dice of one game position) with the look-ups rule 14 needs, each derived
once per context; and the helpers that finish a ruling in catalog order."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from app.rules.geometry.hexgrid import HexLayout
from app.rules.judgement import GameJudgement, Judgement, Problem
from app.rules.ruling import Citation, Effect, Ruling, Violation
from app.rules.zoi.catalog import CATALOG, I_ROUTED, INTERPRETATIONS
from app.rules.zoi.facing import front_directions
from app.rules.zoi.models import ChangeCosts, FrontSpec, Unit, ZoiBoard, ZoiOptions, ZoiState
from app.rules.zoi.tables import CARRE, ROUTED


def is_combat(unit: Unit) -> bool:
    """Leaders are not combat units; everything else is."""
    return unit.type != "leader"


def is_foot(unit: Unit) -> bool:
    """Infantry and foot artillery: halted by any enemy zone, may leave only at the start."""
    return unit.type == "infantry" or (unit.type == "artillery" and unit.subtype != "horse")


def is_mounted(unit: Unit) -> bool:
    """Cavalry and horse artillery: halted only by zones of enemy cavalry."""
    return unit.type == "cavalry" or (unit.type == "artillery" and unit.subtype == "horse")


def class_keys(unit: Unit) -> tuple[str, ...]:
    """Table keys for a unit, most specific first: ``type.subtype`` then ``type``."""
    if unit.subtype:
        return (f"{unit.type}.{unit.subtype}", unit.type)
    return (unit.type,)


def terrain_cost(board: ZoiBoard, keys: tuple[str, ...], hex_id: str) -> int | None:
    """Movement points for a unit of the class ``keys`` (:func:`class_keys`) to enter
    ``hex_id``; None if the terrain is closed to it. A function of the board alone."""
    row = board.terrain_costs.get(board.hexes[hex_id])
    if row is None:
        return None
    for key in keys:
        if key in row:
            return row[key]
    return None


@dataclass(frozen=True)
class ZoneSource:
    """One enemy unit projecting its zone into a hex across one of its front hexsides."""

    unit: str
    side: str
    type: str
    subtype: str | None
    formation: str | None
    direction: int
    """Direction from the projecting unit's hex to the zone hex."""
    hexside: str
    routed: bool = False

    @property
    def cavalry(self) -> bool:
        return self.type == "cavalry"


class Game(GameJudgement[ZoiBoard, ZoiState, ZoiOptions]):
    """The judgement of one game position: board, state and options, with cached derived
    look-ups. Its judges collect violations and effects and finish each ruling with
    :func:`ruling` (a fresh judgement per ruling, cited in catalog order)."""

    def __init__(
        self, board: ZoiBoard, state: ZoiState, options: ZoiOptions, dice: Sequence[int] = ()
    ) -> None:
        super().__init__(CATALOG, INTERPRETATIONS, board, state, options, dice)

    @cached_property
    def layout(self) -> HexLayout:
        return self.board.layout.layout()

    @cached_property
    def units(self) -> dict[str, Unit]:
        return {u.id: u for u in self.state.units}

    @cached_property
    def by_hex(self) -> dict[str, list[Unit]]:
        out: dict[str, list[Unit]] = defaultdict(list)
        for u in self.state.units:
            out[u.hex].append(u)
        return dict(out)

    def side_ids(self) -> list[str]:
        return [s.id for s in self.board.sides]

    def on_map(self, hex_id: str) -> bool:
        return hex_id in self.board.hexes

    def adjacent_on_map(self, hex_id: str) -> list[tuple[int, str]]:
        out = []
        for d in range(6):
            n = self.layout.neighbor(hex_id, d)
            if n is not None and n in self.board.hexes:
                out.append((d, n))
        return out

    # -- tables -------------------------------------------------------------------------

    def front_spec(self, unit: Unit, formation: str | None = None) -> FrontSpec | None:
        form = formation if formation is not None else unit.formation
        if form is None:
            return None
        for key in class_keys(unit):
            spec = self.board.front_table.get(f"{key}.{form}")
            if spec is not None:
                return spec
        return None

    def formations(self, unit: Unit) -> list[str]:
        """Formations the facing table lists for this unit's type (and subtype)."""
        out: list[str] = []
        for key in self.board.front_table:
            head, _, form = key.rpartition(".")
            if head in class_keys(unit) and form not in out:
                out.append(form)
        return out

    def change_costs(self, unit: Unit) -> ChangeCosts | None:
        for key in class_keys(unit):
            costs = self.board.change_costs.get(key)
            if costs is not None:
                return costs
        return None

    def terrain_cost(self, unit: Unit, hex_id: str) -> int | None:
        """Movement points to enter ``hex_id``; None if the terrain is closed to the unit."""
        return terrain_cost(self.board, class_keys(unit), hex_id)

    # -- zones --------------------------------------------------------------------------

    def exerts_zone(self, unit: Unit) -> bool:
        """Whether ``unit`` projects a zone (14, 14.carre; routed per interpretation)."""
        if not is_combat(unit):
            return False
        if unit.formation == CARRE:
            return False
        return not (unit.formation == ROUTED and not self.options.routed_units_exert_zone)

    @cached_property
    def zone(self) -> dict[str, list[ZoneSource]]:
        """Hex -> every unit projecting a zone into it (all sides)."""
        out: dict[str, list[ZoneSource]] = defaultdict(list)
        for u in self.state.units:
            if not self.exerts_zone(u):
                continue
            spec = self.front_spec(u)
            if spec is None:
                continue
            for d in front_directions(spec, u.facing):
                n = self.layout.neighbor(u.hex, d)
                if n is None or n not in self.board.hexes:
                    continue
                out[n].append(
                    ZoneSource(
                        unit=u.id,
                        side=u.side,
                        type=u.type,
                        subtype=u.subtype,
                        formation=u.formation,
                        direction=d,
                        hexside=self.layout.hexside(u.hex, n).id,
                        routed=u.formation == ROUTED,
                    )
                )
        return dict(out)

    @cached_property
    def routed_fronts(self) -> dict[str, list[str]]:
        """Hex -> routed units whose front touches it (used to flag the routed reading)."""
        out: dict[str, list[str]] = defaultdict(list)
        for u in self.state.units:
            if u.formation != ROUTED or not is_combat(u):
                continue
            spec = self.front_spec(u)
            if spec is None:
                continue
            for d in front_directions(spec, u.facing):
                n = self.layout.neighbor(u.hex, d)
                if n is not None:
                    out[n].append(u.id)
        return dict(out)

    def enemy_zone(self, hex_id: str, side: str, note: set[str] | None = None) -> list[ZoneSource]:
        """Enemies of ``side`` projecting a zone into ``hex_id`` (14.zone).

        When a routed enemy's front touches the hex, the routed-zone reading decided the
        answer: its id is added to ``note``.
        """
        routed = [uid for uid in self.routed_fronts.get(hex_id, []) if self.units[uid].side != side]
        if routed and note is not None:
            note.add(I_ROUTED)
        return [s for s in self.zone.get(hex_id, []) if s.side != side]

    def enemy_carres(self, hex_id: str, side: str) -> list[str]:
        """Enemy carrés adjacent to ``hex_id`` (14.carre)."""
        out = []
        for _, n in self.adjacent_on_map(hex_id):
            for u in self.by_hex.get(n, []):
                if u.side != side and u.formation == CARRE and is_combat(u):
                    out.append(u.id)
        return sorted(out)

    def enemies_in(self, hex_id: str, side: str) -> list[Unit]:
        return [u for u in self.by_hex.get(hex_id, []) if u.side != side]

    def friendly_combat_in(self, hex_id: str, side: str, exclude: str) -> list[Unit]:
        return [
            u
            for u in self.by_hex.get(hex_id, [])
            if u.side == side and u.id != exclude and is_combat(u)
        ]


# -- rulings (finished by the judgement kit) ----------------------------------------------------


def ruling(
    game: Game,
    summary: str,
    *,
    violations: Sequence[Violation] = (),
    effects: Sequence[Effect] = (),
    sections: Iterable[str] = (),
    consulted: Iterable[str] = (),
    details: Mapping[str, Any] | None = None,
) -> Ruling:
    """The ruling, legal iff nothing is violated. It cites ``sections`` and every section its
    violations and effects cite, in catalog order, and names the readings ``consulted`` (in
    catalog order, with this game's option values)."""
    wanted = set(sections)
    for cited in (*(v.citations for v in violations), *(e.citations for e in effects)):
        wanted.update(c.section for c in cited)
    j = Judgement(game.source, game.interpretation_by_id, game.options)
    j.cite(*CATALOG.in_order(wanted))
    relied = set(consulted)
    j.rely(*(i.id for i in INTERPRETATIONS if i.id in relied))
    j.violations.extend(violations)
    j.effects.extend(effects)
    return j.finish(summary, details, refused_summary=summary)


def refusal(game: Game, v: Violation) -> Ruling:
    """A ruling refusing an action for one reason."""
    return ruling(game, v.message, violations=(v,))


def missing_unit(game: Game, unit_id: str, section: str) -> Problem | None:
    """The action's unit is not in this game (citing ``section``): its ``Kind.names``."""
    if unit_id in game.units:
        return None
    return Problem(
        "zoi.unknown_unit", f"No unit {unit_id!r} in this game.", [section], unit=unit_id
    )


def unit_named(game: Game, unit_id: str, section: str) -> Unit | Ruling:
    """The unit an action names, if it exists; otherwise the ruling refusing the action
    (citing ``section``)."""
    p = missing_unit(game, unit_id, section)
    if p is not None:
        return refused(game, [p])
    return game.units[unit_id]


def refused(game: Game, problems: Sequence[Problem]) -> Ruling:
    """A refusal as the zoi judges word one (``Ruleset.refuse``: the kit's, before the
    judge): each problem a violation, the summary their messages."""
    vs = tuple(
        violation(p.code, p.message, p.sections, step=p.step, hex=p.hex, unit=p.unit, **p.details)
        for p in problems
    )
    return ruling(game, " ".join(v.message for v in vs), violations=vs)


def cites(sections: Iterable[str]) -> tuple[Citation, ...]:
    """Citations for section ids, de-duplicated, in catalog order."""
    return tuple(CATALOG.cite(s) for s in CATALOG.in_order(sections))


def violation(
    code: str,
    message: str,
    sections: Iterable[str],
    *,
    step: int | None = None,
    hex: str | None = None,
    unit: str | None = None,
    **details: Any,
) -> Violation:
    """One cited reason an action is illegal."""
    return Violation(
        code=code,
        message=message,
        step=step,
        hex=hex,
        unit=unit,
        citations=cites(sections),
        details=details,
    )


def unit_of(state: ZoiState, unit_id: str) -> Unit:
    """The unit of a state (KeyError if unknown)."""
    for unit in state.units:
        if unit.id == unit_id:
            return unit
    raise KeyError(unit_id)
