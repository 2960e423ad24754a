"""The ``zoi`` ruleset: La Bataille rule 14, Zone d'Influence, as a :class:`Ruleset` plug-in."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel

from app.rules.base import (
    UMPIRE,
    AvailableActions,
    PhaseSpec,
    Position,
    QuerySpec,
    RulesError,
    Ruleset,
    SequenceOfPlay,
    Sides,
)
from app.rules.catalog import Catalog, Interpretation
from app.rules.judgement import Judgement
from app.rules.ruling import Effect, InterpretationRef, Ruling, Violation
from app.rules.zoi import tables
from app.rules.zoi.available import available_actions
from app.rules.zoi.catalog import CATALOG, INTERPRETATIONS, SOURCE
from app.rules.zoi.example import EXAMPLE_SCENARIO
from app.rules.zoi.facing import needs_facing
from app.rules.zoi.game import Game, is_combat
from app.rules.zoi.models import (
    ChangeCosts,
    FrontSpec,
    MeleeEntry,
    MeleeRetreatAction,
    MoveAction,
    SetPhaseAction,
    Unit,
    ZoiBoard,
    ZoiOptions,
    ZoiScenario,
    ZoiState,
)
from app.rules.zoi.movement import Walk, cites, violation
from app.rules.zoi.queries import QUERIES
from app.rules.zoi.retreat import judge_retreat


def _citations(
    sections: Iterable[str], violations: Sequence[Violation], effects: Sequence[Effect]
) -> Any:
    wanted = set(sections)
    for v in violations:
        wanted.update(c.section for c in v.citations)
    for e in effects:
        wanted.update(c.section for c in e.citations)
    return cites(wanted)


def _interpretations(
    consulted: Iterable[str], options: ZoiOptions
) -> tuple[InterpretationRef, ...]:
    wanted = set(consulted)
    out = []
    for i in INTERPRETATIONS:
        if i.id in wanted:
            out.append(
                InterpretationRef(
                    id=i.id,
                    text=i.reading,
                    option=i.option,
                    value=getattr(options, i.option) if i.option else None,
                )
            )
    return tuple(out)


class ZoiRuleset(Ruleset[ZoiBoard, ZoiState, BaseModel, ZoiOptions]):
    """La Bataille rule 14: zones of influence that follow facing and formation.

    >>> from app.rules.zoi import ZoiRuleset
    >>> rs = ZoiRuleset()
    >>> board, state = rs.setup(rs.parse_scenario(rs.example_scenario()), rs.parse_options({}))
    >>> rs.adjudicate(board, state, rs.parse_action(
    ...     {"kind": "move", "unit": "fr-4-2", "steps": [{"do": "enter", "hex": "0607"}]}),
    ...     rs.parse_options({})).legal
    True
    """

    id: ClassVar[str] = "zoi"
    version: ClassVar[str] = "1.1.0"
    title: ClassVar[str] = "La Bataille: Zone d'Influence (rule 14)"
    description: ClassVar[str] = (
        "Napoleonic hex rules where a unit's zone of influence follows its facing and "
        "formation, halts enemy movement and draws opportunity fire."
    )
    source: ClassVar[str] = SOURCE
    catalog: ClassVar[Catalog] = CATALOG
    interpretations: ClassVar[tuple[Interpretation, ...]] = INTERPRETATIONS
    scenario_model: ClassVar[type[BaseModel]] = ZoiScenario
    options_model: ClassVar[type[BaseModel]] = ZoiOptions
    board_model: ClassVar[type[BaseModel]] = ZoiBoard
    state_model: ClassVar[type[BaseModel]] = ZoiState
    action_models: ClassVar[Mapping[str, type[BaseModel]]] = {
        "move": MoveAction,
        "melee_retreat": MeleeRetreatAction,
        "set_phase": SetPhaseAction,
    }

    # -- setup ----------------------------------------------------------------------------

    def generated_size(self, scenario: Any) -> int:
        """The hexes of the map rectangle, which the document does not list."""
        if not isinstance(scenario, ZoiScenario):
            return 0
        (c0, c1), (r0, r1) = scenario.map.columns, scenario.map.rows
        return max(0, c1 - c0 + 1) * max(0, r1 - r0 + 1)

    def setup(self, scenario: Any, options: ZoiOptions) -> tuple[ZoiBoard, ZoiState]:
        """Build board and initial state; raise :class:`InvalidScenario` if inconsistent."""
        sc = scenario if isinstance(scenario, ZoiScenario) else ZoiScenario.model_validate(scenario)
        check = Judgement(CATALOG)

        def err(
            loc: Sequence[str | int], msg: str, code: str, sections: Sequence[str] = ("movement",)
        ) -> None:
            check.problem(f"zoi.scenario.{code}", loc, msg, sections)

        layout = sc.map.layout.layout()
        hexes: dict[str, str] = {}
        c0, c1 = sc.map.columns
        r0, r1 = sc.map.rows
        if c0 > c1 or r0 > r1 or c0 < 0 or r0 < 0:
            err(["map"], "column and row ranges must be non-negative and ascending", "bad_map")
        elif (c1 - c0 + 1) * (r1 - r0 + 1) > MAX_HEXES:
            err(["map"], f"the map has more than {MAX_HEXES} hexes", "map_too_large")
            c1 = c0 - 1  # build nothing: the scenario is refused below
        for c in range(c0, c1 + 1):
            for r in range(r0, r1 + 1):
                try:
                    h = layout.format(_hex(sc.map.prefix, c, r))
                except ValueError as exc:
                    err(["map"], str(exc), "bad_hex_id")
                    break
                hexes[h] = sc.map.default_terrain
        terrain_costs: dict[str, dict[str, int | None]] = {
            k: dict(v) for k, v in tables.TERRAIN_COSTS.items()
        }
        terrain_costs.update(sc.terrain_costs)
        for h, t in sc.map.terrain.items():
            if h not in hexes:
                err(["map", "terrain", h], f"{h} is not a hex of the map", "off_map")
            hexes[h] = t
        for h, t in sorted(hexes.items()):
            if t not in terrain_costs:
                err(
                    ["map", "terrain", h],
                    f"terrain {t!r} has no row in the terrain cost table",
                    "terrain_without_cost",
                    ("movement",),
                )
                break
        front: dict[str, FrontSpec] = {
            k: FrontSpec.model_validate(v) for k, v in tables.FRONT_TABLE.items()
        }
        for k, spec in sc.front_table.items():
            if spec is None:
                front.pop(k, None)
            else:
                front[k] = spec
        costs = {k: ChangeCosts.model_validate(v) for k, v in tables.CHANGE_COSTS.items()}
        costs.update(sc.change_costs)
        matrix = (
            sc.melee_matrix
            if sc.melee_matrix is not None
            else [MeleeEntry.model_validate(r) for r in tables.MELEE_MATRIX]
        )
        side_ids = [s.id for s in sc.sides]
        if len(set(side_ids)) != len(side_ids):
            err(["sides"], "duplicate side id", "duplicate_id")
        board = ZoiBoard(
            name=sc.name,
            layout=sc.map.layout,
            hexes=hexes,
            sides=sc.sides,
            front_table=front,
            change_costs=costs,
            terrain_costs=terrain_costs,
            melee_matrix=matrix,
        )
        phasing = sc.phasing or side_ids[0]
        if phasing not in side_ids:
            err(["phasing"], f"unknown side {phasing!r}", "unknown_side")
        state = ZoiState(turn=sc.turn, phase=sc.phase, phasing=phasing, units=sc.units)
        game = Game(board, state, options)
        seen: set[str] = set()
        for n, u in enumerate(sc.units):
            for field, code, msg, sections in _unit_errors(game, u, side_ids):
                err(["units", n, field], f"{u.id}: {msg}", code, sections)
            if u.id in seen:
                err(["units", n, "id"], f"duplicate unit id {u.id!r}", "duplicate_id")
            seen.add(u.id)
        for h, us in game.by_hex.items():
            if len({u.side for u in us}) > 1:
                err(["units"], f"units of different sides share {h}", "mixed_stack")
        check.raise_if_refused("the zoi scenario is inconsistent")
        if state.phase == "movement":
            state = state.model_copy(update={"phase_start": _snapshot(state)})
        return board, state

    def sides(self, board: ZoiBoard) -> Sides:
        return Sides(
            names=tuple(s.id for s in board.sides),
            labels={s.id: s.label or s.id for s in board.sides},
        )

    def actor_side(self, board: ZoiBoard, state: ZoiState, action: BaseModel) -> str | None:
        """Moves and retreats belong to the unit's side; phase changes to the umpire."""
        if isinstance(action, SetPhaseAction):
            return UMPIRE
        if isinstance(action, MoveAction | MeleeRetreatAction):
            for u in state.units:
                if u.id == action.unit:
                    return u.side
        return None

    # -- adjudication ---------------------------------------------------------------------

    def adjudicate(
        self,
        board: ZoiBoard,
        state: ZoiState,
        action: BaseModel,
        options: ZoiOptions,
        dice: Sequence[int] = (),
    ) -> Ruling:
        """Judge a move, a melee retreat or a phase change. Pure and deterministic."""
        game = Game(board, state, options)
        if isinstance(action, MoveAction):
            return self._adjudicate_move(game, action)
        if isinstance(action, MeleeRetreatAction):
            return self._adjudicate_retreat(game, action)
        if isinstance(action, SetPhaseAction):
            return self._adjudicate_phase(game, action)
        raise RulesError(f"unknown action type {type(action).__name__}")

    def _illegal(self, v: Violation, sections: Iterable[str] = ()) -> Ruling:
        return Ruling(
            legal=False,
            summary=v.message,
            violations=(v,),
            citations=_citations(sections, [v], []),
        )

    def _unit_in_phase(
        self, game: Game, unit_id: str, section: str, phase: str, doing: str
    ) -> Unit | Ruling:
        """The unit an action names, if it exists (else cite ``section``) and the game is in
        ``phase`` (else cite the sequence); otherwise the ruling refusing the action."""
        unit = game.units.get(unit_id)
        if unit is None:
            return self._illegal(
                violation(
                    "zoi.unknown_unit",
                    f"No unit {unit_id!r} in this game.",
                    [section],
                    unit=unit_id,
                )
            )
        if game.state.phase != phase:
            return self._illegal(
                violation(
                    "zoi.wrong_phase",
                    f"{doing} in the {phase} phase; the game is in {game.state.phase}.",
                    ["sequence"],
                    unit=unit.id,
                )
            )
        return unit

    def _adjudicate_move(self, game: Game, action: MoveAction) -> Ruling:
        unit = self._unit_in_phase(game, action.unit, "movement", "movement", "Units move")
        if isinstance(unit, Ruling):
            return unit
        pre: list[Violation] = []  # every rule that forbids the move, not only the first
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
        walk = Walk.start(game, unit)
        vs: tuple[Violation, ...] = ()
        for i, step in enumerate(action.steps):
            vs = walk.advance(i, step)
            if vs:
                break
        if pre and not vs:
            # the steps break no rule: only the unit's own checks refuse the move
            return Ruling(
                legal=False,
                summary=" ".join(v.message for v in pre),
                violations=tuple(pre),
                citations=_citations((), pre, []),
            )
        if vs:
            refused = (*pre, *vs)
            return Ruling(
                legal=False,
                summary=" ".join(v.message for v in refused),
                violations=refused,
                effects=tuple(walk.effects),
                citations=_citations(["14", *walk.sections], refused, walk.effects),
                interpretations=_interpretations(walk.consulted, game.options),
                details=_move_details(walk),
            )
        return Ruling(
            legal=True,
            summary=_move_summary(walk, action),
            effects=tuple(walk.effects),
            citations=_citations(["14", *walk.sections], [], walk.effects),
            interpretations=_interpretations(walk.consulted, game.options),
            details=_move_details(walk),
        )

    def _adjudicate_retreat(self, game: Game, action: MeleeRetreatAction) -> Ruling:
        unit = self._unit_in_phase(
            game, action.unit, "14.melee-retreat", "melee", "Melee retreats happen"
        )
        if isinstance(unit, Ruling):
            return unit
        out = judge_retreat(game, unit, action)
        interpretations = _interpretations(out.consulted, game.options)
        if out.violation is not None:
            return Ruling(
                legal=False,
                summary=out.violation.message,
                violations=(out.violation,),
                citations=_citations(["14", *out.sections], [out.violation], []),
                interpretations=interpretations,
            )
        d = out.details
        zone_loss = (
            f"losing {_count(d['zone_loss'], 'increment')} to enemy zones"
            if d["zone_loss"]
            else "losing nothing to enemy zones"
        )
        summary = (
            f"{unit.id} retreats to {d['final_hex']}, {zone_loss}"
            + (f" and {d['result_loss']} to the melee result" if d["result_loss"] else "")
            + f": {d['increments_before']} -> {d['increments_after']} increments"
            + ("; eliminated." if d["eliminated"] else ".")
        )
        return Ruling(
            legal=True,
            summary=summary,
            effects=tuple(out.effects),
            citations=_citations(["14", *out.sections], [], out.effects),
            interpretations=interpretations,
            details=d,
        )

    def _adjudicate_phase(self, game: Game, action: SetPhaseAction) -> Ruling:
        if action.phasing is not None and action.phasing not in game.side_ids():
            return self._illegal(
                violation(
                    "zoi.unknown_side", f"No side {action.phasing!r} in this game.", ["sequence"]
                )
            )
        phasing = action.phasing or game.state.phasing
        turn = action.turn or game.state.turn
        return Ruling(
            legal=True,
            summary=f"Turn {turn}: {action.phase} phase, {phasing} phasing.",
            citations=cites(["sequence"]),
            details={"phase": action.phase, "phasing": phasing, "turn": turn},
        )

    # -- apply ----------------------------------------------------------------------------

    def apply(
        self, board: ZoiBoard, state: ZoiState, action: BaseModel, ruling: Ruling
    ) -> ZoiState:
        """The state after a legal action (inputs are not mutated)."""
        if not ruling.legal:
            raise RulesError("cannot apply an illegal action")
        if isinstance(action, SetPhaseAction):
            new = state.model_copy(
                update={
                    "phase": action.phase,
                    "phasing": action.phasing or state.phasing,
                    "turn": action.turn or state.turn,
                }
            )
            if action.phase == "movement":
                new = new.model_copy(update={"moved": [], "phase_start": _snapshot(new)})
            return new
        if isinstance(action, MoveAction):
            # the ruling (judged under this game's options) says where the unit ends up;
            # replaying the walk here would need the options, which apply does not take
            final = ruling.details["final"]
            unit = next(u for u in state.units if u.id == action.unit)
            moved = unit.model_copy(
                update={
                    "hex": final["hex"],
                    "facing": final["facing"],
                    "formation": final["formation"],
                }
            )
            units = [moved if u.id == unit.id else u for u in state.units]
            return state.model_copy(update={"units": units, "moved": [*state.moved, unit.id]})
        if isinstance(action, MeleeRetreatAction):
            after = int(ruling.details["increments_after"])
            final = str(ruling.details["final_hex"])
            if after <= 0:
                units = [u for u in state.units if u.id != action.unit]
                return state.model_copy(
                    update={"units": units, "eliminated": [*state.eliminated, action.unit]}
                )
            units = [
                u.model_copy(update={"hex": final, "increments": after})
                if u.id == action.unit
                else u
                for u in state.units
            ]
            return state.model_copy(update={"units": units})
        raise RulesError(f"unknown action type {type(action).__name__}")

    # -- sequence of play -----------------------------------------------------------------

    def sequence_of_play(self, board: ZoiBoard) -> SequenceOfPlay:
        """The phases of a player turn; the non-phasing side fires in the defensive fire
        phase. Player turns rotate through the board's sides."""
        return SequenceOfPlay(
            phases=PHASES,
            citation=CATALOG.cite("sequence"),
            sides=tuple(s.id for s in board.sides),
        )

    def position(self, board: ZoiBoard, state: ZoiState) -> Position:
        return Position(turn=state.turn, phase=state.phase, phasing_side=state.phasing)

    def advance_phase(self, board: ZoiBoard, state: ZoiState) -> ZoiState:
        """The next phase; after morale recovery the next side's player turn (and, after the
        last side, the next game turn). Entering the movement phase records where every unit
        starts it (rule 14: leaving a zone is allowed only at the start of the movement)."""
        nxt = self.sequence_of_play(board).next_position(self.position(board, state))
        phasing = nxt.phasing_side or state.phasing
        update = {"phase": nxt.phase, "phasing": phasing, "turn": nxt.turn}
        new = state.model_copy(update=update)
        if nxt.phase == "movement":
            new = new.model_copy(update={"moved": [], "phase_start": _snapshot(new)})
        return new

    # -- read side ------------------------------------------------------------------------

    def available_actions(
        self, board: ZoiBoard, state: ZoiState, options: ZoiOptions, seat: str
    ) -> AvailableActions:
        return available_actions(board, state, seat)

    def queries(self) -> Mapping[str, QuerySpec]:
        return QUERIES

    def example_scenario(self) -> dict[str, Any]:
        """A French column and artillery against an Austrian line, carré and hussars."""
        import copy

        return copy.deepcopy(EXAMPLE_SCENARIO)


MAX_HEXES = 40_000
"""Largest map a scenario may define (a bound on the work and storage one request causes)."""

PHASES: tuple[PhaseSpec, ...] = (
    PhaseSpec("charges", "Charges"),
    PhaseSpec("movement", "Movement"),
    PhaseSpec("defensive_fire", "Defensive fire", acts="non_phasing"),
    PhaseSpec("offensive_fire", "Offensive fire"),
    PhaseSpec("melee", "Melee", acts="both"),  # the side driven out retreats (rule 14)
    PhaseSpec("morale_recovery", "Morale recovery"),
)


def _hex(prefix: str, col: int, row: int) -> Any:
    from app.rules.geometry.hexgrid import Hex

    return Hex(prefix, col, row)


def _snapshot(state: ZoiState) -> dict[str, str]:
    return {u.id: u.hex for u in state.units if u.side == state.phasing}


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


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


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
    text += "; no opportunity fire." if n == 0 else f"; {_count(n, 'opportunity fire chance')}."
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


_UnitError = tuple[str, str, str, tuple[str, ...]]
"""(field, code, message, sections) of one problem with a scenario unit."""

_FRONT = ("movement", "14.front")


def _unit_errors(game: Game, u: Unit, side_ids: list[str]) -> list[_UnitError]:
    out: list[_UnitError] = []
    if u.side not in side_ids:
        out.append(("side", "unknown_side", f"unknown side {u.side!r}", ("movement",)))
    if u.hex not in game.board.hexes:
        out.append(("hex", "off_map", f"hex {u.hex!r} is not on the map", ("movement",)))
    subtypes = tables.SUBTYPES[u.type]
    if subtypes and u.subtype not in subtypes:
        msg = f"{u.type} needs a subtype among {', '.join(subtypes)}"
        out.append(("subtype", "bad_subtype", msg, ("movement",)))
    if not subtypes and u.subtype is not None:
        out.append(("subtype", "bad_subtype", f"{u.type} takes no subtype", ("movement",)))
    if not is_combat(u):
        if u.formation is not None or u.facing is not None:
            msg = "leaders have no formation and no facing"
            out.append(("formation", "leader_formation", msg, _FRONT))
        return out
    if u.formation is None:
        out.append(("formation", "no_formation", "a combat unit needs a formation", _FRONT))
        return out
    spec = game.front_spec(u)
    if spec is None:
        msg = f"formation {u.formation!r} is not in the facing table for {u.type}"
        out.append(("formation", "unknown_formation", msg, _FRONT))
    elif needs_facing(spec) and u.facing is None:
        msg = f"a unit in {u.formation} needs a facing (0..5)"
        out.append(("facing", "no_facing", msg, _FRONT))
    elif not needs_facing(spec) and u.facing is not None:
        out.append(("facing", "facing", f"a unit in {u.formation} has no facing", _FRONT))
    if u.increments < 1:
        msg = "a combat unit needs at least one increment"
        out.append(("increments", "no_increments", msg, ("movement",)))
    return out
