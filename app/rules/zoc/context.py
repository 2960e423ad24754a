"""The per-ruling context of ``zoc``: one :class:`~app.rules.judgement.GameJudgement`.

:class:`Context` is the judgement kit over one game position, citing each section with its
listed parents, plus the look-ups sections 8-8.2 need (negators, entry costs, no-ZOC notes),
read from the board's caches (:mod:`app.rules.zoc.topology`) and the state's index
(:mod:`app.rules.zoc.index`). :func:`effect`, :func:`illegal` and :func:`legal` finish rulings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app import native
from app.rules.judgement import GameJudgement, Mark, Problem
from app.rules.ruling import Citation, CiteKey, Effect, Ruling
from app.rules.zoc.catalog import CATALOG, INTERPRETATION_BY_ID
from app.rules.zoc.models import Board, State, Unit, ZocOptions
from app.rules.zoc.topology import board_costs, topology
from app.rules.zoc.zones import ZoneMap, compute_zones

if TYPE_CHECKING:  # the pure module's; at run time the build in use (app/native.py)
    from app.rules.zoc.index import state_index
else:
    state_index = native.selected("app.rules.zoc.index").state_index

NON_NEGATING_MARKERS = ("logistics", "partisan_base", "detachment")

Event = tuple[bool, tuple[str, ...]]
"""(True, sections) for a citation of a group of sections; (False, ids) for readings relied on."""


@dataclass(frozen=True)
class Negator:
    """Something that negates EZOC in a hex (8.1): a friendly unit or an Airdrop marker."""

    kind: str  # "unit" | "airdrop"
    id: str
    moved_this_phase: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id}


class Context(GameJudgement[Board, State, ZocOptions]):
    """The judgement of one zoc ruling or query: the judgement kit (citing each section with
    its listed parents -- a clause of 8.2 cites 8.2 and 8 too, as section 8's rulings always
    have) over the board, state and options it judges, with the look-ups the rules need: the
    board's topology and entry costs (:mod:`app.rules.zoc.topology`, kept per board) and the
    state's index (:mod:`app.rules.zoc.index`, kept per state)."""

    def __init__(
        self, board: Board, state: State, options: ZocOptions, dice: Sequence[int] = ()
    ) -> None:
        super().__init__(CATALOG, INTERPRETATION_BY_ID, board, state, options, dice)
        self.topo = topology(board)
        self._costs = board_costs(board)
        index = state_index(board, self.topo, state)
        self.units = index.units
        self.occupants = index.occupants
        self.zones = index.zones
        self.beachheads = self.zones.beachheads
        self._beachhead_sides = index.beachhead_sides
        self._moved = index.moved
        self._index = index
        self._markers_at = index.markers_at
        self.search_memo = index.search
        """Per side, what the ``reachable`` search of this state keeps between queries."""
        self._no_zoc: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._groups: set[tuple[str, ...]] = set()
        """Groups of sections recorded since the last :meth:`restore` (a search cites the same
        few groups at thousands of steps: recording one again changes nothing)."""
        self._notes: list[list[Event]] = []
        """The open notes of :meth:`noting` (innermost last)."""

    def zone_map(self) -> ZoneMap:
        """Every projection of the state at once (the ``ezoc-map`` query), kept per state."""
        found = self._index.zone_map
        if found is None:
            found = self._index.zone_map = compute_zones(
                self.board, self.topo, self.state.units, self.state.markers
            )
        return found

    # -- bookkeeping (the judgement kit, citing parents and noting) -----------------------

    def cite(self, *section_ids: str) -> tuple[Citation, ...]:
        """Record sections (plus their listed parents) as cited; return their citations."""
        return self._record(section_ids)[1]

    def cite_ids(self, *section_ids: str) -> tuple[str, ...]:
        """:meth:`cite`, returning the cited sections' ids (made once per group)."""
        return self._record(section_ids)[2]

    def _record(self, section_ids: tuple[str, ...]) -> _Cites:
        for note in self._notes:
            note.append((True, section_ids))
        found = _CITES.get(section_ids)  # (_cites, its look-up inlined: asked per group)
        if found is None:
            found = _cites(section_ids)
        if section_ids not in self._groups:
            self.cite_all_keyed(found[0])
            self._groups.add(section_ids)
        return found

    def rely(self, *interpretation_ids: str) -> None:
        """Record that the ruling depends on interpretations."""
        for note in self._notes:
            note.append((False, interpretation_ids))
        super().rely(*interpretation_ids)

    def restore(self, mark: Mark) -> None:
        super().restore(mark)
        self._groups.clear()

    def noting(self) -> list[Event]:
        """Start noting what is cited and relied on, in order (until :meth:`stop_noting`):
        the search keeps a judged step's or a whole search's notes to replay them."""
        note: list[Event] = []
        self._notes.append(note)
        return note

    def stop_noting(self) -> None:
        """Close the innermost :meth:`noting`."""
        self._notes.pop()

    # -- map facts ----------------------------------------------------------------------

    def on_map(self, hex_id: str) -> bool:
        return hex_id in self.board.hexes

    def weather(self, hex_id: str) -> str:
        zone = self.board.hexes[hex_id].weather_zone
        if zone is None:
            return "clear"
        return self.state.weather.get(zone, "clear")

    def ezoc(self, hex_id: str, side: str) -> list[Unit]:
        return self.zones.ezoc(hex_id, side)

    def no_zoc_notes(self, hex_id: str, side: str) -> list[dict[str, Any]]:
        """Enemy projections into ``hex_id`` that section 8 blocks, and adjacent enemy units
        that project nothing; each with its clause (cited)."""
        key = (hex_id, side)
        found = self._no_zoc.get(key)
        if found is not None:  # its sections were cited when it was first asked for
            return list(found)
        notes: list[dict[str, Any]] = []
        for unit, reason, section in self.zones.no_zoc(hex_id, side):
            self.cite(section)
            notes.append({"unit": unit, "reason": reason, "section": section})
        self._no_zoc[key] = notes
        return list(notes)

    def forget_no_zoc(self, hex_id: str, side: str) -> None:
        """Forget that the no-ZOC notes of ``hex_id`` were asked for (the next call cites
        their sections again; the citations already recorded stay)."""
        self._no_zoc.pop((hex_id, side), None)

    def enemy_ground_units(self, hex_id: str, side: str) -> list[Unit]:
        here = self.occupants.get(hex_id)
        if here is None:
            return []
        return [u for _, u in here if u.side != side and u.ground]

    def entry_cost(self, src: str, dst: str) -> tuple[int | None, str]:
        """Movement points to enter ``dst`` from ``src``; None (and why) if impassable."""
        found = self._costs.entry(src, dst)
        if found.across_all_sea and self._beachhead_sides:
            found = self._costs.entry_across(src, dst, self._beachhead_sides)
        return found.cost, found.why

    def passable(self, src: str, dst: str) -> tuple[bool, str]:
        cost, why = self.entry_cost(src, dst)
        return cost is not None, why

    def negators(
        self, hex_id: str, side: str, exclude: str | None, *, for_supply_or_retreat: bool = False
    ) -> list[Negator]:
        """What negates EZOC in ``hex_id`` for ``side`` (8.1), apart from unit ``exclude``."""
        out: list[Negator] = []
        moved = self._moved
        for _, unit in self.occupants.get(hex_id, ()):
            if unit.side != side or unit.id == exclude:
                continue
            if not unit.ground:
                self.rely("zoc.ground-units-negate")
                if not self.options.non_ground_negates:
                    continue
            out.append(Negator("unit", unit.id, unit.id in moved))
        for marker in self._markers_at.get(hex_id, ()):
            if marker.kind != "airdrop" or marker.side != side:
                continue
            if for_supply_or_retreat and not any(n.kind == "unit" for n in out):
                self.rely("zoc.airdrop-supply-retreat")
                if not self.options.airdrop_negates_supply_retreat:
                    continue
            out.append(Negator("airdrop", marker.id))
        return out

    def ignored_markers(self, hex_id: str) -> list[str]:
        """Markers in the hex that never negate EZOC (8.1 clarification)."""
        return [m.id for m in self._markers_at.get(hex_id, ()) if m.kind in NON_NEGATING_MARKERS]

    def negation_cites(self, negators: list[Negator]) -> list[str]:
        sections = ["8.1.negation"]
        if any(n.moved_this_phase for n in negators):
            sections += ["8.1.duration", "8.1.example"]
        return sections


# -- rulings from the context (the judgement kit finishes them) ----------------------------


def effect(ctx: Context, kind: str, message: str, sections: Sequence[str], **where: Any) -> Effect:
    """A cited effect (``where``: unit, hex, step, by, details), not yet part of the ruling
    (:func:`legal` and :func:`illegal` take the effects that are)."""
    return ctx.effect(kind, message, sections, record=False, **where)


def illegal(
    ctx: Context,
    p: Problem | Sequence[Problem],
    effects: Sequence[Effect] = (),
    details: dict[str, Any] | None = None,
) -> Ruling:
    """A refusal listing every problem (policy: every rule that forbids the action)."""
    problems = [p] if isinstance(p, Problem) else list(p)
    for q in problems:
        ctx.reject_problem(q)
    ctx.effects.extend(effects)
    return ctx.finish("", details, refused_summary=" ".join(q.message for q in problems))


def legal(ctx: Context, summary: str, effects: Sequence[Effect], details: dict[str, Any]) -> Ruling:
    """The legal ruling with these effects and details."""
    ctx.effects.extend(effects)
    return ctx.finish(summary, details)


def _parents(section_id: str) -> list[str]:
    parts = section_id.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


_Cites = tuple[tuple[tuple[CiteKey, Citation], ...], tuple[Citation, ...], tuple[str, ...]]
_CITES: dict[tuple[str, ...], _Cites] = {}


def _cites(section_ids: tuple[str, ...]) -> _Cites:
    """For a group of sections, once: the citations to record, with their keys (each listed
    parent before its section), those of the sections themselves and their ids (the catalog
    is constant, so this is computed once per group of sections, not once per searched
    step)."""
    found = _CITES.get(section_ids)
    if found is None:
        recorded: list[str] = []
        for sid in section_ids:
            recorded += [p for p in _parents(sid) if p in CATALOG]
            recorded.append(sid)
        citations = tuple(CATALOG.cite(sid) for sid in section_ids)
        found = (
            tuple(CATALOG.cite_keyed(sid) for sid in recorded),
            citations,
            tuple(c.section for c in citations),
        )
        if len(_CITES) < 4096:
            _CITES[section_ids] = found
    return found


def section_ids_of(section_ids: tuple[str, ...]) -> tuple[str, ...]:
    """The ids of the citations :meth:`Context.cite` returns for a group of sections (what
    :meth:`Context.cite_ids` returns), without recording anything."""
    return _cites(section_ids)[2]


def unit_ids(units: Iterable[Unit]) -> list[str]:
    return [u.id for u in units]
