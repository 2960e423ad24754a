"""Section 8.2, Retreat: no EZOC hex unless another friendly unit is there; retreat priorities.

The combat result gives the retreat's length. Each step must be passable, free of enemy units,
new to the retreat, (by default) one hex farther from the start, and not an EZOC hex unless
another friendly unit (or, by default, a friendly Airdrop marker) is in it. Among the hexes a
step could take, the retreat must prefer (1) hexes without EZOC, whenever one is available
(the 8.2 clarification), and then (2) those from which the longest retreat remains possible
(interpretation ``zoc.retreat-ezoc-free-first``; the option ``retreat_ezoc_free_first: false``
swaps the two). A retreat that cannot be completed is legal when no longer retreat exists, and
reports how many hexes it fell short.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.rules.dispatch import NoOutcome
from app.rules.judgement import Problem
from app.rules.ruling import Effect, Ruling
from app.rules.zoc.models import RetreatAction, State, Unit
from app.rules.zoc.paths import check_path, names, unit_and_path
from app.rules.zoc.zones import Context, effect, illegal, legal, moved_to, unit_ids

STORMY = ("storms", "snow")


@dataclass(frozen=True)
class Entry:
    """Can the retreat take one step into ``hex``? ``stops`` = it may go no farther after."""

    hex: str
    problem: Problem | None
    stops: bool = False
    ezoc: bool = False
    negated: bool = False


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
            return Entry(nxt, None, stops)
        negators = ctx.negators(nxt, unit.side, unit.id, for_supply_or_retreat=True)
        if negators:
            return Entry(nxt, None, stops, ezoc=True, negated=True)
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
        out = []
        for nbr, _side in self.ctx.topo.neighbors[cur]:
            e = self.entry(cur, nbr, 0, visited)
            if e.problem is None:
                out.append(e)
        return out

    def longest(self, cur: str, visited: frozenset[str], remaining: int) -> int:
        """The most hexes a legal retreat can still cover from ``cur`` (at most remaining)."""
        if remaining <= 0:
            return 0
        best = 0
        for e in self.candidates(cur, visited):
            reach = 1 if e.stops else 1 + self.longest(e.hex, visited | {e.hex}, remaining - 1)
            best = max(best, reach)
            if best == remaining:
                break
        return best

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
        more = 0 if stopped_at is not None else r.longest(cur, visited, remaining)
        if more > 0:
            nexts = [e.hex for e in r.candidates(cur, visited)]
            return illegal(
                ctx,
                Problem(
                    "zoc.retreat_incomplete",
                    f"The retreat stops {remaining} hexes short, but it can go on from {cur} "
                    f"(e.g. into {', '.join(nexts)}).",
                    ["basic.retreat"],
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
                ["8.2.retreat", "basic.retreat"],
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
) -> tuple[str, list[str]] | None:
    """A better hex for this step under the retreat priorities, or None if ``chosen`` is best.

    Returns the reason (``ezoc_free`` or ``longer``) and the better hexes."""
    ctx = r.ctx
    entries = r.candidates(cur, visited)
    if len(entries) < 2:
        return None
    mixed = any(not e.ezoc for e in entries) and any(e.negated for e in entries)
    scored: list[tuple[Entry, int, bool]] = []
    for e in entries:
        reach = 1 if e.stops else 1 + r.longest(e.hex, visited | {e.hex}, remaining - 1)
        scored.append((e, min(reach, remaining), r.free(e) if mixed else not e.ezoc))
    free_first = ctx.options.retreat_ezoc_free_first
    if any(s[2] for s in scored) and not all(s[2] for s in scored):
        # hexes with and without EZOC compete: the 8.2 priority decides this step
        ctx.cite("8.2.retreat.priorities")
    if any(t[2] and not s[2] and s[1] > t[1] for s in scored for t in scored):
        # the two priorities pull apart: a hex with EZOC allows a longer retreat
        ctx.rely("zoc.retreat-ezoc-free-first")

    def key(s: tuple[Entry, int, bool]) -> tuple[int, int]:
        return (int(s[2]), s[1]) if free_first else (s[1], int(s[2]))

    best = max(key(s) for s in scored)
    mine = next((s for s in scored if s[0].hex == chosen.hex), None)
    if mine is None or key(mine) >= best:
        return None
    better = sorted(s[0].hex for s in scored if key(s) == best)
    top = next(s for s in scored if key(s) == best)
    if free_first:
        return ("ezoc_free" if top[2] and not mine[2] else "longer"), better
    return ("longer" if mine[1] < top[1] else "ezoc_free"), better


def _priority_problem(
    ctx: Context, unit: Unit, step: int, chosen: Entry, better: tuple[str, list[str]]
) -> Problem:
    reason, hexes = better
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
        ["8.2.retreat.priorities", "basic.retreat"],
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
