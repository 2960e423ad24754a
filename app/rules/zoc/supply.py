"""Section 8.2, Supply: a supply line may not be traced into an EZOC hex unless another
friendly unit is there.

A supply line runs from the unit's hex to a supply source of its side (scenario data), over at
most ``supply.max_length`` hexes (default 5: the source gives no length). Each hex it enters
must be passable, hold no enemy ground unit, and be free of EZOC unless another friendly unit
(or, by default, a friendly Airdrop marker: ``zoc.airdrop-supply-retreat``) is in it. The search
is a breadth-first search, so the path found is a shortest one.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from app.rules.dispatch import NoOutcome
from app.rules.judgement import Problem, count_of
from app.rules.ruling import Ruling
from app.rules.zoc.context import Context, effect, illegal, legal, unit_ids
from app.rules.zoc.models import State, TraceSupplyAction, Unit
from app.rules.zoc.paths import check_path, find_unit, names, without_start


@dataclass
class SupplyResult:
    unit: str
    side: str
    in_supply: bool
    path: list[str] = field(default_factory=list)
    source: str | None = None
    blocked: dict[str, Problem] = field(default_factory=dict)
    reason: Problem | None = None

    def as_json(self, ctx: Context) -> dict[str, Any]:
        out: dict[str, Any] = {
            "unit": self.unit,
            "side": self.side,
            "in_supply": self.in_supply,
            "path": self.path,
            "length": max(len(self.path) - 1, 0),
            "source": self.source,
            "max_length": ctx.board.supply.max_length,
        }
        if not self.in_supply:
            out["blocked"] = [
                {
                    "hex": hex_id,
                    "code": p.code,
                    "message": p.message,
                    "by": p.details.get("by", []),
                    "citations": [c.section for c in ctx.cite(*p.sections)],
                }
                for hex_id, p in sorted(self.blocked.items())
            ]
            if self.reason is not None:
                out["reason"] = {
                    "code": self.reason.code,
                    "message": self.reason.message,
                    "citations": [c.section for c in ctx.cite(*self.reason.sections)],
                }
        return out


def supply_entry(ctx: Context, unit: Unit, cur: str, nxt: str, step: int) -> Problem | None:
    """May a supply line of ``unit`` step from ``cur`` into ``nxt``?"""
    at = f"Step {step}: " if step else ""
    passable, why = ctx.passable(cur, nxt)
    if not passable:
        return Problem("zoc.prohibited_terrain", f"{at}{why}.", ["basic.terrain"], step, nxt)
    enemies = ctx.enemy_ground_units(nxt, unit.side)
    if enemies:
        return Problem(
            "zoc.enemy_occupied",
            f"{at}{nxt} holds enemy units ({names(enemies)}).",
            ["basic.enemy-hex", "basic.supply"],
            step,
            nxt,
            details={"by": unit_ids(enemies)},
        )
    ezoc = ctx.ezoc(nxt, unit.side)
    if ezoc and not ctx.negators(nxt, unit.side, unit.id, for_supply_or_retreat=True):
        sections = ["8.2.supply", "8.1"]
        if ctx.ignored_markers(nxt):
            sections.append("8.1.clar.markers")
        return Problem(
            "zoc.supply_ezoc",
            f"{at}{nxt} is in the EZOC of {names(ezoc)} with no other friendly unit there.",
            sections,
            step,
            nxt,
            details={"by": unit_ids(ezoc)},
        )
    return None


def _negation_sections(ctx: Context, unit: Unit, path: list[str]) -> None:
    """Cite 8.1 negation for each EZOC hex the line passes thanks to a friendly presence."""
    for hex_id in path[1:]:
        if ctx.ezoc(hex_id, unit.side):
            negators = ctx.negators(hex_id, unit.side, unit.id, for_supply_or_retreat=True)
            ctx.cite(*ctx.negation_cites(negators), "8.2.supply")


def trace(ctx: Context, unit: Unit) -> SupplyResult:
    """Search for a shortest supply line of ``unit``."""
    result = SupplyResult(unit.id, unit.side, False)
    if unit.hex is None:
        result.reason = Problem(
            "zoc.unit_off_map", f"{unit.id} is not on the map.", ["basic.supply"]
        )
        return result
    sources = set(ctx.board.supply.sources.get(unit.side, ()))
    if not sources:
        result.reason = Problem(
            "zoc.supply_no_source", f"{unit.side} has no supply source.", ["basic.supply"]
        )
        return result
    start = unit.hex
    ctx.cite("basic.supply")
    if start in sources:
        result.in_supply, result.path, result.source = True, [start], start
        return result
    limit = ctx.board.supply.max_length
    parent: dict[str, str | None] = {start: None}
    depth = {start: 0}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        if depth[cur] >= limit:
            continue
        for nbr, _side in ctx.topo.neighbors[cur]:
            if nbr in parent:
                continue
            problem = supply_entry(ctx, unit, cur, nbr, 0)
            if problem is not None:
                _note_block(result.blocked, nbr, problem)
                continue
            parent[nbr] = cur
            depth[nbr] = depth[cur] + 1
            if nbr in sources:
                path = [nbr]
                walk = parent[nbr]
                while walk is not None:
                    path.append(walk)
                    walk = parent[walk]
                path.reverse()
                result.in_supply, result.path, result.source = True, path, nbr
                if _any_ezoc(result) and _line_without_ezoc(ctx, unit, sources, limit) != path:
                    # the line goes around enemy zones: 8.2's supply clause decided it
                    ctx.cite("8.2.supply", "8.1")
                result.blocked.clear()
                _negation_sections(ctx, unit, path)
                return result
            queue.append(nbr)
    result.blocked = {h: p for h, p in result.blocked.items() if h not in parent}
    result.reason = Problem(
        "zoc.supply_no_line",
        f"No supply line of at most {limit} hexes reaches a source of {unit.side}"
        + (f"; blocked at {', '.join(sorted(result.blocked))}" if result.blocked else "")
        + ".",
        ["basic.supply", *(["8.2.supply"] if _any_ezoc(result) else [])],
    )
    return result


def _note_block(blocked: dict[str, Problem], hex_id: str, problem: Problem) -> None:
    """Note why the search could not enter ``hex_id`` from one more hex.

    A blocked hex names a rule that keeps the line out of it whichever way the search came: a
    refusal of the hex itself (enemy units in it, an EZOC no friendly unit negates: 8.2's
    supply clause) holds for every approach, a prohibited hexside only for the step across
    it. So a hexside refusal noted first gives way to a refusal of the hex met later from
    another side (zoc 1.3.5: before, the first refusal stayed, and a hex kept out of reach by
    an enemy zone could be reported as out of reach by terrain -- hiding that 8.2 shaped the
    line, also from a detour around it). Terrain that forbids the hex itself refuses every
    approach first, so it stays."""
    known = blocked.get(hex_id)
    if known is None or (
        known.code == "zoc.prohibited_terrain" and problem.code != "zoc.prohibited_terrain"
    ):
        blocked[hex_id] = problem


def _line_without_ezoc(ctx: Context, unit: Unit, sources: set[str], limit: int) -> list[str]:
    """The line the same search would find if enemy zones did not block supply (terrain and
    enemy-occupied hexes still do): when it differs from the real line, 8.2 shaped it."""
    assert unit.hex is not None
    parent: dict[str, str | None] = {unit.hex: None}
    depth = {unit.hex: 0}
    queue = deque([unit.hex])
    while queue:
        cur = queue.popleft()
        if depth[cur] >= limit:
            continue
        for nbr, _side in ctx.topo.neighbors[cur]:
            if nbr in parent or not ctx.passable(cur, nbr)[0]:
                continue
            if ctx.enemy_ground_units(nbr, unit.side):
                continue
            parent[nbr] = cur
            depth[nbr] = depth[cur] + 1
            if nbr in sources:
                path: list[str] = []
                walk: str | None = nbr
                while walk is not None:
                    path.append(walk)
                    walk = parent[walk]
                return path[::-1]
            queue.append(nbr)
    return []


def _any_ezoc(result: SupplyResult) -> bool:
    return any(p.code == "zoc.supply_ezoc" for p in result.blocked.values())


def judge_trace_supply(ctx: Context, action: TraceSupplyAction) -> Ruling:
    """Judge a ``trace_supply`` claim: legal when the unit is in supply (by the given path)."""
    found = find_unit(ctx, action.unit)
    if isinstance(found, Problem):
        return illegal(ctx, found)
    unit = found
    assert unit.hex is not None
    if action.path is None:
        result = trace(ctx, unit)
        details = result.as_json(ctx)
        if not result.in_supply:
            assert result.reason is not None
            ezoc_blocks = [p for p in result.blocked.values() if p.code == "zoc.supply_ezoc"]
            reason = result.reason
            reason.unit = unit.id  # a refusal of an action on a unit names it (basic.supply)
            if ezoc_blocks:
                reason.details = {"blocked": sorted(result.blocked)}
            return illegal(ctx, reason, details=details)
        return legal(
            ctx,
            f"{unit.id} is in supply from {result.source} "
            f"({count_of(len(result.path) - 1, 'hex')}).",
            [
                effect(
                    ctx,
                    "zoc.in_supply",
                    f"Supply line {' -> '.join(result.path)}.",
                    ["basic.supply"],
                    unit=unit.id,
                    hex=result.source,
                )
            ],
            details,
        )
    path = without_start(unit.hex, action.path)
    problem = check_path(ctx, unit.hex, path, unit.id)
    if problem is not None:
        return illegal(ctx, problem)
    ctx.cite("basic.supply")
    problems: list[Problem] = []  # every rule the claimed line breaks, once each
    if len(path) > ctx.board.supply.max_length:
        problems.append(
            Problem(
                "zoc.supply_too_long",
                f"The supply line is {len(path)} hexes long; the maximum is "
                f"{ctx.board.supply.max_length}.",
                ["basic.supply"],
                unit=unit.id,
            )
        )
    prev = unit.hex
    for i, hex_id in enumerate(path, start=1):
        problem = supply_entry(ctx, unit, prev, hex_id, i)
        if problem is not None and all(p.code != problem.code for p in problems):
            problem.unit = unit.id
            problems.append(problem)
        prev = hex_id
    sources = ctx.board.supply.sources.get(unit.side, [])
    end = path[-1] if path else unit.hex
    if end not in sources:
        problems.append(
            Problem(
                "zoc.supply_no_source",
                f"The supply line ends in {end}, which is not a supply source of {unit.side}.",
                ["basic.supply"],
                hex=end,
                unit=unit.id,
            )
        )
    if problems:
        return illegal(ctx, problems)
    full = [unit.hex, *path]
    _negation_sections(ctx, unit, full)
    return legal(
        ctx,
        f"{unit.id} is in supply from {end} ({count_of(len(path), 'hex')}).",
        [
            effect(
                ctx,
                "zoc.in_supply",
                f"Supply line {' -> '.join(full)}.",
                ["basic.supply"],
                unit=unit.id,
                hex=end,
            )
        ],
        {"unit": unit.id, "in_supply": True, "path": full, "length": len(path), "source": end},
    )


def apply_trace_supply(
    board: object, state: State, action: TraceSupplyAction, _: NoOutcome
) -> State:
    """Tracing supply changes nothing on the map."""
    return state.model_copy(deep=True)
