"""The ``zoc`` ruleset: Zone of Control, sections 8-8.2 of seed 000, as a :class:`Ruleset`."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from app.rules.base import (
    UMPIRE,
    AvailableActions,
    InvalidQuery,
    PhaseSpec,
    Position,
    QuerySpec,
    RulesError,
    Ruleset,
    SequenceOfPlay,
    Sides,
)
from app.rules.ruling import Ruling
from app.rules.zoc import results
from app.rules.zoc.available import available_actions
from app.rules.zoc.catalog import CATALOG, INTERPRETATIONS, RULESET_ID, SOURCE
from app.rules.zoc.common import Problem, effect, illegal, legal
from app.rules.zoc.examples import SEED_EXAMPLE
from app.rules.zoc.models import (
    ACTION_MODELS,
    Action,
    Board,
    EzocMapParams,
    MoveAction,
    PlaceMarkerAction,
    PlaceUnitAction,
    ReachableParams,
    RemoveMarkerAction,
    RetreatAction,
    Scenario,
    SetPhaseAction,
    State,
    SupplyParams,
    TraceSupplyAction,
    ZocOptions,
)
from app.rules.zoc.movement import judge_move, reachable
from app.rules.zoc.retreat import judge_retreat
from app.rules.zoc.setup import build, marker_problem, normalized_marker
from app.rules.zoc.supply import judge_trace_supply, trace
from app.rules.zoc.zones import Context, unit_ids

UNIT_ACTIONS = (MoveAction, RetreatAction, TraceSupplyAction)

PHASES: tuple[PhaseSpec, ...] = (
    PhaseSpec("operational_movement", "Operational Movement Phase"),
    PhaseSpec("combat", "Combat Phase", acts="both"),
    PhaseSpec("exploitation", "Exploitation Phase"),
    PhaseSpec("reserve_movement", "Reserve Movement Phase"),
)
"""Project default sequence of one player turn (the source gives none). In Combat both sides
act: retreats belong to the retreating unit's side."""


class ZocRuleset(Ruleset[Board, State, Any, ZocOptions]):
    """Zones of control for an operational hex wargame (seed 000, section 8)."""

    id = RULESET_ID
    version = "1.0.0"
    title = "Zone of Control (operational hex game, section 8)"
    description = (
        "Ground units project zones of control into adjacent hexes; enemy zones stop movement, "
        "pin units in Mud, end moves in Storms or Snow, bar Reserve Movement, cut supply lines "
        "and restrict retreats and exploitation."
    )
    source = SOURCE
    catalog = CATALOG
    interpretations = INTERPRETATIONS
    scenario_model = Scenario
    options_model = ZocOptions
    board_model = Board
    state_model = State
    action_models = ACTION_MODELS

    # -- the game -------------------------------------------------------------------------

    def generated_size(self, scenario: Any) -> int:
        """The hexes of the map areas (rectangles), which the document does not list."""
        if not isinstance(scenario, Scenario):
            return 0
        return sum(
            max(0, a.cols[1] - a.cols[0] + 1) * max(0, a.rows[1] - a.rows[0] + 1)
            for a in scenario.areas
        )

    def setup(self, scenario: Any, options: ZocOptions) -> tuple[Board, State]:
        if not isinstance(scenario, Scenario):
            scenario = Scenario.model_validate(
                scenario.model_dump() if isinstance(scenario, BaseModel) else scenario
            )
        return build(scenario)

    def sides(self, board: Board) -> Sides:
        return Sides(
            names=tuple(s.id for s in board.sides),
            labels={s.id: s.label or s.id for s in board.sides},
        )

    def actor_side(self, board: Board, state: State, action: Any) -> str | None:
        if isinstance(action, UNIT_ACTIONS):
            for unit in state.units:
                if unit.id == action.unit:
                    return unit.side
            return None
        return UMPIRE

    def adjudicate(
        self,
        board: Board,
        state: State,
        action: Any,
        options: ZocOptions,
        dice: Sequence[int] = (),
    ) -> Ruling:
        """Judge an action. Pure: the same board, state, action and options give the same
        ruling."""
        if not isinstance(options, ZocOptions):
            options = ZocOptions.model_validate(options or {})
        ctx = Context(board, state, options)
        if isinstance(action, MoveAction):
            return judge_move(ctx, action)
        if isinstance(action, RetreatAction):
            return judge_retreat(ctx, action)
        if isinstance(action, TraceSupplyAction):
            return judge_trace_supply(ctx, action)
        if isinstance(action, SetPhaseAction):
            return _judge_set_phase(ctx, action)
        if isinstance(action, PlaceUnitAction):
            return _judge_place_unit(ctx, action)
        if isinstance(action, PlaceMarkerAction):
            return _judge_place_marker(ctx, action)
        if isinstance(action, RemoveMarkerAction):
            return _judge_remove_marker(ctx, action)
        raise RulesError(f"not a zoc action: {type(action).__name__}")

    def apply(self, board: Board, state: State, action: Any, ruling: Ruling) -> State:
        """The state after a legal action (inputs are not mutated)."""
        if not ruling.legal:
            raise RulesError("an illegal action cannot be applied")
        new = state.model_copy(deep=True)
        if isinstance(action, MoveAction):
            end = ruling.details.get("end_hex", action.path[-1])
            _unit(new, action.unit).hex = end
            if action.unit not in new.moved:
                new.moved.append(action.unit)
        elif isinstance(action, RetreatAction):
            if action.path:
                _unit(new, action.unit).hex = action.path[-1]
        elif isinstance(action, SetPhaseAction):
            new.phase = action.phase
            new.phasing_side = action.phasing_side
            new.weather.update(action.weather)
            if action.turn is not None:
                new.turn = action.turn
            new.start_positions = {u.id: u.hex for u in new.units}
            new.moved = []
        elif isinstance(action, PlaceUnitAction):
            _unit(new, action.unit).hex = action.hex
        elif isinstance(action, PlaceMarkerAction):
            marker = normalized_marker(action.marker)
            new.markers = [m for m in new.markers if m.id != marker.id] + [marker]
        elif isinstance(action, RemoveMarkerAction):
            new.markers = [m for m in new.markers if m.id != action.marker]
        return new

    # -- sequence of play -------------------------------------------------------------------

    def sequence_of_play(self, board: Board) -> SequenceOfPlay:
        """Phases of a player turn (project default; the source text gives no sequence)."""
        return SequenceOfPlay(
            phases=PHASES,
            citation=CATALOG.cite("basic.phase"),
            sides=tuple(s.id for s in board.sides),
        )

    def position(self, board: Board, state: State) -> Position:
        return Position(turn=state.turn, phase=state.phase, phasing_side=state.phasing_side)

    def advance_phase(self, board: Board, state: State) -> State:
        """The next phase; after the last phase the next side's turn (turn + 1 after the last
        side). Records every unit's start position (8.2) and clears the moved list."""
        nxt = self.sequence_of_play(board).next_position(self.position(board, state))
        new = state.model_copy(deep=True)
        new.turn = nxt.turn
        new.phase = nxt.phase  # type: ignore[assignment]
        new.phasing_side = nxt.phasing_side or state.phasing_side
        new.start_positions = {u.id: u.hex for u in new.units}
        new.moved = []
        return new

    # -- read side ------------------------------------------------------------------------

    def available_actions(
        self, board: Board, state: State, options: ZocOptions, seat: str
    ) -> AvailableActions:
        return available_actions(board, state, options, seat)

    def queries(self) -> Mapping[str, QuerySpec]:
        return {
            "ezoc-map": QuerySpec(
                name="ezoc-map",
                description="Every hex in EZOC for a side: projecting units, negation (by "
                "what), and the projections section 8 blocks, with the clause that blocks them.",
                params=EzocMapParams,
                run=_query_ezoc_map,
                result=results.EzocMap,
            ),
            "reachable": QuerySpec(
                name="reachable",
                description="For a unit in the current phase: each reachable hex with its "
                "cheapest legal path, cost and whether the unit must stop there; each hex in "
                "range it cannot reach, with the reasons and citations.",
                params=ReachableParams,
                run=_query_reachable,
                result=results.Reachable,
            ),
            "supply": QuerySpec(
                name="supply",
                description="Supply status of a unit (param unit) or of every unit of a side "
                "(param side): the supply line found, or the hexes that blocked it and why.",
                params=SupplyParams,
                run=_query_supply,
                result=results.Supply,
            ),
        }

    def example_scenario(self) -> dict[str, Any] | None:
        return copy.deepcopy(SEED_EXAMPLE)


# -- umpire actions ---------------------------------------------------------------------------


def _judge_set_phase(ctx: Context, action: SetPhaseAction) -> Ruling:
    sides = {s.id for s in ctx.board.sides}
    if action.phasing_side not in sides:
        return illegal(
            ctx,
            Problem(
                "zoc.unknown_side", f"There is no side {action.phasing_side!r}.", ["basic.umpire"]
            ),
        )
    zones = {h.weather_zone for h in ctx.board.hexes.values() if h.weather_zone is not None}
    for zone in action.weather:
        if zone not in zones:
            return illegal(
                ctx,
                Problem(
                    "zoc.unknown_zone", f"No hex lies in weather zone {zone!r}.", ["basic.umpire"]
                ),
            )
    weather = {**ctx.state.weather, **action.weather}
    return legal(
        ctx,
        f"The {action.phase} phase of {action.phasing_side} begins; unit positions are recorded "
        "as their start positions.",
        [
            effect(
                ctx,
                "zoc.phase_started",
                f"{action.phase} ({action.phasing_side})",
                ["basic.umpire", "8.2.operational.started-in"],
                details={
                    "phase": action.phase,
                    "phasing_side": action.phasing_side,
                    "weather": weather,
                },
            )
        ],
        {"phase": action.phase, "phasing_side": action.phasing_side, "weather": weather},
    )


def _judge_place_unit(ctx: Context, action: PlaceUnitAction) -> Ruling:
    if action.unit not in ctx.units:
        return illegal(
            ctx, Problem("zoc.unknown_unit", f"There is no unit {action.unit!r}.", ["basic.umpire"])
        )
    if action.hex is not None and not ctx.on_map(action.hex):
        return illegal(
            ctx,
            Problem(
                "zoc.off_map",
                f"Hex {action.hex!r} is not on the map.",
                ["basic.umpire"],
                hex=action.hex,
            ),
        )
    where = action.hex or "off the map"
    return legal(
        ctx,
        f"The umpire puts {action.unit} {'in ' if action.hex else ''}{where}.",
        [effect(ctx, "zoc.unit_placed", where, ["basic.umpire"], unit=action.unit, hex=action.hex)],
        {"unit": action.unit, "hex": action.hex},
    )


def _judge_place_marker(ctx: Context, action: PlaceMarkerAction) -> Ruling:
    marker = action.marker
    problem = marker_problem(
        marker, ctx.board.layout.layout(), ctx.board.hexes, {s.id for s in ctx.board.sides}
    )
    if problem is not None:
        sections = ["basic.umpire"] + (["8.clar.beachhead"] if marker.kind == "beachhead" else [])
        return illegal(ctx, Problem("zoc.bad_marker", problem, sections, hex=marker.hex))
    return legal(
        ctx,
        f"The umpire places {marker.kind} marker {marker.id} in {marker.hex}.",
        [effect(ctx, "zoc.marker_placed", marker.kind, ["basic.umpire"], hex=marker.hex)],
        {"marker": normalized_marker(marker).model_dump(mode="json")},
    )


def _judge_remove_marker(ctx: Context, action: RemoveMarkerAction) -> Ruling:
    if all(m.id != action.marker for m in ctx.state.markers):
        return illegal(
            ctx,
            Problem(
                "zoc.unknown_marker", f"There is no marker {action.marker!r}.", ["basic.umpire"]
            ),
        )
    return legal(
        ctx,
        f"The umpire removes marker {action.marker}.",
        [effect(ctx, "zoc.marker_removed", action.marker, ["basic.umpire"])],
        {"marker": action.marker},
    )


def _unit(state: State, unit_id: str) -> Any:
    for unit in state.units:
        if unit.id == unit_id:
            return unit
    raise RulesError(f"unknown unit {unit_id!r}")


# -- queries ----------------------------------------------------------------------------------


def _coerce(board: Any, state: Any, options: Any) -> Context:
    b = board if isinstance(board, Board) else Board.model_validate(board)
    s = state if isinstance(state, State) else State.model_validate(state)
    o = options if isinstance(options, ZocOptions) else ZocOptions.model_validate(options or {})
    return Context(b, s, o)


def _params(model: type[BaseModel], params: Any) -> Any:
    return params if isinstance(params, model) else model.model_validate(params or {})


def _query_ezoc_map(board: Any, state: Any, options: Any, params: Any) -> dict[str, Any]:
    ctx = _coerce(board, state, options)
    p: EzocMapParams = _params(EzocMapParams, params)
    side = p.side
    if side not in {s.id for s in ctx.board.sides}:
        raise InvalidQuery(f"unknown side {side!r}")
    hexes: dict[str, Any] = {}
    for hex_id in sorted(ctx.zones.into):
        ezoc = ctx.ezoc(hex_id, side)
        if not ezoc:
            continue
        negators = ctx.negators(hex_id, side, None)
        sections = ["8", "8.1"]
        if side == ctx.state.phasing_side:
            sections.append("8.1.clar.nonphasing")
        if negators:
            sections.extend(ctx.negation_cites(negators))
        ignored = ctx.ignored_markers(hex_id)
        if ignored:
            sections.append("8.1.clar.markers")
        via_beachhead = sorted(u.id for u in ezoc if (u.id, hex_id) in ctx.zones.via_beachhead)
        if via_beachhead:
            sections.extend(["8.exc.sea", "8.clar.beachhead"])
        hexes[hex_id] = {
            "by": unit_ids(ezoc),
            "negated": bool(negators),
            "negated_by": [n.as_json() for n in negators],
            "markers_not_negating": ignored,
            "across_beachhead_hexside": via_beachhead,
            "weather": ctx.weather(hex_id),
            "citations": [c.section for c in ctx.cite(*sections)],
        }
    blocked = []
    for b in ctx.zones.blocked:
        if b.side == side:
            continue
        ctx.cite(b.section)
        blocked.append(b.as_json())
    silent = []
    for s in ctx.zones.silent:
        if s.side == side:
            continue
        ctx.cite(s.section)
        silent.append({"unit": s.unit, "reason": s.reason, "section": s.section})
    return {
        "side": side,
        "phase": ctx.state.phase,
        "phasing_side": ctx.state.phasing_side,
        "hexes": hexes,
        "blocked": blocked,
        "no_zoc": silent,
        "citations": ctx.cited_ids(),
        "interpretations": [i.id for i in ctx.interpretations()],
    }


def _query_reachable(board: Any, state: Any, options: Any, params: Any) -> dict[str, Any]:
    ctx = _coerce(board, state, options)
    p: ReachableParams = _params(ReachableParams, params)
    unit = ctx.units.get(p.unit)
    if unit is None:
        raise InvalidQuery(f"unknown unit {p.unit!r}")
    if unit.hex is None:
        raise InvalidQuery(f"unit {p.unit!r} is not on the map")
    return reachable(ctx, unit)


def _query_supply(board: Any, state: Any, options: Any, params: Any) -> dict[str, Any]:
    ctx = _coerce(board, state, options)
    p: SupplyParams = _params(SupplyParams, params)
    if (p.unit is None) == (p.side is None):
        raise InvalidQuery("give exactly one of 'unit' or 'side'")
    if p.unit is not None:
        unit = ctx.units.get(p.unit)
        if unit is None:
            raise InvalidQuery(f"unknown unit {p.unit!r}")
        result = trace(ctx, unit).as_json(ctx)
        result["citations"] = ctx.cited_ids()
        result["interpretations"] = [i.id for i in ctx.interpretations()]
        return result
    if p.side not in {s.id for s in ctx.board.sides}:
        raise InvalidQuery(f"unknown side {p.side!r}")
    units = {
        u.id: trace(ctx, u).as_json(ctx)
        for u in ctx.state.units
        if u.side == p.side and u.hex is not None and u.ground
    }
    return {
        "side": p.side,
        "units": units,
        "in_supply": sorted(k for k, v in units.items() if v["in_supply"]),
        "out_of_supply": sorted(k for k, v in units.items() if not v["in_supply"]),
        "citations": ctx.cited_ids(),
        "interpretations": [i.id for i in ctx.interpretations()],
    }


__all__ = ["Action", "ZocRuleset"]
