"""Section 8.2 for moving units: Operational Movement, Mud, Storms/Snow, Reserve, Exploitation.

Legality comes in layers, each check tagged with its rule. A malformed action stops at the
first problem (there is nothing left to judge); past that, every layer is judged and a refusal
lists every rule that forbids the move (policy in docs/ARCHITECTURE.md):

1. well-formed: the unit exists and is on the map, every hex id parses and is on the map, the
   path is contiguous, an overrun names an enemy unit whose hex ends the path;
2. pseudo-legal: the phase lets this unit move, terrain is passable, no enemy-occupied hex is
   entered (except the overrun target's), the movement allowance covers the cost;
3. legal: the EZOC rules of 8.2 for the current phase.

The phase is the kit's check (``Ruleset.adjudicate``, before this judge): out of the
movement phases it refuses the move after layer 1 (:func:`move_names`) with the rest of
layer 2 (:func:`move_problems`), and no 8.2 rule applies.

:class:`Mover` holds the per-step EZOC rules; :func:`judge_move` walks a submitted path with
them and :func:`reachable` (the ``reachable`` query) searches every path with the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app import native
from app.rules.judgement import Problem
from app.rules.ruling import Effect, Ruling
from app.rules.zoc.context import Context, effect, illegal, legal, unit_ids
from app.rules.zoc.models import MoveAction, MoveOutcome, State, Unit
from app.rules.zoc.paths import check_path, names, unit_and_path
from app.rules.zoc.sequence import move_refusal
from app.rules.zoc.zones import Zones

if TYPE_CHECKING:  # the pure modules'; at run time the builds in use (app/native.py)
    from app.rules.zoc.index import moved_to
    from app.rules.zoc.search import frontier_why_nots, reached, search, why_nots
else:
    moved_to = native.selected("app.rules.zoc.index").moved_to
    _search = native.selected("app.rules.zoc.search")
    reached, search, why_nots = _search.reached, _search.search, _search.why_nots
    frontier_why_nots = _search.frontier_why_nots

STORMY = ("storms", "snow")


def _lifted(weather_stop: Stop | None) -> str:
    """How an exception to the ordinary stop reads when Storms/Snow may still stop the unit."""
    if weather_stop is None:
        return "no stop is required there."
    return "that lifts the ordinary stop, but the Storms/Snow stop admits no exceptions."


def _at(step: int) -> str:
    """Message prefix naming the step (steps count from 1; 0 = a searched step)."""
    return f"Step {step}: " if step else ""


@dataclass
class Stop:
    """The unit must end its move in ``hex`` (entered at ``step``)."""

    step: int
    hex: str
    reason: str  # entered_ezoc | weather_entry | weather_exit
    by: list[str]
    sections: list[str]
    message: str


@dataclass
class StepOutcome:
    """The EZOC rules' verdict on one step from ``cur`` into ``nxt``."""

    problem: Problem | None = None
    stop: Stop | None = None
    effects: list[Effect] = field(default_factory=list)
    ezoc_by: list[str] = field(default_factory=list)
    negated_by: list[dict[str, Any]] = field(default_factory=list)
    no_zoc: list[dict[str, Any]] = field(default_factory=list)


class Mover:
    """One unit moving in the current phase: the EZOC rules of 8.2 for each step."""

    def __init__(self, ctx: Context, unit: Unit, overrun: Unit | None = None) -> None:
        assert unit.hex is not None
        self.ctx = ctx
        self.unit = unit
        self.side = unit.side
        self.start = unit.hex
        self.phase = ctx.state.phase
        self.overrun = overrun
        self.started_in_ezoc = self._started_in_ezoc()

    # -- phase facts ----------------------------------------------------------------------

    def _started_in_ezoc(self) -> bool:
        """Was the unit in an EZOC hex at the start of the phase (negation not considered)?"""
        ctx = self.ctx
        start_hex = ctx.state.start_positions.get(self.unit.id, self.unit.hex)
        if start_hex is None or not ctx.on_map(start_hex):
            return False
        if start_hex == self.unit.hex:
            return bool(ctx.ezoc(start_hex, self.side))
        positions = ctx.state.start_positions
        then = Zones(
            ctx.board,
            ctx.topo,
            ((u, positions.get(u.id, u.hex)) for u in ctx.state.units),
            ctx.state.markers,
        )
        return bool(then.ezoc(start_hex, self.side))

    def _enemy_sections(self) -> list[str]:
        if self.side == self.ctx.state.phasing_side:
            return ["8.1", "8.1.clar.nonphasing"]
        return ["8.1"]

    def _phase_sections(self) -> list[str]:
        return ["8.2.exploitation"] if self.phase == "exploitation" else []

    def _weather_applies(self) -> bool:
        if self.phase == "operational_movement":
            return True
        if self.phase == "exploitation":
            self.ctx.rely("zoc.weather-in-exploitation")
            return self.ctx.options.weather_in_exploitation
        return False

    # -- pseudo-legal ---------------------------------------------------------------------

    def may_move(self) -> Problem | None:
        """May this unit move in a movement phase at all (its side phasing, a ground unit
        that has not moved yet)? Whether the phase is one is the kit's check."""
        ctx, unit = self.ctx, self.unit
        if unit.side != ctx.state.phasing_side:
            return Problem(
                "zoc.not_phasing",
                f"{unit.id} belongs to {unit.side}, but {ctx.state.phasing_side} is phasing.",
                ["basic.phase"],
                unit=unit.id,
            )
        if not unit.ground:
            return Problem(
                "zoc.not_ground_unit",
                f"{unit.id} is not a ground unit; this ruleset moves ground units only.",
                ["basic.phase"],
                unit=unit.id,
            )
        if unit.id in ctx.state.moved:
            return Problem(
                "zoc.already_moved",
                f"{unit.id} has already moved this phase.",
                ["basic.phase"],
                unit=unit.id,
            )
        return None

    def basic_step(self, cur: str, nxt: str, step: int, final_overrun: bool) -> int | Problem:
        """Terrain and enemy occupation for one step; the cost in movement points."""
        ctx = self.ctx
        cost, why = ctx.entry_cost(cur, nxt)
        if cost is None:
            return Problem(
                "zoc.prohibited_terrain",
                f"{_at(step)}{why}.",
                ["basic.terrain"],
                step=step,
                hex=nxt,
                unit=self.unit.id,
            )
        enemies = ctx.enemy_ground_units(nxt, self.side)
        if enemies and not final_overrun:
            return Problem(
                "zoc.enemy_occupied",
                f"{_at(step)}{nxt} holds enemy units ({names(enemies)}).",
                ["basic.enemy-hex"],
                step=step,
                hex=nxt,
                unit=self.unit.id,
                details={"enemies": unit_ids(enemies)},
            )
        return cost

    # -- legal: the EZOC rules ------------------------------------------------------------

    def zoc_step(
        self, cur: str, nxt: str, step: int, first: bool, attack_only: bool = False
    ) -> StepOutcome:
        """Apply 8.2 to one step; ``first`` is True for the step out of the start hex.

        ``attack_only`` marks the last step of an overrun: the unit attacks ``nxt`` from
        ``cur`` and stays in ``cur``, so it neither leaves ``cur`` (no Mud or Storms/Snow exit
        rule) nor enters ``nxt`` (no stop)."""
        if attack_only:
            return StepOutcome(ezoc_by=unit_ids(self.ctx.ezoc(nxt, self.side)))
        if self.phase == "reserve_movement":
            return self._reserve_step(cur, nxt, step, first)
        return self._moving_step(cur, nxt, step, first)

    def _moving_step(self, cur: str, nxt: str, step: int, first: bool) -> StepOutcome:
        ctx, side = self.ctx, self.side
        cur_ezoc = ctx.zones.ezoc(cur, side)
        nxt_ezoc = ctx.zones.ezoc(nxt, side)
        if not cur_ezoc and not nxt_ezoc:  # 8.2 says nothing of a step outside every EZOC
            return StepOutcome(no_zoc=ctx.no_zoc_notes(nxt, side))
        out = StepOutcome()
        operational = self.phase == "operational_movement"
        # Leaving ``cur``: Mud pins, Storms/Snow ends the move one hex later (no exceptions).
        exit_stop: Stop | None = None
        if cur_ezoc and ctx.weather(cur) != "clear" and self._weather_applies():
            weather = ctx.weather(cur)
            ctx.rely("zoc.weather-by-zone")
            if weather == "mud":
                out.problem = Problem(
                    "zoc.mud_exit",
                    f"{_at(step)}{self.unit.id} may not leave {cur}: it is an EZOC hex "
                    f"(of {names(cur_ezoc)}) in Mud.",
                    ["8.2.mud", *self._phase_sections(), *self._enemy_sections()],
                    step=step,
                    hex=cur,
                    unit=self.unit.id,
                    details={"by": unit_ids(cur_ezoc), "weather": weather},
                )
                return out
            if weather in STORMY:
                applies = True
                if first:
                    ctx.rely("zoc.storms-leaving-start")
                    applies = ctx.options.storms_stop_on_leaving_start
                if applies:
                    exit_stop = Stop(
                        step,
                        nxt,
                        "weather_exit",
                        unit_ids(cur_ezoc),
                        ["8.2.storms-snow", *self._phase_sections(), *self._enemy_sections()],
                        f"it left {cur}, an EZOC hex in {weather.capitalize()}",
                    )
        if first and operational and self.started_in_ezoc and cur_ezoc:
            out.effects.append(
                effect(
                    ctx,
                    "zoc.left_ezoc",
                    f"{self.unit.id} began the phase in EZOC and may leave {cur}.",
                    ["8.2.operational.started-in"],
                    unit=self.unit.id,
                    hex=cur,
                    by=unit_ids(cur_ezoc),
                )
            )
        out.stop = exit_stop
        # Entering ``nxt``.
        out.ezoc_by = unit_ids(nxt_ezoc)
        out.no_zoc = ctx.no_zoc_notes(nxt, side)
        if not nxt_ezoc:
            return out
        enemy = self._enemy_sections()
        if ctx.weather(nxt) in STORMY and self._weather_applies():
            ctx.rely("zoc.weather-by-zone")
            weather = ctx.weather(nxt)
            out.stop = out.stop or Stop(
                step,
                nxt,
                "weather_entry",
                unit_ids(nxt_ezoc),
                ["8.2.storms-snow", *self._phase_sections(), *enemy],
                f"it entered {nxt}, an EZOC hex in {weather.capitalize()}",
            )
        exception = "8.2.operational.exceptions" if operational else "8.2.exploitation"
        stop_rule = "8.2.operational" if operational else "8.2.exploitation"
        negators = ctx.negators(nxt, side, self.unit.id)
        if negators:
            out.negated_by = [n.as_json() for n in negators]
            out.effects.append(
                effect(
                    ctx,
                    "zoc.ezoc_negated",
                    f"The EZOC in {nxt} (of {names(nxt_ezoc)}) is negated by "
                    f"{', '.join(n.id for n in negators)}: " + _lifted(out.stop),
                    [*ctx.negation_cites(negators), exception, *enemy],
                    unit=self.unit.id,
                    hex=nxt,
                    step=step,
                    by=unit_ids(nxt_ezoc),
                    details={"negated_by": out.negated_by},
                )
            )
            return out
        if operational and self._overrun_exempt(nxt_ezoc):
            assert self.overrun is not None
            out.effects.append(
                effect(
                    ctx,
                    "zoc.overrun_exempt",
                    f"{self.unit.id} is overrunning {self.overrun.id}, which exerts the EZOC "
                    f"in {nxt}: " + _lifted(out.stop),
                    [exception, *enemy],
                    unit=self.unit.id,
                    hex=nxt,
                    step=step,
                    by=unit_ids(nxt_ezoc),
                )
            )
            return out
        extra: list[str] = []
        if operational and self.started_in_ezoc:
            if first:
                extra.append("8.2.operational.started-in")
            else:
                ctx.rely("zoc.started-in-uniform")
                if ctx.options.started_in_ezoc_exempt:
                    return out
        ignored = ctx.ignored_markers(nxt)
        if ignored:
            extra.append("8.1.clar.markers")
        out.stop = out.stop or Stop(
            step,
            nxt,
            "entered_ezoc",
            unit_ids(nxt_ezoc),
            [stop_rule, *extra, *enemy],
            f"it entered the EZOC of {names(nxt_ezoc)} in {nxt}"
            + (f" (markers {', '.join(ignored)} do not negate it)" if ignored else ""),
        )
        return out

    def _overrun_exempt(self, ezoc: list[Unit]) -> bool:
        """8.2 exception: the mover overruns the unit projecting the EZOC. Units stacked with
        the named target are overrun with it (``zoc.overrun-whole-stack``); the EZOC of any
        other enemy unit still stops the mover (``zoc.overrun-only-target``)."""
        target = self.overrun
        if target is None:
            return False
        stackmates = [u for u in ezoc if u.id != target.id and u.hex == target.hex]
        overrun = {target.id}
        if stackmates:
            self.ctx.rely("zoc.overrun-whole-stack")
            if self.ctx.options.overrun_exempts_target_stack:
                overrun |= {u.id for u in stackmates}
        if all(u.id not in overrun for u in ezoc):
            return False
        if all(u.id in overrun for u in ezoc):
            return True
        self.ctx.rely("zoc.overrun-only-target")
        return self.ctx.options.overrun_exempts_all_ezoc

    def _reserve_step(self, cur: str, nxt: str, step: int, first: bool) -> StepOutcome:
        ctx, side, out = self.ctx, self.side, StepOutcome()
        for hex_id, verb in ((cur, "leave"), (nxt, "enter")):
            ezoc = ctx.ezoc(hex_id, side)
            if not ezoc:
                continue
            if verb == "leave" and not first and ctx.options.reserve_negation:
                continue  # already judged when it was entered
            negators = ctx.negators(hex_id, side, self.unit.id)
            if negators:
                ctx.rely("zoc.reserve-no-negation")
                if ctx.options.reserve_negation:
                    out.negated_by = [n.as_json() for n in negators]
                    out.effects.append(
                        effect(
                            ctx,
                            "zoc.ezoc_negated",
                            f"The EZOC in {hex_id} is negated by "
                            f"{', '.join(n.id for n in negators)} (per-game option).",
                            [*ctx.negation_cites(negators), "8.2.reserve"],
                            unit=self.unit.id,
                            hex=hex_id,
                            step=step,
                            by=unit_ids(ezoc),
                        )
                    )
                    continue
            out.problem = Problem(
                "zoc.reserve_ezoc",
                f"{_at(step)}in Reserve Movement {self.unit.id} may not {verb} {hex_id}, "
                f"an EZOC hex (of {names(ezoc)}).",
                ["8.2.reserve", *self._enemy_sections()],
                step=step,
                hex=hex_id,
                unit=self.unit.id,
                details={"by": unit_ids(ezoc), "direction": verb},
            )
            return out
        out.ezoc_by = unit_ids(ctx.ezoc(nxt, side))
        out.no_zoc = ctx.no_zoc_notes(nxt, side)
        return out


# -- adjudication of a move -------------------------------------------------------------------


def _well_formed(
    ctx: Context, action: MoveAction
) -> tuple[Unit, str, list[str], Unit | None] | Problem:
    """Layer 1: the unit, its start hex, the path and the overrun target (None: no overrun);
    else the first problem (nothing past it can be judged)."""
    found = unit_and_path(ctx, action.unit, action.path)
    if isinstance(found, Problem):
        return found
    unit, start, path = found
    if not path:
        return Problem(
            "zoc.empty_path",
            f"The path of {unit.id} names no hex to enter after its own hex {start}.",
            ["basic.path"],
            unit=unit.id,
        )
    problem = check_path(ctx, start, path, unit.id)
    if problem is not None:
        return problem
    if action.overrun is None:
        return unit, start, path, None
    target = _overrun_target(ctx, unit, action.overrun, path)
    if isinstance(target, Problem):
        return target
    return unit, start, path, target


def move_names(ctx: Context, action: MoveAction) -> Problem | None:
    """``Kind.names`` of a move: its first well-formedness problem (layer 1)."""
    found = _well_formed(ctx, action)
    return found if isinstance(found, Problem) else None


def move_problems(ctx: Context, action: MoveAction) -> list[Problem]:
    """``Kind.despite_phase`` of a move: the rest of layer 2 (no overrun outside the
    operational movement and exploitation phases, terrain, enemy hexes, the allowance),
    reported with the phase's refusal (no 8.2 rule applies outside the movement phases)."""
    found = _well_formed(ctx, action)
    assert not isinstance(found, Problem)
    unit, start, path, target = found
    return _priced(Mover(ctx, unit, target), start, path, target)[0]


def _priced(
    mover: Mover, start: str, path: list[str], target: Unit | None
) -> tuple[list[Problem], list[int], int]:
    """Layer 2 past the unit's own checks: the problems, the costs of the steps priced (up
    to the first one over the allowance) and how many steps 8.2 judges (those up to a hex
    the unit may not enter at all)."""
    unit = mover.unit
    problems: list[Problem] = []
    if target is not None and mover.phase not in ("operational_movement", "exploitation"):
        problems.append(
            Problem(
                "zoc.overrun_not_allowed",
                f"No overrun in the {mover.phase} phase.",
                ["basic.overrun"],
                unit=unit.id,
            )
        )
    total = 0
    costs: list[int] = []
    judged = len(path)
    prev = start
    for i, hex_id in enumerate(path, start=1):
        final_overrun = target is not None and i == len(path)
        cost = mover.basic_step(prev, hex_id, i, final_overrun)
        if isinstance(cost, Problem):
            problems.append(cost)  # the cost from here on is unknown: no allowance check
            judged = i - 1
            break
        total += cost
        costs.append(cost)
        if total > unit.movement_allowance:
            problems.append(
                Problem(
                    "zoc.insufficient_mp",
                    f"Step {i}: entering {hex_id} brings the cost to {total}, over "
                    f"{unit.id}'s movement allowance of {unit.movement_allowance}.",
                    ["basic.movement-points"],
                    step=i,
                    hex=hex_id,
                    unit=unit.id,
                    details={"cost": total, "movement_allowance": unit.movement_allowance},
                )
            )
            break
        prev = hex_id
    return problems, costs, judged


def judge_move(ctx: Context, action: MoveAction) -> Ruling:
    """Judge a ``move`` action (see the module docstring for the layers) in a phase that
    allows it (the kit refuses one in another phase before this judge)."""
    found = _well_formed(ctx, action)
    if isinstance(found, Problem):
        return illegal(ctx, found)
    unit, start, path, target = found
    mover = Mover(ctx, unit, target)
    # 2. pseudo-legal -- every rule that forbids the move is reported, not only the first
    problems: list[Problem] = []
    problem = mover.may_move()
    if problem is not None:
        problems.append(problem)
    priced, costs, judged = _priced(mover, start, path, target)
    problems.extend(priced)
    if not problems:
        ctx.cite("basic.path", "basic.movement-points")
    # 3. legal: 8.2 (its first violation; the steps after it are not judged). When an earlier
    # layer refused the move and 8.2 forbids nothing, 8.2 did not shape the refusal.
    mark = ctx.checkpoint()
    refused_before = len(problems)
    effects: list[Effect] = []
    steps: list[dict[str, Any]] = []
    stop: Stop | None = None
    prev = start
    for i, hex_id in enumerate(path[:judged], start=1):
        if stop is not None:
            problems.append(
                Problem(
                    "zoc.must_stop",
                    f"{unit.id} must stop in {stop.hex} (step {stop.step}): {stop.message}; "
                    f"it may not continue to {hex_id}.",
                    stop.sections,
                    step=stop.step,
                    hex=stop.hex,
                    unit=unit.id,
                    details={"reason": stop.reason, "by": stop.by, "continued_to": hex_id},
                )
            )
            break
        final_overrun = target is not None and i == len(path)
        outcome = mover.zoc_step(prev, hex_id, i, first=i == 1, attack_only=final_overrun)
        effects.extend(outcome.effects)
        if outcome.problem is not None:
            problems.append(outcome.problem)
            break
        steps.append(
            {
                "step": i,
                "hex": hex_id,
                "cost": costs[i - 1] if i <= len(costs) else None,  # past the allowance
                "ezoc_by": outcome.ezoc_by,
                "negated_by": outcome.negated_by,
                "no_zoc": outcome.no_zoc,
            }
        )
        stop = outcome.stop
        prev = hex_id
    if refused_before and len(problems) == refused_before:
        ctx.restore(mark)
        return illegal(ctx, problems)
    if problems:
        return illegal(ctx, problems, effects, _details(unit, start, path, costs, steps, None))
    if stop is not None:
        effects.append(
            effect(
                ctx,
                "zoc.must_stop",
                f"{unit.id} must stop in {stop.hex}: {stop.message}.",
                stop.sections,
                unit=unit.id,
                hex=stop.hex,
                step=stop.step,
                by=stop.by,
                details={"reason": stop.reason},
            )
        )
    if target is not None:
        assert target.hex is not None
        attack_from = path[-2] if len(path) > 1 else start
        effects.append(
            effect(
                ctx,
                "zoc.overrun",
                f"{unit.id} overruns {target.id} in {target.hex} from {attack_from}; the "
                "overrun is resolved outside this ruleset.",
                ["basic.overrun"],
                unit=unit.id,
                hex=target.hex,
                by=(target.id,),
                details={"attack_from": attack_from},
            )
        )
    details = _details(unit, start, path, costs, steps, stop)
    if target is not None:
        details["end_hex"] = path[-2] if len(path) > 1 else start
    summary = (
        f"{unit.id} moves {' -> '.join([start, *path])} for {sum(costs)} of "
        f"{unit.movement_allowance} movement points"
    )
    if stop is not None:
        summary += f"; it must stop in {stop.hex}: {stop.message}"
    if target is not None:
        summary += f"; it overruns {target.id}"
    return legal(ctx, summary + ".", effects, details)


def _overrun_target(ctx: Context, unit: Unit, target_id: str, path: list[str]) -> Unit | Problem:
    target = ctx.units.get(target_id)
    if target is None or target.hex is None:
        return Problem(
            "zoc.unknown_unit",
            f"There is no unit {target_id!r} on the map to overrun.",
            ["basic.overrun"],
            unit=unit.id,
        )
    if target.side == unit.side or not target.ground:
        return Problem(
            "zoc.overrun_target",
            f"{target_id} is not an enemy ground unit.",
            ["basic.overrun"],
            unit=unit.id,
        )
    if path[-1] != target.hex:
        return Problem(
            "zoc.overrun_target",
            f"An overrun path ends in the target's hex ({target.hex}), not {path[-1]}.",
            ["basic.overrun"],
            step=len(path),
            hex=path[-1],
            unit=unit.id,
        )
    return target


def _details(
    unit: Unit,
    start: str,
    path: list[str],
    costs: list[int],
    steps: list[dict[str, Any]],
    stop: Stop | None,
) -> dict[str, Any]:
    return {
        "unit": unit.id,
        "from": start,
        "path": [start, *path],
        "cost": sum(costs),
        "movement_allowance": unit.movement_allowance,
        "end_hex": path[-1],
        "stop_hex": stop.hex if stop is not None else None,
        "steps": steps,
    }


# -- the reachable query ------------------------------------------------------------------------


def reachable_start(
    ctx: Context, unit: Unit
) -> tuple[Mover, dict[str, Any], dict[str, Any] | None]:
    """The ``reachable`` query before its search: the mover, the answer's common fields, and
    the whole answer when the unit cannot move at all (the phase or unit checks, or Reserve
    Movement refusing every step out of its hex)."""
    assert unit.hex is not None
    mover = Mover(ctx, unit)
    start = unit.hex
    base: dict[str, Any] = {
        "unit": unit.id,
        "phase": ctx.state.phase,
        "start": start,
        "movement_allowance": unit.movement_allowance,
    }
    problem = move_refusal(mover.phase, unit.id) or mover.may_move()
    if problem is None and mover.phase == "reserve_movement":
        first_out = [mover.zoc_step(start, n, 0, True) for n, _ in ctx.topo.neighbors[start]]
        if first_out and all(o.problem is not None and o.problem.hex == start for o in first_out):
            problem = first_out[0].problem
    if problem is None:
        return mover, base, None
    return (
        mover,
        base,
        {
            **base,
            "can_move": False,
            "reason": {
                "code": problem.code,
                "message": problem.message,
                "citations": [c.section for c in ctx.cite(*problem.sections)],
            },
            "reachable": {},
            "unreachable": {},
            "citations": ctx.cited_ids(),
        },
    )


def reachable(ctx: Context, unit: Unit, why_not: str = "frontier") -> dict[str, Any]:
    """Every hex the unit can end its move in this phase: cheapest legal path, cost, stops;
    and why hexes within range are not reached (with citations): with ``why_not`` "frontier"
    (the default) the hexes the search refused a step into (terrain, enemy units, the
    allowance, a stop, an EZOC rule), with "all" also every other hex within the allowance's
    distance (``zoc.out_of_reach``). The search is :mod:`app.rules.zoc.search`."""
    mover, base, refused = reachable_start(ctx, unit)
    if refused is not None:
        return refused
    assert unit.hex is not None
    start = unit.hex
    found = search(ctx, mover, unit, ctx.options)
    result = reached(ctx, found)
    unreachable: dict[str, list[dict[str, Any]]] = {}
    if why_not == "all":
        layout = ctx.board.layout.layout()
        on_map = ctx.board.hexes
        allowance = unit.movement_allowance
        rows = found.everywhere(
            allowance, lambda: (h for h in layout.within(start, allowance) if h in on_map)
        )
        out_of_reach: list[str] | None = None
        for hex_id, in_order in rows:
            if in_order is not None:
                unreachable[hex_id] = why_nots(in_order)
                continue
            if out_of_reach is None:  # nothing else cites in between: as at the first such hex
                out_of_reach = [c.section for c in ctx.cite("basic.movement-points")]
            unreachable[hex_id] = [
                {
                    "code": "zoc.out_of_reach",
                    "message": f"No legal path reaches {hex_id} within the movement allowance.",
                    "citations": list(out_of_reach),
                }
            ]
    else:
        unreachable = frontier_why_nots(found, unit.movement_allowance)
    return {
        **base,
        "can_move": True,
        "started_in_ezoc": mover.started_in_ezoc,
        "reachable": result,  # in hex id order
        "unreachable": unreachable,
        "citations": ctx.cited_ids(),
        "interpretations": [i.id for i in ctx.interpretations()],
    }


def apply_move(board: object, state: State, action: MoveAction, outcome: MoveOutcome) -> State:
    """The unit stands in its end hex and has moved this phase."""
    return moved_to(state, action.unit, outcome.end_hex, moved=True)
