"""Moves under rule 14: the step walker.

A move is a list of steps (enter a hex, face, change formation, unlimber, limber). The walker
takes them in order, pays each from the movement allowance and applies rule 14 clause by clause:
where the unit must stop (14.stop.*), when it may leave a zone (14.exit.infantry-artillery) and
which opportunity-fire chances the non-phasing side gets (14.opportunity.*, 14.carre). Every
check is an early return tagged with the section it enforces.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from app.rules.copies import replaced
from app.rules.judgement import Problem, count_of
from app.rules.ruling import Effect, Ruling, Violation
from app.rules.zoi import search
from app.rules.zoi.catalog import (
    I_CARRE_START,
    I_CHANGES_AFTER_STOP,
    I_ENTRY,
    I_EXIT_AFTER_CHANGES,
    I_EXIT_COST,
    I_HORSE_UNLIMBER,
    I_MIXED,
    I_SHIFT,
)
from app.rules.zoi.facing import needs_facing
from app.rules.zoi.models import (
    EnterStep,
    FaceStep,
    FormationStep,
    LimberStep,
    MoveAction,
    MoveOutcome,
    Step,
    Unit,
    UnlimberStep,
    ZoiBoard,
    ZoiState,
)
from app.rules.zoi.tables import LIMBERED, ROUTED, UNLIMBERED
from app.rules.zoi.zones import (
    Game,
    ZoneSource,
    cites,
    is_combat,
    is_foot,
    is_mounted,
    missing_unit,
    ruling,
    unit_named,
    unit_of,
    violation,
)

OPPORTUNITY_FIRE = "zoi.opportunity_fire"
MUST_STOP = "zoi.must_stop"
ZONE_ENTERED = "zoi.zone_entered"

CHANGE_VERB = {
    "face": "change facing",
    "formation": "change formation",
    "unlimber": "unlimber",
    "limber": "limber",
}
"""Step kind -> verb phrase, for messages."""


def _ids(sources: Iterable[ZoneSource]) -> tuple[str, ...]:
    return tuple(sorted({s.unit for s in sources}))


def _union(*groups: Iterable[str]) -> tuple[str, ...]:
    """Unit ids of several groups, each once, sorted."""
    return tuple(sorted({uid for g in groups for uid in g}))


@dataclass
class Walk:
    """The state of a move part-way through its steps. Copy with :meth:`fork`."""

    game: Game
    unit: Unit
    hex: str
    facing: int | None
    formation: str | None
    mp_left: int
    mp_spent: int = 0
    path: list[str] = field(default_factory=list)
    stopped: bool = False
    stop_section: str = ""
    stopped_at: int | None = None
    entered: int = 0
    changes: int = 0
    slid_only: bool = True
    began_in_zone: bool = False
    moved_into_current: bool = False
    last_change_here: int | None = None
    chances: int = 0
    effects: list[Effect] = field(default_factory=list)
    sections: set[str] = field(default_factory=set)
    consulted: set[str] = field(default_factory=set)

    @classmethod
    def start(cls, game: Game, unit: Unit) -> Walk:
        walk = cls(
            game=game,
            unit=unit,
            hex=unit.hex,
            facing=unit.facing,
            formation=unit.formation,
            mp_left=unit.ma,
            path=[unit.hex],
        )
        start_hex = game.state.phase_start.get(unit.id, unit.hex)
        walk.began_in_zone = (
            is_combat(unit) and start_hex == unit.hex and bool(walk._zone(unit.hex))
        )
        return walk

    def fork(self) -> Walk:
        """An independent copy (the game is shared, it is read-only)."""
        new = copy.copy(self)
        new.path = list(self.path)
        new.effects = list(self.effects)
        new.sections = set(self.sections)
        new.consulted = set(self.consulted)
        return new

    # -- helpers ------------------------------------------------------------------------

    def _zone(self, hex_id: str) -> list[ZoneSource]:
        return self.game.enemy_zone(hex_id, self.unit.side, self.consulted)

    def _effect(
        self,
        kind: str,
        message: str,
        sections: Iterable[str],
        *,
        hex: str | None,
        step: int | None,
        by: tuple[str, ...] = (),
        **details: Any,
    ) -> None:
        self.effects.append(
            Effect(
                kind=kind,
                message=message,
                unit=self.unit.id,
                hex=hex,
                step=step,
                by=by,
                citations=cites(sections),
                details=details,
            )
        )

    def _chance(
        self,
        reason: str,
        hex: str,
        step: int,
        by: tuple[str, ...],
        sections: Iterable[str],
        **details: Any,
    ) -> None:
        self.chances += 1
        self._effect(
            OPPORTUNITY_FIRE,
            f"The non-phasing side may fire at {self.unit.id} in {hex} ({reason}) with "
            f"{', '.join(by)}.",
            [*sections, "14.opportunity.resolution"],
            hex=hex,
            step=step,
            by=by,
            reason=reason,
            order=self.chances,
            **details,
        )

    def _stop(self, step: int, hex: str, section: str, by: tuple[str, ...]) -> None:
        self.stopped = True
        self.stop_section = section
        self.stopped_at = step
        self._effect(
            MUST_STOP,
            f"{self.unit.id} must stop in {hex}: it entered the zone of {', '.join(by)}.",
            ["14.zone", section],
            hex=hex,
            step=step,
            by=by,
        )

    def _carre_applies(self) -> bool:
        if self.moved_into_current:
            return True
        self.consulted.add(I_CARRE_START)
        return not self.game.options.carre_fire_only_after_moving_adjacent

    def _carres(self, hex_id: str) -> tuple[str, ...]:
        """Enemy carrés next to ``hex_id`` entitled to fire at this unit now (14.carre)."""
        carres = self.game.enemy_carres(hex_id, self.unit.side)
        if not carres:
            return ()
        self.sections.add("14.carre")
        return tuple(carres) if self._carre_applies() else ()

    # -- steps --------------------------------------------------------------------------

    def advance(self, i: int, step: Step) -> tuple[Violation, ...]:
        """Walk one step; return every violation that makes it illegal (none: it is legal).
        A step into a hex the unit may not enter is also judged by rule 14's exit rule, so
        a refusal names both (policy: every rule that forbids the action)."""
        if isinstance(step, EnterStep):
            return self._enter(i, step.hex)
        v = self._change(i, step)
        return () if v is None else (v,)

    def _enter(self, i: int, target: str) -> tuple[Violation, ...]:
        u = self.unit
        basic = self._enter_basic(i, target)
        if basic is None or basic.code in ("zoi.must_stop", "zoi.off_map", "zoi.not_adjacent"):
            return self._enter_zone(i, target) if basic is None else (basic,)
        # the step breaks a movement rule; rule 14 may forbid leaving the zone as well
        here = self.hex
        if is_combat(u) and is_foot(u) and self._zone(here):
            exit_v = self._check_exit(i, here, target)
            if exit_v is not None:
                return (basic, exit_v)
        return (basic,)

    def _enter_basic(self, i: int, target: str) -> Violation | None:
        """The first movement rule (series rules) that forbids entering ``target``."""
        u, g = self.unit, self.game
        if self.stopped:
            return violation(
                "zoi.must_stop",
                f"{u.id} had to stop in {self.hex} (step {self.stopped_at}); it may not move "
                f"on to {target}.",
                ["14.zone", self.stop_section],
                step=i,
                hex=self.hex,
                unit=u.id,
            )
        if not g.on_map(target):
            return violation(
                "zoi.off_map",
                f"{target} is not a hex of this map.",
                ["movement"],
                step=i,
                hex=target,
                unit=u.id,
            )
        if not g.layout.adjacent(self.hex, target):
            return violation(
                "zoi.not_adjacent",
                f"{target} is not adjacent to {self.hex}.",
                ["movement"],
                step=i,
                hex=target,
                unit=u.id,
            )
        if u.type == "artillery" and self.formation == UNLIMBERED:
            return violation(
                "zoi.unlimbered",
                f"{u.id} is unlimbered and must limber before it moves.",
                ["movement"],
                step=i,
                hex=self.hex,
                unit=u.id,
            )
        if g.enemies_in(target, u.side):
            return violation(
                "zoi.occupied",
                f"{target} holds enemy units.",
                ["movement"],
                step=i,
                hex=target,
                unit=u.id,
            )
        cost = g.terrain_cost(u, target)
        if cost is None:
            return violation(
                "zoi.prohibited_terrain",
                f"{u.id} may not enter {g.board.hexes[target]} terrain ({target}).",
                ["movement"],
                step=i,
                hex=target,
                unit=u.id,
            )
        if cost > self.mp_left:
            return violation(
                "zoi.insufficient_mp",
                f"Entering {target} costs {cost} MP; {u.id} has {self.mp_left} left.",
                ["movement"],
                step=i,
                hex=target,
                unit=u.id,
                cost=cost,
                mp_left=self.mp_left,
            )
        return None

    def _enter_zone(self, i: int, target: str) -> tuple[Violation, ...]:
        """Rule 14 for a step the movement rules allow, and the step itself."""
        u, g = self.unit, self.game
        cost = g.terrain_cost(u, target)
        assert cost is not None
        here = self.hex
        src_here: list[ZoneSource] = []
        if is_combat(u):
            src_here = self._zone(here)
            if src_here and is_foot(u):
                v = self._check_exit(i, here, target)
                if v is not None:
                    return (v,)
            carres = self._carres(here)
            if src_here:
                self._exit_chances(i, here, src_here, carres)
            elif carres:
                self._chance("carre", here, i, carres, ["14.carre"], event="exit")
        # the move itself
        self.hex = target
        self.mp_left -= cost
        self.mp_spent += cost
        self.entered += 1
        self.path.append(target)
        self.moved_into_current = True
        self.last_change_here = None
        self.sections.add("movement")
        slide = False
        if is_combat(u):
            self.sections.update(("14.zone", "14.front"))
            src_new = self._zone(target)
            if src_new:
                slide = self._entered_zone(i, target, src_here, src_new)
        if not slide:
            self.slid_only = False
        return ()

    def _check_exit(self, i: int, here: str, target: str) -> Violation | None:
        """14.exit.infantry-artillery: foot units leave a zone only at the start."""
        opts = self.game.options
        at_start = self.began_in_zone
        if self.entered > 0:
            self.consulted.add(I_SHIFT)
            at_start = at_start and self.slid_only and opts.shift_within_zone == "slide"
        if self.changes > 0:
            self.consulted.add(I_EXIT_AFTER_CHANGES)
            at_start = at_start and opts.exit_after_changes_in_place
        if at_start:
            return None
        return violation(
            "zoi.exit_not_at_start",
            f"{self.unit.id} may leave the enemy zone in {here} only at the beginning of its "
            f"movement phase; moving to {target} now is not allowed.",
            ["14.exit.infantry-artillery"],
            step=i,
            hex=here,
            unit=self.unit.id,
        )

    def _exit_chances(
        self, i: int, here: str, src: list[ZoneSource], carres: tuple[str, ...]
    ) -> None:
        """14.opportunity.exit: leaving is one event, so one chance; an adjacent enemy carré
        (14.carre) may join the units whose zone covers the hex in taking it."""
        by = _ids(src)
        sections = ["14.opportunity.exit"]
        if is_foot(self.unit):
            sections.append("14.exit.infantry-artillery")
        extra: dict[str, Any] = {}
        if carres:
            sections.append("14.carre")
            extra.update(zone_by=list(by), carre_by=list(carres))
        if self.last_change_here is not None:
            sections.append("14.opportunity.formation-then-exit")
            extra["after_change_step"] = self.last_change_here
        self._chance("exit", here, i, _union(by, carres), sections, **extra)
        self.consulted.add(I_EXIT_COST)
        if self.game.options.exit_cost_counts_in_departed_hex:
            self._chance("expend", here, i, by, ["14.opportunity.expend"], exit_cost=True)

    def _entered_zone(
        self, i: int, target: str, src_prev: list[ZoneSource], src_new: list[ZoneSource]
    ) -> bool:
        """Rule 14 on entering a zone hex; returns True for a shift within the same zone."""
        u, opts = self.unit, self.game.options
        by = _ids(src_new)
        self.consulted.add(I_ENTRY)
        if opts.entering_counts_as_expenditure:
            self._chance("expend", target, i, by, ["14.opportunity.expend"], entry=True)
        if is_foot(u):
            slide = False
            if src_prev:
                self.consulted.add(I_SHIFT)
                same = set(by) <= set(_ids(src_prev))
                slide = opts.shift_within_zone != "stop" and same
            if slide:
                self._effect(
                    ZONE_ENTERED,
                    f"{u.id} shifts within the zone of {', '.join(by)} in {target}.",
                    ["14.zone"],
                    hex=target,
                    step=i,
                    by=by,
                    stops=False,
                    shift=True,
                )
                return True
            self._effect(
                ZONE_ENTERED,
                f"{u.id} enters the zone of {', '.join(by)} in {target}.",
                ["14.zone", "14.stop.infantry-artillery"],
                hex=target,
                step=i,
                by=by,
                stops=True,
            )
            self._stop(i, target, "14.stop.infantry-artillery", by)
            return False
        if is_mounted(u):
            cavalry = [s for s in src_new if s.cavalry]
            others = [s for s in src_new if not s.cavalry]
            stops = bool(cavalry)
            if cavalry and others:
                self.consulted.add(I_MIXED)
                stops = opts.mixed_zone_stops_cavalry == "any_cavalry"
            section = "14.stop.cavalry" if stops else "14.cavalry-passes"
            self._effect(
                ZONE_ENTERED,
                f"{u.id} enters the zone of {', '.join(by)} in {target}"
                + (" and must stop." if stops else " and may keep moving."),
                ["14.zone", section],
                hex=target,
                step=i,
                by=by,
                stops=stops,
            )
            if stops:
                self._stop(i, target, "14.stop.cavalry", _ids(cavalry))
        return False

    def _change(self, i: int, step: Step) -> Violation | None:
        """Face, formation, unlimber, limber: validity, stop, cost, fire chances."""
        u, g, opts = self.unit, self.game, self.game.options
        kind = step.do
        if not is_combat(u):
            return violation(
                "zoi.not_combat_unit",
                f"{u.id} is a leader: it has no facing or formation.",
                ["14.front"],
                step=i,
                hex=self.hex,
                unit=u.id,
            )
        new_facing, new_formation = self.facing, self.formation
        if isinstance(step, FaceStep):
            spec = g.front_spec(u, self.formation)
            if spec is None or not needs_facing(spec):
                return violation(
                    "zoi.bad_facing",
                    f"{u.id} in {self.formation} fronts all round or not at all: it has no "
                    f"facing to change.",
                    ["14.front"],
                    step=i,
                    hex=self.hex,
                    unit=u.id,
                )
            if step.facing == self.facing:
                return violation(
                    "zoi.bad_facing",
                    f"{u.id} already faces {step.facing}.",
                    ["14.front"],
                    step=i,
                    hex=self.hex,
                    unit=u.id,
                )
            new_facing = step.facing
        elif isinstance(step, FormationStep):
            v = self._check_formation(i, step)
            if v is not None:
                return v
            new_formation = step.formation
            spec = g.front_spec(u, new_formation)
            if step.facing is not None:
                new_facing = step.facing
            if spec is not None and not needs_facing(spec):
                new_facing = None
            elif new_facing is None:
                return violation(
                    "zoi.bad_facing",
                    f"{u.id} forming {new_formation} needs a facing: give one with the step.",
                    ["14.front"],
                    step=i,
                    hex=self.hex,
                    unit=u.id,
                )
        elif isinstance(step, UnlimberStep | LimberStep):
            want = LIMBERED if isinstance(step, UnlimberStep) else UNLIMBERED
            if u.type != "artillery" or self.formation != want:
                return violation(
                    "zoi.bad_formation",
                    f"{u.id} cannot {kind}: it is not {want} artillery.",
                    ["14.front"],
                    step=i,
                    hex=self.hex,
                    unit=u.id,
                )
            new_formation = UNLIMBERED if isinstance(step, UnlimberStep) else LIMBERED
        costs = g.change_costs(u)
        cost: int = getattr(costs, kind) if costs is not None else 0
        unlimber_after_stop = False
        if self.stopped:
            allowed = False
            if isinstance(step, UnlimberStep):
                if is_foot(u):
                    allowed = unlimber_after_stop = True
                else:
                    self.consulted.add(I_HORSE_UNLIMBER)
                    allowed = unlimber_after_stop = opts.horse_artillery_unlimber_when_stopped
            if not allowed:
                self.consulted.add(I_CHANGES_AFTER_STOP)
                allowed = opts.changes_after_stop
            if not allowed:
                extra = ["14.unlimber"] if isinstance(step, UnlimberStep) else []
                return violation(
                    "zoi.must_stop",
                    f"{u.id} had to stop in {self.hex} (step {self.stopped_at}); it may not "
                    f"{CHANGE_VERB[kind]} now.",
                    ["14.zone", self.stop_section, *extra],
                    step=i,
                    hex=self.hex,
                    unit=u.id,
                )
        if cost > self.mp_left:
            extra = ["14.unlimber"] if unlimber_after_stop else []
            return violation(
                "zoi.insufficient_mp",
                f"To {CHANGE_VERB[kind]} costs {cost} MP; {u.id} has {self.mp_left} left.",
                ["movement", *extra],
                step=i,
                hex=self.hex,
                unit=u.id,
                cost=cost,
                mp_left=self.mp_left,
            )
        self.facing, self.formation = new_facing, new_formation
        self.mp_left -= cost
        self.mp_spent += cost
        self.sections.add("movement")
        if unlimber_after_stop:
            self.sections.add("14.unlimber")
        src = self._zone(self.hex)
        if src:
            self.sections.add("14.opportunity.expend")
        carres = self._carres(self.hex)
        if src and cost > 0:
            # one change, one chance: an adjacent carré joins the zone units (14.carre)
            extra = ["14.unlimber"] if unlimber_after_stop else []
            more: dict[str, Any] = {}
            if carres:
                extra.append("14.carre")
                more.update(zone_by=list(_ids(src)), carre_by=list(carres))
            self._chance(
                "expend",
                self.hex,
                i,
                _union(_ids(src), carres),
                ["14.opportunity.expend", *extra],
                change=kind,
                cost=cost,
                **more,
            )
        elif carres:
            self._chance("carre", self.hex, i, carres, ["14.carre"], event=kind)
        self.changes += 1
        self.last_change_here = i
        return None

    def _check_formation(self, i: int, step: FormationStep) -> Violation | None:
        u, g = self.unit, self.game
        target = step.formation
        reason = ""
        if self.formation == ROUTED:
            reason = f"{u.id} is routed and cannot change formation while moving"
        elif target == ROUTED:
            reason = "a unit cannot form 'routed' by choice"
        elif target == self.formation:
            reason = f"{u.id} is already in {target}"
        elif target not in g.formations(u):
            known = ", ".join(g.formations(u))
            reason = f"{u.type} has no formation {target!r} (known: {known})"
        elif u.type == "artillery" and target in (LIMBERED, UNLIMBERED):
            reason = "artillery limbers and unlimbers with the limber/unlimber steps"
        if not reason:
            return None
        return violation(
            "zoi.bad_formation", reason + ".", ["14.front"], step=i, hex=self.hex, unit=u.id
        )


# -- judging a move -------------------------------------------------------------------------


def stop_holding(game: Game, unit: Unit, consulted: set[str] | None = None) -> Violation | None:
    """Rule 14 on a unit that has moved this phase and stands where an enemy zone stopped it:
    infantry and foot artillery in any enemy zone (14.stop.infantry-artillery), cavalry and
    horse artillery in a zone of enemy cavalry (14.stop.cavalry; a mixed zone as the
    mixed-zone reading says). Its move ended there, so it may not move on this phase."""
    if unit.id not in game.state.moved or not is_combat(unit):
        return None
    src = game.enemy_zone(unit.hex, unit.side, consulted)
    if not src:
        return None
    if is_foot(unit):
        section = "14.stop.infantry-artillery"
        by = _ids(src)
    elif is_mounted(unit):
        cavalry = [z for z in src if z.cavalry]
        if not cavalry:
            return None
        if len(cavalry) < len(src):
            if consulted is not None:
                consulted.add(I_MIXED)
            if game.options.mixed_zone_stops_cavalry != "any_cavalry":
                return None
        section = "14.stop.cavalry"
        by = _ids(cavalry)
    else:
        return None
    return violation(
        "zoi.must_stop",
        f"{unit.id} ended its move this phase in {unit.hex}, in the zone of {', '.join(by)}, "
        "where it had to stop; it may not move on.",
        ["14.zone", section],
        hex=unit.hex,
        unit=unit.id,
        by=list(by),
    )


def mover_refusals(game: Game, unit: Unit, consulted: set[str] | None = None) -> list[Violation]:
    """Every rule that forbids ``unit`` any move this phase, whatever its steps: only the
    phasing side moves (sequence), each unit once a phase (movement) and, when its move
    ended in an enemy zone that stopped it, rule 14's stop (:func:`stop_holding`; the
    readings it relied on go to ``consulted``). Shared by the ruling and "what can I do
    now" (``available.py``)."""
    pre: list[Violation] = []
    if unit.side != game.state.phasing:
        pre.append(
            violation(
                "zoi.not_phasing",
                f"{unit.id} belongs to {unit.side}; {game.state.phasing} is phasing.",
                ["sequence"],
                unit=unit.id,
            )
        )
    if unit.id in game.state.moved:
        pre.append(
            violation(
                "zoi.already_moved",
                f"{unit.id} has already moved this phase.",
                ["movement"],
                unit=unit.id,
            )
        )
        held = stop_holding(game, unit, consulted)
        if held is not None:
            pre.append(held)
    return pre


def first_steps(game: Game, unit: Unit) -> list[Step]:
    """Every single step a move of ``unit`` could begin with: entering each adjacent hex,
    each facing, each formation of its class (keeping its facing, or 0 if it has none),
    limbering and unlimbering."""
    steps: list[Step] = [EnterStep(do="enter", hex=h) for _, h in game.adjacent_on_map(unit.hex)]
    steps.extend(FaceStep(do="face", facing=f) for f in range(6))
    facing = unit.facing if unit.facing is not None else 0
    steps.extend(
        FormationStep(do="formation", formation=f, facing=facing) for f in game.formations(unit)
    )
    steps.extend((LimberStep(do="limber"), UnlimberStep(do="unlimber")))
    return steps


def may_move(game: Game, unit: Unit) -> bool:
    """Whether some move of ``unit`` is legal now (the phase aside): none of
    :func:`mover_refusals` and some first step walks -- the walk of :func:`judge_move`, which
    refuses a move at its first refused step, so a move is legal only if its first step is,
    and a move of that one step is then legal."""
    if mover_refusals(game, unit):
        return False
    return any(not Walk.start(game, unit).advance(0, step) for step in first_steps(game, unit))


def move_names(game: Game, action: MoveAction) -> Problem | None:
    """``Kind.names``: the unit the action names is not in this game."""
    return missing_unit(game, action.unit, "movement")


def judge_move(game: Game, action: MoveAction) -> Ruling:
    """Walk the steps (rule 14); refuse with every rule the unit or its steps break."""
    unit = unit_named(game, action.unit, "movement")
    if isinstance(unit, Ruling):
        return unit
    walk = Walk.start(game, unit)
    # every rule that forbids the move, not only the first
    pre = mover_refusals(game, unit, walk.consulted)
    vs: tuple[Violation, ...] = ()
    for i, step in enumerate(action.steps):
        vs = walk.advance(i, step)
        if vs:
            break
    if pre and not vs:
        # the steps break no rule: only the unit's own checks refuse the move
        held = any(v.code == "zoi.must_stop" for v in pre)
        return ruling(
            game,
            " ".join(v.message for v in pre),
            violations=pre,
            sections=["14"] if held else (),
            consulted=walk.consulted if held else (),
        )
    if vs:
        refused = (*pre, *vs)
        return ruling(
            game,
            " ".join(v.message for v in refused),
            violations=refused,
            effects=walk.effects,
            sections=["14", *walk.sections],
            consulted=walk.consulted,
            details=_move_details(walk),
        )
    return ruling(
        game,
        _move_summary(walk, action),
        effects=walk.effects,
        sections=["14", *walk.sections],
        consulted=walk.consulted,
        details=_move_details(walk),
    )


_CHANGE_NOUN = {
    "face": "a facing change",
    "formation": "a formation change",
    "unlimber": "unlimbering",
    "limber": "limbering",
}
_CHANGE_VERB_3RD = {
    "face": "changes facing",
    "formation": "changes formation",
    "unlimber": "unlimbers",
    "limber": "limbers",
}


def _move_summary(walk: Walk, action: MoveAction) -> str:
    """One sentence: where the unit went, what it changed, where it halted, fire chances."""
    changes = list(dict.fromkeys(s.do for s in action.steps if s.do != "enter"))
    if len(walk.path) > 1:
        text = f"{walk.unit.id} moves {' -> '.join(walk.path)}"
        if walk.stopped:
            text += " and must stop there"
        text += f" ({walk.mp_spent} MP"
        text += ", with " + " and ".join(_CHANGE_NOUN[c] for c in changes) if changes else ""
        text += ")"
    else:
        text = f"{walk.unit.id} stays in {walk.hex} and " + " and ".join(
            _CHANGE_VERB_3RD[c] for c in changes
        )
        text += f" ({walk.mp_spent} MP)"
    n = walk.chances
    text += "; no opportunity fire." if n == 0 else f"; {count_of(n, 'opportunity fire chance')}."
    return text


def _move_details(walk: Walk) -> dict[str, Any]:
    return {
        "path": walk.path,
        "mp_spent": walk.mp_spent,
        "mp_left": walk.mp_left,
        "stopped_at": walk.stopped_at,
        "final": {"hex": walk.hex, "facing": walk.facing, "formation": walk.formation},
        "opportunity_fire_chances": walk.chances,
    }


def apply_move(
    board: ZoiBoard, state: ZoiState, action: MoveAction, outcome: MoveOutcome
) -> ZoiState:
    """The unit stands where the walk ended, facing and in formation as it ended; it has moved."""
    final = outcome.final
    change = {"hex": final.hex, "facing": final.facing, "formation": final.formation}
    i = search.position_of(board, state, action.unit)  # from the state's index, if made
    if i is not None:  # unit ids unique: the one unit replaced in its place
        units = list(state.units)
        moved = units[i] = replaced(units[i], change)
        new = replaced(state, {"units": units, "moved": [*state.moved, moved.id]})
        return search.moved_in_place(state, new, i)  # the search's look-ups handed on
    unit = unit_of(state, action.unit)
    moved = unit.model_copy(update=change)
    units = [moved if u.id == unit.id else u for u in state.units]
    new = state.model_copy(update={"units": units, "moved": [*state.moved, unit.id]})
    return search.moved_to(state, new, unit.id)  # the search's look-ups handed on
