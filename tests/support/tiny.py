"""``tiny``: a one-dimensional test ruleset, so service and API tests need no real ruleset.

Pawns of two (or more) sides stand on squares ``0 .. length-1`` of a track. A ``step`` action
moves one pawn ``n`` squares (negative = backwards). Leaving the track is illegal (section 2.1)
unless the per-game option ``wrap`` is on (interpretation ``tiny.edge-wraps``). ``reset``
(umpire only) puts every pawn back on its start square. ``note`` (any seat) appends a note that
only the umpire may read. ``probe`` reads a hex id so tests can check that a malformed id deep
inside adjudication becomes a client error, never a server error.

Match flow (section 5, 6): a scenario with ``"sequence": true`` has a sequence of play -- each
side's player turn is a *move* phase (the phasing side acts) then a *react* phase (the other
side acts); after the last side the turn number goes up. Each phase records where the pawns
stood when it began (``phase_start``). ``roll`` (section 6) advances a pawn by one six-sided
die, stopping on the last square; judged with no dice it rules on legality only. With a
``goal`` square, the game is over once a pawn stands on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from app.rules import (
    UMPIRE,
    Catalog,
    Effect,
    Interpretation,
    InterpretationRef,
    InvalidQuery,
    PhaseSpec,
    Position,
    QuerySpec,
    RuleSection,
    Ruleset,
    Ruling,
    SequenceOfPlay,
    Sides,
    Violation,
)
from app.rules.geometry import DEFAULT_LAYOUT
from app.rules.judgement import Judgement

CATALOG = Catalog(
    "tiny",
    [
        RuleSection(id="1", title="The track", summary="Squares are numbered from zero."),
        RuleSection(id="2", title="Stepping", summary="A pawn moves a number of squares."),
        RuleSection(id="2.1", title="Edges", summary="No pawn may step off the track."),
        RuleSection(id="3", title="Umpire", summary="Only the umpire resets the track."),
        RuleSection(id="4", title="Probing", summary="A probe names a hex of the grid."),
        RuleSection(
            id="5", title="Sequence of play", summary="Each side moves, then the other reacts."
        ),
        RuleSection(id="6", title="Rolling", summary="A pawn may advance by one die instead."),
        RuleSection(id="7", title="Goal", summary="Reaching the goal square ends the game."),
    ],
)

EDGE = Interpretation(
    id="tiny.edge-wraps",
    question="May a pawn step past the last square?",
    reading="No: the step is refused.",
    alternative="Yes: the track is a ring and the pawn wraps around.",
    option="wrap",
    sections=("2.1",),
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Pawn(_Strict):
    id: str = Field(min_length=1, max_length=32)
    side: str = Field(min_length=1, max_length=32)
    at: int = Field(ge=0)


class TinyScenario(_Strict):
    """A track length, the sides and the pawns."""

    length: int = Field(ge=1, le=100)
    sides: list[str] = Field(default_factory=lambda: ["red", "blue"], min_length=1)
    pawns: list[Pawn] = Field(default_factory=list)
    sequence: bool = Field(default=False, description="Play in phases (section 5).")
    goal: int | None = Field(default=None, ge=0, description="Reaching it ends the game.")

    @model_serializer(mode="wrap")
    def _omit_match_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Scenarios written before sections 5-7 existed dump exactly as they were given."""
        data: dict[str, Any] = handler(self)
        if not self.sequence:
            data.pop("sequence", None)
        if self.goal is None:
            data.pop("goal", None)
        return data


class TinyOptions(_Strict):
    wrap: bool = Field(default=False, description="Interpretation `tiny.edge-wraps`.")


class TinyBoard(_Strict):
    length: int
    sides: list[str]
    owners: dict[str, str]
    starts: dict[str, int]
    sequence: bool = False
    goal: int | None = None


class TinyState(_Strict):
    positions: dict[str, int]
    notes: list[str] = Field(default_factory=list)
    steps: int = 0
    turn: int = 1
    phase: str = "move"
    phasing: str | None = None
    phase_start: dict[str, int] = Field(default_factory=dict)


class Step(_Strict):
    kind: Literal["step"] = "step"
    pawn: str
    n: int = Field(ge=-10, le=10)


class Reset(_Strict):
    kind: Literal["reset"] = "reset"


class Note(_Strict):
    kind: Literal["note"] = "note"
    text: str = Field(max_length=200)


class Probe(_Strict):
    kind: Literal["probe"] = "probe"
    hex: str


class Roll(_Strict):
    kind: Literal["roll"] = "roll"
    pawn: str


TinyAction = Step | Reset | Note | Probe | Roll

PHASES = (
    PhaseSpec(id="move", title="Move", acts="phasing"),
    PhaseSpec(id="react", title="React", acts="non_phasing"),
)


class WhereParams(_Strict):
    pawn: str


class ReachParams(_Strict):
    pawn: str
    n: int = Field(default=1, ge=0, le=10)


class TinyRuleset(Ruleset[TinyBoard, TinyState, Any, TinyOptions]):
    id = "tiny"
    version = "1.0"
    title = "Tiny track (test ruleset)"
    description = "A one-dimensional track used by the service tests."
    catalog = CATALOG
    interpretations = (EDGE,)
    scenario_model = TinyScenario
    options_model = TinyOptions
    board_model = TinyBoard
    state_model = TinyState
    action_models: ClassVar[Mapping[str, type[BaseModel]]] = {
        "step": Step,
        "reset": Reset,
        "note": Note,
        "probe": Probe,
        "roll": Roll,
    }

    def setup(self, scenario: Any, options: TinyOptions) -> tuple[TinyBoard, TinyState]:
        assert isinstance(scenario, TinyScenario)
        check = Judgement(CATALOG)
        seen: set[str] = set()
        for i, pawn in enumerate(scenario.pawns):
            if pawn.id in seen:
                check.invalid(["pawns", i, "id"], f"duplicate pawn {pawn.id}", "1")
            seen.add(pawn.id)
            if pawn.at >= scenario.length:
                check.invalid(["pawns", i, "at"], "square is off the track", "1", "2.1")
            if pawn.side not in scenario.sides:
                check.invalid(["pawns", i, "side"], f"unknown side {pawn.side}", "1")
        check.raise_if_refused("the tiny scenario is inconsistent")
        board = TinyBoard(
            length=scenario.length,
            sides=list(scenario.sides),
            owners={p.id: p.side for p in scenario.pawns},
            starts={p.id: p.at for p in scenario.pawns},
            sequence=scenario.sequence,
            goal=scenario.goal,
        )
        state = TinyState(positions=dict(board.starts))
        if board.sequence:
            state.phasing = board.sides[0]
            state.phase_start = dict(board.starts)
        return board, state

    def sides(self, board: TinyBoard) -> Sides:
        return Sides(names=tuple(board.sides))

    def actor_side(self, board: TinyBoard, state: TinyState, action: Any) -> str | None:
        if isinstance(action, Step | Roll):
            return board.owners.get(action.pawn)
        if isinstance(action, Reset):
            return UMPIRE
        return None

    def adjudicate(
        self,
        board: TinyBoard,
        state: TinyState,
        action: Any,
        options: TinyOptions,
        dice: Sequence[int] = (),
    ) -> Ruling:
        if isinstance(action, Step):
            return self._step(board, state, action, options)
        if isinstance(action, Roll):
            return self._roll(board, state, action, dice)
        if isinstance(action, Probe):
            parsed = DEFAULT_LAYOUT.parse(action.hex)  # HexIdError on a malformed id
            return Ruling(
                legal=True,
                summary=f"Hex {action.hex} is column {parsed.col}, row {parsed.row}.",
                citations=(CATALOG.cite("4"),),
            )
        if isinstance(action, Reset):
            return Ruling(legal=True, summary="All pawns return.", citations=(CATALOG.cite("3"),))
        return Ruling(legal=True, summary="Note taken.")

    def _step(
        self, board: TinyBoard, state: TinyState, action: Step, options: TinyOptions
    ) -> Ruling:
        edge = InterpretationRef(
            id=EDGE.id,
            text=EDGE.reading if not options.wrap else EDGE.alternative,
            option="wrap",
            value=options.wrap,
        )
        if action.pawn not in state.positions:
            return Ruling(
                legal=False,
                summary=f"There is no pawn {action.pawn}.",
                violations=(
                    Violation(
                        code="tiny.unknown_pawn",
                        message=f"no pawn {action.pawn}",
                        unit=action.pawn,
                        citations=(CATALOG.cite("1"),),
                    ),
                ),
                citations=(CATALOG.cite("1"),),
            )
        start = state.positions[action.pawn]
        target = start + action.n
        if not 0 <= target < board.length and not options.wrap:
            return Ruling(
                legal=False,
                summary=f"{action.pawn} would leave the track at {target}.",
                violations=(
                    Violation(
                        code="tiny.off_track",
                        message=f"square {target} is off the track",
                        unit=action.pawn,
                        citations=(CATALOG.cite("2.1"),),
                    ),
                ),
                citations=(CATALOG.cite("2"), CATALOG.cite("2.1")),
                interpretations=(edge,),
            )
        target %= board.length
        return Ruling(
            legal=True,
            summary=f"{action.pawn} steps from {start} to {target}.",
            effects=(
                Effect(
                    kind="tiny.moved",
                    unit=action.pawn,
                    details={"from": start, "to": target},
                    citations=(CATALOG.cite("2"),),
                ),
            ),
            citations=(CATALOG.cite("2"), CATALOG.cite("2.1")),
            interpretations=(edge,),
            details={"to": target},
        )

    def _roll(
        self, board: TinyBoard, state: TinyState, action: Roll, dice: Sequence[int]
    ) -> Ruling:
        if action.pawn not in state.positions:
            return Ruling(
                legal=False,
                summary=f"There is no pawn {action.pawn}.",
                violations=(
                    Violation(
                        code="tiny.unknown_pawn",
                        message=f"no pawn {action.pawn}",
                        unit=action.pawn,
                        citations=(CATALOG.cite("1"),),
                    ),
                ),
                citations=(CATALOG.cite("1"),),
            )
        start = state.positions[action.pawn]
        if not dice:
            return Ruling(
                legal=True,
                summary=f"{action.pawn} may roll: it will advance by one die from {start}.",
                citations=(CATALOG.cite("6"),),
                details={"pending_dice": [6]},
            )
        target = min(start + dice[0], board.length - 1)
        return Ruling(
            legal=True,
            summary=f"{action.pawn} rolls {dice[0]} and advances from {start} to {target}.",
            effects=(
                Effect(
                    kind="tiny.moved",
                    unit=action.pawn,
                    details={"from": start, "to": target, "roll": dice[0]},
                    citations=(CATALOG.cite("6"),),
                ),
            ),
            citations=(CATALOG.cite("6"),),
            details={"to": target},
        )

    def apply(self, board: TinyBoard, state: TinyState, action: Any, ruling: Ruling) -> TinyState:
        if isinstance(action, Step | Roll):
            positions = dict(state.positions)
            positions[action.pawn] = int(ruling.details["to"])
            return state.model_copy(update={"positions": positions, "steps": state.steps + 1})
        if isinstance(action, Reset):
            return state.model_copy(update={"positions": dict(board.starts)})
        if isinstance(action, Note):
            return state.model_copy(update={"notes": [*state.notes, action.text]})
        return state

    # -- match flow -----------------------------------------------------------------------

    def sequence_of_play(self, board: TinyBoard) -> SequenceOfPlay | None:
        if not board.sequence:
            return None
        return SequenceOfPlay(phases=PHASES, citation=CATALOG.cite("5"), sides=tuple(board.sides))

    def position(self, board: TinyBoard, state: TinyState) -> Position | None:
        if not board.sequence:
            return None
        return Position(turn=state.turn, phase=state.phase, phasing_side=state.phasing)

    def advance_phase(self, board: TinyBoard, state: TinyState) -> TinyState:
        order = [p.id for p in PHASES]
        turn, phasing = state.turn, state.phasing or board.sides[0]
        idx = order.index(state.phase)
        if idx + 1 < len(order):
            phase = order[idx + 1]
        else:
            phase = order[0]
            nxt = board.sides.index(phasing) + 1
            if nxt < len(board.sides):
                phasing = board.sides[nxt]
            else:
                phasing, turn = board.sides[0], turn + 1
        return state.model_copy(
            update={
                "phase": phase,
                "phasing": phasing,
                "turn": turn,
                "phase_start": dict(state.positions),
            }
        )

    def dice_needed(self, board: TinyBoard, state: TinyState, action: Any) -> Sequence[int]:
        return (6,) if isinstance(action, Roll) else ()

    def is_over(self, board: TinyBoard, state: TinyState) -> bool:
        return board.goal is not None and board.goal in state.positions.values()

    def queries(self) -> Mapping[str, QuerySpec]:
        return {
            "where": QuerySpec(
                name="where",
                description="The square a pawn stands on.",
                params=WhereParams,
                run=_where,
            ),
            "reach": QuerySpec(
                name="reach",
                description="The squares a pawn may reach with one step of up to n.",
                params=ReachParams,
                run=_reach,
            ),
        }

    def private_to(self, board: TinyBoard, state: TinyState, action: Any) -> tuple[str, ...] | None:
        """Notes are for the umpire: their events are readable by the umpire and the writer."""
        return () if isinstance(action, Note) else None

    def view(self, board: TinyBoard, state: TinyState, seat: str | None) -> dict[str, Any]:
        data = state.model_dump(mode="json")
        if seat != UMPIRE:
            data["notes"] = len(state.notes)
        return data

    def example_scenario(self) -> dict[str, Any] | None:
        return {
            "length": 10,
            "sides": ["red", "blue"],
            "pawns": [{"id": "r1", "side": "red", "at": 0}, {"id": "b1", "side": "blue", "at": 9}],
        }


def _where(board: TinyBoard, state: TinyState, options: TinyOptions, params: Any) -> Any:
    if params.pawn not in state.positions:
        raise InvalidQuery(f"no pawn {params.pawn}")
    return {"pawn": params.pawn, "at": state.positions[params.pawn]}


def _reach(board: TinyBoard, state: TinyState, options: TinyOptions, params: Any) -> Any:
    if params.pawn not in state.positions:
        raise InvalidQuery(f"no pawn {params.pawn}")
    at = state.positions[params.pawn]
    squares = sorted({at + d for d in range(-params.n, params.n + 1) if 0 <= at + d < board.length})
    return {"pawn": params.pawn, "squares": squares}


TINY = TinyRuleset()
