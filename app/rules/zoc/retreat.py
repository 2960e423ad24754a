"""Section 8.2, Retreat: no EZOC hex unless another friendly unit is there; retreat priorities.

The combat result gives the retreat's length. Each step must be passable, free of enemy units,
new to the retreat, (by default) one hex farther from the start, and not an EZOC hex unless
another friendly unit (or, by default, a friendly Airdrop marker) is in it. Among the hexes a
step could take, the retreat must prefer (1) hexes without EZOC, whenever one is available
(the 8.2 clarification), and then (2) those from which the longest retreat remains possible
(interpretation ``zoc.retreat-ezoc-free-first``; the option ``retreat_ezoc_free_first: false``
swaps the two). A retreat that cannot be completed is legal when no longer retreat exists, and
reports how many hexes it fell short.

The search keeps, for each way it measures (:class:`Way`), the rules that cut it short (a
Storms/Snow stop, a Mud hex it may not leave) and the rules that let it into hexes it could
otherwise not take (negation, a section 8 exception that keeps a hex free of EZOC): a shortfall
cites what ended the retreat, a priority refusal for length what cut the chosen way short and
what let the better way go farther, an incomplete retreat what lets it go on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app import native
from app.rules.dispatch import NoOutcome
from app.rules.judgement import Problem
from app.rules.ruling import Effect, Ruling
from app.rules.zoc.context import Context, effect, illegal, legal, unit_ids
from app.rules.zoc.models import RetreatAction, State, Unit
from app.rules.zoc.paths import check_path, names, unit_and_path

if TYPE_CHECKING:  # the pure module's; at run time the build in use (app/native.py)
    from app.rules.zoc.index import moved_to
else:
    moved_to = native.selected("app.rules.zoc.index").moved_to

STORMY = ("storms", "snow")
NO_SECTIONS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Entry:
    """Can the retreat take one step into ``hex``? ``stops`` = it may go no farther after;
    ``opens``: the sections that make the hex enterable or free of EZOC (negation, the
    section 8 exceptions blocking an enemy projection into it)."""

    hex: str
    problem: Problem | None
    stops: bool = False
    ezoc: bool = False
    negated: bool = False
    opens: tuple[str, ...] = ()


@dataclass(frozen=True)
class Way:
    """How far a retreat can still go (``reach``, in hexes), with the sections that cut it
    short (``cuts``: Storms/Snow, Mud) and those that opened the hexes it takes (``opens``)."""

    reach: int
    cuts: frozenset[str] = NO_SECTIONS
    opens: frozenset[str] = NO_SECTIONS

    def rank(self) -> tuple[int, int]:
        """Longer first; among equally long ways, the one resting on fewer rules."""
        return (self.reach, -len(self.cuts | self.opens))


class Retreat:
    """The retreat rules for one unit from its current hex."""

    def __init__(self, ctx: Context, unit: Unit) -> None:
        assert unit.hex is not None
        self.ctx = ctx
        self.unit = unit
        self.start = unit.hex
        self.layout = ctx.board.layout.layout()

    def entry(self, cur: str, nxt: str, step: int, visited: frozenset[str]) -> Entry:
        ctx, unit = self.ctx, self.unit
        at = f"Step {step}: " if step else ""
        if nxt in visited:
            return Entry(
                nxt,
                Problem(
                    "zoc.retreat_revisit",
                    f"{at}the retreat has already been in {nxt}.",
                    ["basic.retreat"],
                    step=step,
                    hex=nxt,
                    unit=unit.id,
                ),
            )
        if self.layout.distance(self.start, nxt) <= self.layout.distance(self.start, cur):
            ctx.rely("zoc.retreat-away")
            if ctx.options.retreat_must_move_away:
                return Entry(
                    nxt,
                    Problem(
                        "zoc.retreat_not_away",
                        f"{at}{nxt} is not farther from {self.start} than {cur}.",
                        ["basic.retreat"],
                        step=step,
                        hex=nxt,
                        unit=unit.id,
                    ),
                )
        passable, why = ctx.passable(cur, nxt)
        if not passable:
            return Entry(
                nxt,
                Problem(
                    "zoc.prohibited_terrain",
                    f"{at}{why}.",
                    ["basic.terrain"],
                    step=step,
                    hex=nxt,
                    unit=unit.id,
                ),
            )
        enemies = ctx.enemy_ground_units(nxt, unit.side)
        if enemies:
            return Entry(
                nxt,
                Problem(
                    "zoc.enemy_occupied",
                    f"{at}{nxt} holds enemy units ({names(enemies)}).",
                    ["basic.enemy-hex"],
                    step=step,
                    hex=nxt,
                    unit=unit.id,
                ),
            )
        stops = False
        cur_ezoc = ctx.ezoc(cur, unit.side)
        nxt_ezoc = ctx.ezoc(nxt, unit.side)
        for hex_id, ezoc, leaving in ((cur, cur_ezoc, True), (nxt, nxt_ezoc, False)):
            weather = ctx.weather(hex_id)
            if not ezoc or weather == "clear" or (weather == "mud" and not leaving):
                continue
            ctx.rely("zoc.weather-not-retreat")
            if not ctx.options.weather_affects_retreat:
                continue
            ctx.rely("zoc.weather-by-zone")
            if leaving and cur == self.start and weather in STORMY:
                ctx.rely("zoc.storms-leaving-start")
                if not ctx.options.storms_stop_on_leaving_start:
                    continue
            if weather == "mud":
                return Entry(
                    nxt,
                    Problem(
                        "zoc.mud_exit",
                        f"{at}{unit.id} may not leave {cur}, an EZOC hex in Mud.",
                        ["8.2.mud", "8.2.retreat"],
                        step=step,
                        hex=cur,
                        unit=unit.id,
                        details={"by": unit_ids(ezoc)},
                    ),
                )
            stops = True
        if not nxt_ezoc:
            unzoned = tuple(dict.fromkeys(n[2] for n in ctx.zones.no_zoc(nxt, unit.side)))
            return Entry(nxt, None, stops, opens=unzoned)
        negators = ctx.negators(nxt, unit.side, unit.id, for_supply_or_retreat=True)
        if negators:
            opens = tuple(ctx.negation_cites(negators))
            return Entry(nxt, None, stops, ezoc=True, negated=True, opens=opens)
        sections = ["8.2.retreat", "8.1"]
        if ctx.ignored_markers(nxt):
            sections.append("8.1.clar.markers")
        return Entry(
            nxt,
            Problem(
                "zoc.retreat_into_ezoc",
                f"{at}{unit.id} may not retreat into {nxt}: it is in the EZOC of "
                f"{names(nxt_ezoc)} and no other friendly unit is there.",
                sections,
                step=step,
                hex=nxt,
                unit=unit.id,
                details={"by": unit_ids(nxt_ezoc)},
            ),
            ezoc=True,
        )

    def candidates(self, cur: str, visited: frozenset[str]) -> list[Entry]:
        return self.scan(cur, visited)[0]

    def scan(self, cur: str, visited: frozenset[str]) -> tuple[list[Entry], bool]:
        """The steps the retreat may take from ``cur``, and whether Mud held it there (a
        step refused only because ``cur`` is an EZOC hex in Mud)."""
        out = []
        held = False
        for nbr, _side in self.ctx.topo.neighbors[cur]:
            e = self.entry(cur, nbr, 0, visited)
            if e.problem is None:
                out.append(e)
            elif e.problem.code == "zoc.mud_exit":
                held = True
        return out, held

    def longest(self, cur: str, visited: frozenset[str], remaining: int) -> Way:
        """The longest legal retreat still possible from ``cur`` (at most ``remaining``
        hexes), and the rules that shaped it."""
        if remaining <= 0:
            return Way(0)
        entries, held = self.scan(cur, visited)
        best = Way(0, frozenset({"8.2.mud"}) if held else NO_SECTIONS)
        for e in entries:
            way = self.way(e, visited, remaining)
            if best.reach == 0 or way.rank() > best.rank():
                best = way
            if best.reach == remaining and not best.cuts and not best.opens:
                break
        return best

    def way(self, e: Entry, visited: frozenset[str], remaining: int) -> Way:
        """The longest retreat of at most ``remaining`` hexes whose first step is ``e``."""
        opens = frozenset(e.opens)
        if e.stops:
            # the Storms/Snow stop cuts the way short only if the retreat had farther to go
            cuts = frozenset({"8.2.storms-snow"}) if remaining > 1 else NO_SECTIONS
            return Way(1, cuts, opens)
        rest = self.longest(e.hex, visited | {e.hex}, remaining - 1)
        return Way(1 + rest.reach, rest.cuts, rest.opens | opens)

    def free(self, e: Entry) -> bool:
        """Is this hex 'without EZOC' for the retreat priorities?"""
        if not e.ezoc:
            return True
        if e.negated:
            self.ctx.rely("zoc.retreat-negated-not-free")
            return self.ctx.options.retreat_negated_ezoc_is_free
        return False


def judge_retreat(ctx: Context, action: RetreatAction) -> Ruling:
    """Judge a ``retreat`` action."""
    found = unit_and_path(ctx, action.unit, action.path)
    if isinstance(found, Problem):
        return illegal(ctx, found)
    unit, start, path = found
    problem = check_path(ctx, start, path, unit.id)
    if problem is not None:
        return illegal(ctx, problem)
    if len(path) > action.length:
        return illegal(
            ctx,
            Problem(
                "zoc.retreat_too_long",
                f"The retreat is {len(path)} hexes long; the combat result calls for "
                f"{action.length}.",
                ["basic.retreat"],
                unit=unit.id,
                details={"length": action.length},
            ),
        )
    r = Retreat(ctx, unit)
    effects: list[Effect] = []
    visited = frozenset([start])
    cur = start
    stopped_at: str | None = None
    for i, hex_id in enumerate(path, start=1):
        if stopped_at is not None:
            return illegal(
                ctx,
                Problem(
                    "zoc.must_stop",
                    f"The retreat must end in {stopped_at} (Storms/Snow in an EZOC hex).",
                    ["8.2.storms-snow", "8.2.retreat"],
                    step=i - 1,
                    hex=stopped_at,
                    unit=unit.id,
                ),
            )
        chosen = r.entry(cur, hex_id, i, visited)
        if chosen.problem is not None:
            return illegal(ctx, chosen.problem)
        better = _priority(r, cur, visited, action.length - i + 1, chosen)
        if better is not None:
            return illegal(ctx, _priority_problem(ctx, unit, i, chosen, better))
        if chosen.opens and not chosen.negated:
            ctx.cite(*chosen.opens)  # a section 8 exception keeps the hex free of EZOC
        if chosen.negated:
            negators = ctx.negators(hex_id, unit.side, unit.id, for_supply_or_retreat=True)
            effects.append(
                effect(
                    ctx,
                    "zoc.ezoc_negated",
                    f"{hex_id} is in EZOC but {', '.join(n.id for n in negators)} is there, so "
                    "the retreat may enter it.",
                    [*ctx.negation_cites(negators), "8.2.retreat"],
                    unit=unit.id,
                    hex=hex_id,
                    step=i,
                    details={"negated_by": [n.as_json() for n in negators]},
                )
            )
        visited = visited | {hex_id}
        cur = hex_id
        if chosen.stops:
            stopped_at = hex_id
    remaining = action.length - len(path)
    if remaining > 0:
        if stopped_at is not None:
            ended = Way(0, frozenset({"8.2.storms-snow"}))
        else:
            ended = r.longest(cur, visited, remaining)
        if ended.reach > 0:
            nexts = [e.hex for e in r.candidates(cur, visited)]
            going_on = r.longest(cur, visited, 1)  # what lets it take one more hex
            return illegal(
                ctx,
                Problem(
                    "zoc.retreat_incomplete",
                    f"The retreat stops {remaining} hexes short, but it can go on from {cur} "
                    f"(e.g. into {', '.join(nexts)}).",
                    ["basic.retreat", *sorted(going_on.opens)],
                    unit=unit.id,
                    hex=cur,
                    details={"shortfall": remaining, "can_continue_to": nexts},
                ),
            )
        effects.append(
            effect(
                ctx,
                "zoc.retreat_short",
                f"{unit.id} cannot retreat the full {action.length} hexes: it falls "
                f"{remaining} short.",
                ["8.2.retreat", "basic.retreat", *sorted(ended.cuts)],
                unit=unit.id,
                hex=cur,
                details={"shortfall": remaining, "length": action.length},
            )
        )
    details: dict[str, Any] = {
        "unit": unit.id,
        "from": start,
        "path": [start, *path],
        "end_hex": cur,
        "length": action.length,
        "shortfall": remaining,
    }
    ctx.cite("8.2.retreat")
    summary = f"{unit.id} retreats {' -> '.join([start, *path])}"
    if remaining:
        summary += f", {remaining} hexes short of {action.length}"
    return legal(ctx, summary + ".", effects, details)


def _priority(
    r: Retreat, cur: str, visited: frozenset[str], remaining: int, chosen: Entry
) -> Better | None:
    """A better hex for this step under the retreat priorities, or None if ``chosen`` is best."""
    ctx = r.ctx
    entries = r.candidates(cur, visited)
    if len(entries) < 2:
        return None
    mixed = any(not e.ezoc for e in entries) and any(e.negated for e in entries)
    scored: list[tuple[Entry, Way, bool]] = []
    for e in entries:
        way = r.way(e, visited, remaining)
        scored.append((e, way, r.free(e) if mixed else not e.ezoc))
    free_first = ctx.options.retreat_ezoc_free_first
    if any(s[2] for s in scored) and not all(s[2] for s in scored):
        # hexes with and without EZOC compete: the 8.2 priority decides this step
        ctx.cite("8.2.retreat.priorities")
    if any(t[2] and not s[2] and s[1].reach > t[1].reach for s in scored for t in scored):
        # the two priorities pull apart: a hex with EZOC allows a longer retreat
        ctx.rely("zoc.retreat-ezoc-free-first")

    def key(s: tuple[Entry, Way, bool]) -> tuple[int, int]:
        reach = min(s[1].reach, remaining)
        return (int(s[2]), reach) if free_first else (reach, int(s[2]))

    best = max(key(s) for s in scored)
    mine = next((s for s in scored if s[0].hex == chosen.hex), None)
    if mine is None or key(mine) >= best:
        return None
    better = sorted(s[0].hex for s in scored if key(s) == best)
    top = max((s for s in scored if key(s) == best), key=lambda s: s[1].rank())
    if free_first and top[2] and not mine[2]:
        return Better("ezoc_free", better)  # 8.2 clarification: a hex without EZOC first
    if not free_first and mine[1].reach >= top[1].reach:
        return Better("ezoc_free", better)  # as long, and a hex without EZOC is preferred
    # decided by length: what cut the chosen way short, what let the better way go farther
    return Better("longer", better, sorted(mine[1].cuts | top[1].opens))


@dataclass(frozen=True)
class Better:
    """Why the chosen hex loses to ``hexes`` (``ezoc_free`` or ``longer``), and the sections
    that decided a comparison of length."""

    reason: str
    hexes: list[str]
    sections: list[str] = field(default_factory=list)


def _priority_problem(
    ctx: Context, unit: Unit, step: int, chosen: Entry, better: Better
) -> Problem:
    reason, hexes = better.reason, better.hexes
    if reason == "ezoc_free":
        return Problem(
            "zoc.retreat_priority",
            f"Step {step}: {unit.id} must retreat into a hex without EZOC "
            f"({', '.join(hexes)}) rather than {chosen.hex}.",
            ["8.2.retreat.priorities", "8.2.retreat"],
            step=step,
            hex=chosen.hex,
            unit=unit.id,
            details={"better": hexes, "reason": reason},
        )
    return Problem(
        "zoc.retreat_priority",
        f"Step {step}: from {chosen.hex} the retreat cannot go as far as through "
        f"{', '.join(hexes)}.",
        ["8.2.retreat.priorities", "basic.retreat", *better.sections],
        step=step,
        hex=chosen.hex,
        unit=unit.id,
        details={"better": hexes, "reason": reason},
    )


def apply_retreat(board: object, state: State, action: RetreatAction, _: NoOutcome) -> State:
    """The unit stands in the last hex of its retreat path (stays put with no path)."""
    if not action.path:
        return state.model_copy(deep=True)
    return moved_to(state, action.unit, action.path[-1])
