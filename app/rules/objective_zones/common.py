"""Shared helpers: the per-ruling context (citations, interpretations), problems, rulings
and read-only facts about zones (who holds which sector, contested or not)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.rules.objective_zones.catalog import CATALOG, INTERPRETATION_BY_ID
from app.rules.objective_zones.models import Board, Options, State, Unit, Zone
from app.rules.ruling import Citation, Effect, InterpretationRef, Ruling, Violation


@dataclass
class Problem:
    """A reason something is illegal, before it becomes a :class:`Violation`."""

    code: str
    message: str
    sections: Sequence[str]
    unit: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


class Ctx:
    """One judgement: the game plus the sections cited and interpretations relied on."""

    def __init__(self, board: Board, state: State, options: Options) -> None:
        self.board = board
        self.state = state
        self.options = options
        self.units = {u.id: u for u in state.units}
        self._cited: list[str] = []
        self._interps: list[str] = []

    # -- citations ---------------------------------------------------------------------

    def cite(self, *sections: str) -> tuple[Citation, ...]:
        for s in sections:
            if s not in self._cited:
                self._cited.append(s)
        return tuple(CATALOG.cite(s) for s in sections)

    def citations(self) -> tuple[Citation, ...]:
        return tuple(CATALOG.cite(s) for s in self._cited)

    def cited_ids(self) -> list[str]:
        return list(self._cited)

    def rely(self, interpretation: str) -> None:
        if interpretation not in self._interps:
            self._interps.append(interpretation)

    def interpretations(self) -> tuple[InterpretationRef, ...]:
        refs = []
        for iid in self._interps:
            interp = INTERPRETATION_BY_ID[iid]
            value = getattr(self.options, interp.option) if interp.option else None
            refs.append(
                InterpretationRef(id=iid, text=interp.reading, option=interp.option, value=value)
            )
        return tuple(refs)

    # -- rulings -------------------------------------------------------------------------

    def effect(
        self,
        kind: str,
        message: str,
        sections: Sequence[str],
        *,
        unit: str | None = None,
        by: Iterable[str] = (),
        details: dict[str, Any] | None = None,
    ) -> Effect:
        return Effect(
            kind=kind,
            message=message,
            unit=unit,
            by=tuple(by),
            citations=self.cite(*sections),
            details=details or {},
        )

    def violation(self, p: Problem) -> Violation:
        return Violation(
            code=p.code,
            message=p.message,
            unit=p.unit,
            citations=self.cite(*p.sections),
            details=p.details,
        )

    def illegal(self, *problems: Problem) -> Ruling:
        violations = tuple(self.violation(p) for p in problems)
        return Ruling(
            legal=False,
            summary=problems[0].message,
            violations=violations,
            citations=self.citations(),
            interpretations=self.interpretations(),
        )

    def legal(
        self, summary: str, effects: Sequence[Effect], details: dict[str, Any] | None = None
    ) -> Ruling:
        return Ruling(
            legal=True,
            summary=summary,
            effects=tuple(effects),
            citations=self.citations(),
            interpretations=self.interpretations(),
            details=details or {},
        )

    # -- facts -----------------------------------------------------------------------------

    def zone(self, zone_id: str) -> Zone | None:
        return self.board.zones.get(zone_id)

    def other_side(self, side: str) -> str:
        return next(s.id for s in self.board.sides if s.id != side)


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


def pending_assault(state: State, zone: str) -> Any:
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
