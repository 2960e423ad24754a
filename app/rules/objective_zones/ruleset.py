"""The ``objective-zones`` ruleset (seed 003, Operational Objective Zones) as a plug-in."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from app.rules.base import (
    AvailableActions,
    InvalidQuery,
    PhaseSpec,
    Position,
    QuerySpec,
    RulesError,
    Ruleset,
    SealedDecision,
    SequenceOfPlay,
    Sides,
)
from app.rules.judgement import Judgement
from app.rules.objective_zones import actions as act
from app.rules.objective_zones import combat, engaged, results
from app.rules.objective_zones.available import available_actions
from app.rules.objective_zones.catalog import CATALOG, INTERPRETATIONS, RULESET_ID, SOURCE
from app.rules.objective_zones.combat import DIE
from app.rules.objective_zones.common import (
    Ctx,
    Problem,
    battalions,
    contested,
    garrison,
    in_zone,
    pending_assault,
    rely_capacity,
    sector_status,
)
from app.rules.objective_zones.examples import EXAMPLE
from app.rules.objective_zones.models import (
    ACTION_MODELS,
    CAPACITY,
    TRAFFICABILITY,
    Allocation,
    AllocationOptionsParams,
    Board,
    Bombard,
    ContinueMelee,
    DeclareAssault,
    EnterZone,
    ExitZone,
    GarrisonFire,
    MoraleTest,
    Musketry,
    Options,
    Scenario,
    State,
    Transfer,
    Unit,
    Unlimber,
    Withdraw,
    Zone,
    ZoneParams,
    allocation_model,
)
from app.rules.objective_zones.morale import judge_morale_test
from app.rules.objective_zones.support import judge_unlimber
from app.rules.ruling import Ruling

PHASES: tuple[PhaseSpec, ...] = (
    PhaseSpec("charge_declaration", "Charge Declaration Phase"),
    PhaseSpec("movement", "Movement Phase", acts="both"),
    PhaseSpec("initial_fire", "Initial Fire Phase", acts="both"),
    PhaseSpec("secondary_fire", "Secondary Fire Phase", acts="both"),
    PhaseSpec("objective_combat", "Objective Combat Resolution Phase", acts="both"),
)


def build(scenario: Scenario, options: Options) -> tuple[Board, State]:
    """Scenario -> board + state, every cross-reference checked."""
    check = Judgement(CATALOG)
    sides = [s.id for s in scenario.sides]
    if len(set(sides)) != len(sides):
        check.invalid(["sides"], "duplicate side id", "OZ.Scenario")
    zones: dict[str, Zone] = {}
    for i, z in enumerate(scenario.zones):
        if z.id in zones:
            check.invalid(["zones", i, "id"], f"duplicate zone {z.id}", "OZ.Scenario")
        cls = z.zone_class
        cap: int
        if cls == "C":
            cap = options.class_c_capacity
        elif cls == "E":
            cap = {"C": 2, "D": 3}[z.fortifies] if z.fortifies else options.class_e_capacity
        else:
            cap = CAPACITY[cls]
        zones[z.id] = Zone(
            id=z.id,
            name=z.name or z.id,
            zone_class=cls,
            capacity=z.capacity or cap,
            trafficability=TRAFFICABILITY[cls],
            adjacent=list(z.adjacent),
            road=z.road,
            gun_limit=4 if cls == "F" else 2,
            fort=z.fort,
        )
        if z.fort and not (z.capacity is not None and 6 <= z.capacity <= 12):
            check.invalid(
                ["zones", i, "capacity"],
                "a whole large fort holds 6-12 stands (give its capacity)",
                "A.36",
                code="objective-zones.scenario.fort_capacity",
            )
    for i, z in enumerate(scenario.zones):
        for n in z.adjacent:
            if n not in {x.id for x in scenario.zones}:
                check.invalid(["zones", i, "adjacent"], f"unknown zone {n}", "OZ.Scenario")
    units: list[Unit] = []
    seen: set[str] = set()
    for i, u in enumerate(scenario.units):
        loc: list[str | int] = ["units", i]
        if u.id in seen:
            check.invalid([*loc, "id"], f"duplicate unit {u.id}", "OZ.Scenario")
        seen.add(u.id)
        if u.side not in sides:
            check.invalid([*loc, "side"], f"unknown side {u.side}", "OZ.Scenario")
        if u.type != "artillery" and u.grade not in scenario.melee_dice:
            check.invalid([*loc, "grade"], f"no melee dice for grade {u.grade}", "OZ.Scenario")
        if u.type == "artillery" and u.sections < 1:
            check.invalid([*loc, "sections"], "a battery needs firing sections", "OZ.Scenario")
        if (u.zone is None) != (u.at == "board"):
            check.invalid(
                [*loc, "at"],
                "a unit in a zone is in transit or garrison; one on the board names no zone",
                "OZ.Display",
            )
        elif u.zone is not None and u.zone not in zones:
            check.invalid([*loc, "zone"], f"unknown zone {u.zone}", "OZ.Scenario")
        elif u.zone is not None and u.at == "garrison" and u.type != "artillery":
            zone = zones[u.zone]
            if u.sector is None or u.sector > zone.capacity:
                check.invalid(
                    [*loc, "sector"], f"garrison sector must be 1-{zone.capacity}", "OZ.Capacity"
                )
        units.append(
            Unit(
                id=u.id,
                side=u.side,
                type=u.type,
                grade=u.grade,
                men=u.men,
                sections=u.sections,
                zone=u.zone,
                at=u.at,
                sector=u.sector if u.at == "garrison" and u.type != "artillery" else None,
                entered_turn=u.entered_turn if u.zone else None,
                engaged=u.engaged,
            )
        )
    for zid, side in scenario.melees.items():
        if zid not in zones or side not in sides:
            check.invalid(["melees", zid], "an unknown zone or side", "OZ.Scenario")
    for uid, cause in scenario.morale_due.items():
        if uid not in seen or cause not in ("melee", "artillery"):
            check.invalid(["morale_due", uid], "an unknown unit or cause", "OZ.Scenario")
    phasing = scenario.phasing_side or sides[0]
    if phasing not in sides:
        check.invalid(["phasing_side"], f"unknown side {phasing}", "OZ.Scenario")
    check.raise_if_refused("the objective-zones scenario is inconsistent")
    board = Board(
        title=scenario.title,
        options=options,
        sides=list(scenario.sides),
        zones=zones,
        melee_dice=dict(scenario.melee_dice),
        casualties_per_hit=scenario.casualties_per_hit,
        battery_hit_level=scenario.battery_hit_level,
        morale_pass=dict(scenario.morale_pass),
    )
    state = State(
        turn=scenario.turn,
        phase=scenario.phase,
        phasing_side=phasing,
        units=units,
        melees=dict(scenario.melees),
        morale_due=dict(scenario.morale_due),
    )
    return board, state


class ObjectiveZonesRuleset(Ruleset[Board, State, Any, Options]):
    """Operational Objective Zones: zone displays, sectors, and secret assault allocation."""

    id = RULESET_ID
    version = "1.3.0"
    title = "Operational Objective Zones (measured horse-and-musket rules)"
    description = (
        "Villages, farms, redoubts and bridges fought over as zones with an In-Transit box and "
        "garrison sectors; assaults resolved by a secret, simultaneous troop allocation."
    )
    source = SOURCE
    catalog = CATALOG
    interpretations = INTERPRETATIONS
    scenario_model = Scenario
    options_model = Options
    board_model = Board
    state_model = State
    action_models = ACTION_MODELS

    def setup(self, scenario: Any, options: Options) -> tuple[Board, State]:
        scenario = self.coerce_scenario(scenario)
        if not isinstance(options, Options):
            options = Options.model_validate(options or {})
        return build(scenario, options)

    def sides(self, board: Board) -> Sides:
        return Sides(
            names=tuple(s.id for s in board.sides),
            labels={s.id: s.label or s.id for s in board.sides},
        )

    def actor_side(self, board: Board, state: State, action: Any) -> str | None:
        if isinstance(action, ContinueMelee):
            return None
        uid = action.units[0] if isinstance(action, DeclareAssault) else action.unit
        for unit in state.units:
            if unit.id == uid:
                return unit.side
        return None

    def adjudicate(
        self,
        board: Board,
        state: State,
        action: Any,
        options: Options,
        dice: Sequence[int] = (),
    ) -> Ruling:
        """Judge an action. Pure: same board, state, action and options, same ruling."""
        if not isinstance(options, Options):
            options = Options.model_validate(options or {})
        ctx = Ctx(board, state, options)
        if isinstance(action, EnterZone):
            return act.judge_enter(ctx, action)
        if isinstance(action, ExitZone):
            return act.judge_exit(ctx, action)
        if isinstance(action, Transfer):
            return act.judge_transfer(ctx, action)
        if isinstance(action, Withdraw):
            return act.judge_withdraw(ctx, action)
        if isinstance(action, Musketry):
            return act.judge_musketry(ctx, action)
        if isinstance(action, GarrisonFire):
            return act.judge_garrison_fire(ctx, action)
        if isinstance(action, Bombard):
            return act.judge_bombard(ctx, action, dice)
        if isinstance(action, DeclareAssault):
            return act.judge_declare(ctx, action)
        if isinstance(action, Unlimber):
            return judge_unlimber(ctx, action)
        if isinstance(action, MoraleTest):
            return judge_morale_test(ctx, action, dice)
        if isinstance(action, ContinueMelee):
            return engaged.judge_continue(ctx, action, dice)
        raise RulesError(f"not an objective-zones action: {type(action).__name__}")

    def apply(self, board: Board, state: State, action: Any, ruling: Ruling) -> State:
        if not ruling.legal:
            raise RulesError("an illegal action cannot be applied")
        ctx = Ctx(board, state, board.options)
        if isinstance(action, ContinueMelee):
            found = engaged.melee_round(ctx, action.zone)
            if isinstance(found, Problem):
                raise RulesError(found.message)
            return combat.apply(board, found[0], found[1], ruling)
        return act.apply_action(ctx, action, ruling)

    def dice_needed(self, board: Board, state: State, action: Any) -> Sequence[int]:
        ctx = Ctx(board, state, board.options)
        if isinstance(action, Bombard):
            return act.bombard_dice(ctx, action)
        if isinstance(action, MoraleTest):
            return [DIE] if action.unit in state.morale_due else []
        if isinstance(action, ContinueMelee):
            return engaged.dice_needed(ctx, action)
        return ()

    # -- sequence of play --------------------------------------------------------------------

    def sequence_of_play(self, board: Board) -> SequenceOfPlay:
        return SequenceOfPlay(
            phases=PHASES,
            citation=CATALOG.cite("OZ.Sequence"),
            sides=tuple(s.id for s in board.sides),
        )

    def position(self, board: Board, state: State) -> Position:
        return Position(turn=state.turn, phase=state.phase, phasing_side=state.phasing_side)

    def advance_phase(self, board: Board, state: State) -> State:
        """The next phase; after Objective Combat the other side's player turn (turn + 1
        after the last side). Assaults left unresolved lapse with their phase."""
        nxt = self.sequence_of_play(board).next_position(self.position(board, state))
        new = state.model_copy(deep=True)
        new.phase = nxt.phase  # type: ignore[assignment]
        if nxt.phase != PHASES[0].id:
            return new
        new.assaults = []
        new.fired_secondary = []
        new.phasing_side = nxt.phasing_side or state.phasing_side
        new.turn = nxt.turn
        return new

    # -- the sealed allocation -------------------------------------------------------------

    def sealed_decisions(self, board: Board, state: State) -> Mapping[str, SealedDecision]:
        if state.phase != "objective_combat":
            return {}
        out: dict[str, SealedDecision] = {}
        for a in state.assaults:
            if a.turn != state.turn:
                continue
            did = combat.decision_id(a.zone, a.turn)
            out[did] = SealedDecision(
                id=did,
                title=f"Troop allocation for the assault on {a.zone} (turn {a.turn})",
                sides=(a.attacker, a.defender),
                order_model=allocation_model(a.zone),
                citation=CATALOG.cite("OZ.Assault.B.1"),
            )
        return out

    def judge_order(
        self,
        board: Board,
        state: State,
        decision: SealedDecision,
        side: str,
        order: BaseModel,
        options: Options,
    ) -> Ruling:
        zone = getattr(decision.order_model, "zone_id", None) or ""
        assert isinstance(order, Allocation)
        return combat.judge_order(board, state, zone, side, order, options)

    def sealed_dice_needed(
        self, board: Board, state: State, decision: str, orders: Mapping[str, BaseModel]
    ) -> Sequence[int]:
        return combat.dice_needed(board, state, decision, orders, board.options)

    def resolve_sealed(
        self,
        board: Board,
        state: State,
        decision: str,
        orders: Mapping[str, BaseModel],
        options: Options,
        dice: Sequence[int] = (),
    ) -> Ruling:
        if not isinstance(options, Options):
            options = Options.model_validate(options or {})
        return combat.resolve(board, state, decision, orders, options, dice)

    def apply_sealed(
        self,
        board: Board,
        state: State,
        decision: str,
        orders: Mapping[str, BaseModel],
        ruling: Ruling,
    ) -> State:
        return combat.apply(board, state, decision, ruling)

    # -- read side ----------------------------------------------------------------------------

    def available_actions(
        self, board: Board, state: State, options: Options, seat: str
    ) -> AvailableActions:
        return available_actions(board, state, seat)

    def queries(self) -> Mapping[str, QuerySpec]:
        return {
            "zone": QuerySpec(
                name="zone",
                description="A zone's display: class, capacity, trafficability, gun limit, "
                "garrison sectors (who holds each), In-Transit box, contested or not.",
                params=ZoneParams,
                run=_query_zone,
                result=results.ZoneDisplay,
            ),
            "allocation-options": QuerySpec(
                name="allocation-options",
                description="What a side may allocate in a pending assault on a zone (its own "
                "units only; never the other side's order).",
                params=AllocationOptionsParams,
                run=_query_allocation_options,
                result=results.AllocationOptions,
            ),
        }

    def example_scenario(self) -> dict[str, Any] | None:
        return copy.deepcopy(EXAMPLE)


def _ctx(board: Any, state: Any, options: Any) -> Ctx:
    b = board if isinstance(board, Board) else Board.model_validate(board)
    s = state if isinstance(state, State) else State.model_validate(state)
    o = options if isinstance(options, Options) else Options.model_validate(options or {})
    return Ctx(b, s, o)


def _query_zone(board: Any, state: Any, options: Any, params: Any) -> dict[str, Any]:
    ctx = _ctx(board, state, options)
    p = params if isinstance(params, ZoneParams) else ZoneParams.model_validate(params)
    zone = ctx.zone(p.zone)
    if zone is None:
        raise InvalidQuery(f"unknown zone {p.zone!r}")
    ctx.cite("OZ", "OZ.Display", "OZ.Class", "OZ.Capacity", "OZ.Basic.B", "OZ.Basic.D")
    if zone.fort:
        ctx.cite("A.36")  # a whole large fort: its sectors are its 6-12 stands
    rely_capacity(ctx, zone)  # the number of sectors shown rests on the capacity reading
    status = sector_status(ctx.state, zone)
    sectors = {
        str(n): {
            "holder": status[n],
            "units": sorted(
                u.id
                for u in garrison(ctx.state, zone.id)
                if u.sector == n and u.type != "artillery"
            ),
        }
        for n in range(1, zone.capacity + 1)
    }
    is_contested, why = contested(ctx.state, zone)
    return {
        "zone": zone.id,
        "name": zone.name,
        "class": zone.zone_class,
        "capacity": zone.capacity,
        "trafficability": zone.trafficability,
        "gun_limit": zone.gun_limit,
        "road": zone.road,
        "adjacent": zone.adjacent,
        "sectors": sectors,
        "guns": sorted(u.id for u in garrison(ctx.state, zone.id) if u.type == "artillery"),
        "in_transit": sorted(u.id for u in in_zone(ctx.state, zone.id) if u.at == "transit"),
        "contested": is_contested,
        "contested_by": why,
        "citations": ctx.cited_ids(),
        "interpretations": [ref.id for ref in ctx.interpretations()],
    }


def _query_allocation_options(board: Any, state: Any, options: Any, params: Any) -> Any:
    ctx = _ctx(board, state, options)
    p = (
        params
        if isinstance(params, AllocationOptionsParams)
        else AllocationOptionsParams.model_validate(params)
    )
    zone = ctx.zone(p.zone)
    if zone is None:
        raise InvalidQuery(f"unknown zone {p.zone!r}")
    assault = pending_assault(ctx.state, zone.id)
    if assault is None:
        raise InvalidQuery(f"no assault on {zone.id} is pending")
    if p.side not in (assault.attacker, assault.defender):
        raise InvalidQuery(f"{p.side} takes no part in the assault on {zone.id}")
    ctx.cite("OZ.Assault.B.1")
    sectors = list(range(1, zone.capacity + 1))
    own = [u for u in ctx.state.units if u.side == p.side]
    if p.side == assault.defender:
        ctx.cite("OZ.Assault.B.2", "OZ.Assault.B.3", "OZ.Basic.F")
        gar = battalions(garrison(ctx.state, zone.id, p.side))
        result: dict[str, Any] = {
            "role": "defender",
            "garrison": [{"unit": u.id, "sector": u.sector} for u in gar],
            "guns": [u.id for u in garrison(ctx.state, zone.id, p.side) if u.type == "artillery"],
            "in_transit": [
                u.id
                for u in in_zone(ctx.state, zone.id)
                if u.side == p.side and u.at == "transit" and u.type != "artillery"
            ],
            "outside": [u.id for u in own if u.zone is None and u.type != "artillery"]
            if ctx.options.outside_reinforcements
            else [],
            "must_flee": [
                u.id
                for u in in_zone(ctx.state, zone.id)
                if u.side == p.side and u.at == "transit" and u.type == "artillery"
            ],
            "undefended_if_garrison_only": [n for n in sectors if n not in {u.sector for u in gar}],
        }
    else:
        ctx.cite("OZ.Assault.B.4", "OZ.Assault.B.5")
        result = {
            "role": "attacker",
            "assaulting": list(assault.units),
            "batteries": [u.id for u in own if u.type == "artillery" and u.zone is None],
            "infantry_needed_per_sector": 1,
            "every_sector": ctx.options.attack_every_sector,
        }
    return {
        "zone": zone.id,
        "side": p.side,
        "decision": combat.decision_id(zone.id, assault.turn),
        "sectors": sectors,
        **result,
        "citations": ctx.cited_ids(),
    }
