"""The ruleset plug-in interface.

A ruleset is a pure object: it validates its scenario, options and actions with pydantic
models and judges actions with :meth:`Ruleset.adjudicate`, returning a :class:`Ruling`.
The service and the API know rulesets only through this interface and the registry
(:mod:`app.rules.registry`), so adding a ruleset needs no change outside its own package.

Nothing here touches a database, the network, the clock or randomness. Dice enter as values.
"""

from __future__ import annotations

import json
from abc import ABC
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from app.rules.catalog import Catalog, Interpretation, RulesText
from app.rules.dispatch import Kind, Query, Sealed
from app.rules.errors import InvalidQuery as InvalidQuery
from app.rules.errors import InvalidScenario as InvalidScenario
from app.rules.errors import RulesError as RulesError
from app.rules.judgement import Citable, GameJudgement, Problem
from app.rules.phases import refused_before_judge
from app.rules.ruling import Citation, Ruling

if TYPE_CHECKING:
    from app.rules.phases import PhaseRule

UMPIRE = "umpire"
"""The seat that may act for every side."""

BoardT = TypeVar("BoardT", bound=BaseModel)
StateT = TypeVar("StateT", bound=BaseModel)
ActionT = TypeVar("ActionT", bound=BaseModel)
OptionsT = TypeVar("OptionsT", bound=BaseModel)


class QueryResultModel(BaseModel):
    """Base of the models that document a query's answer. A query still returns plain JSON
    (its output is unchanged); the model is that JSON's schema, for the typed per-ruleset
    OpenAPI document, and the suite validates real answers against it (extra keys forbidden)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


@dataclass(frozen=True)
class QuerySpec:
    """A read-only question a front end may ask about a game (zone map, reachable hexes…)."""

    name: str
    description: str
    params: type[BaseModel]
    run: Callable[[Any, Any, Any, Any], Any]
    """``run(board, state, options, params) -> JSON-able value``."""
    result: Any = None
    """The type of ``run``'s answer (a :class:`QueryResultModel`, or a union of them); None
    leaves it untyped in the ruleset's OpenAPI document."""


@dataclass(frozen=True)
class PhaseSpec:
    """One phase of a ruleset's sequence of play."""

    id: str
    title: str
    acts: str = "phasing"
    """Who may submit actions in this phase: ``phasing`` (the phasing side), ``non_phasing``,
    ``both`` (either side, e.g. sealed allocations) or ``umpire``."""
    kinds: tuple[str, ...] = ()
    """The action kinds this phase allows -- the one declaration of which phase a kind
    belongs to (:mod:`app.rules.phases`); ``available_actions`` offers only these. Another
    kind is refused: with the ruleset's cited violation (:attr:`Ruleset.phase_rule`, placed
    by :meth:`Ruleset.adjudicate` before the kind's judge), or, for a ruleset that declares
    none, by :func:`app.rules.play.step` as out of sequence. Empty: the phase restricts no
    kind."""


@dataclass(frozen=True)
class SequenceOfPlay:
    """A ruleset's sequence of play: the phases of one player turn, in order.

    Player turns rotate through ``sides`` (default: the board's sides in order); after the last
    side's last phase the game turn number goes up by one. ``citation`` is the rule section a
    rejection for acting out of sequence cites.
    """

    phases: tuple[PhaseSpec, ...]
    citation: Citation
    sides: tuple[str, ...] | None = None

    def phase(self, phase_id: str) -> PhaseSpec:
        for p in self.phases:
            if p.id == phase_id:
                return p
        raise KeyError(phase_id)

    def next_position(self, position: Position, sides: Sequence[str] | None = None) -> Position:
        """Where play stands after ``position``'s phase ends. Pure.

        The next phase of the same player turn; after the last phase, the first phase of the
        next side's player turn; after the last side's turn, the first side's turn of the next
        game turn. Turns rotate through ``sides`` (default: this sequence's ``sides``). A
        phasing side that is not among them (e.g. None) hands the turn to the first side
        without advancing the game turn. Raises ValueError for a phase not in the sequence.
        """
        order = [p.id for p in self.phases]
        idx = order.index(position.phase)
        if idx + 1 < len(order):
            return Position(position.turn, order[idx + 1], position.phasing_side)
        rotation = list(sides if sides is not None else self.sides or ())
        side = position.phasing_side
        side_idx = rotation.index(side) if side in rotation else -1
        if side_idx + 1 < len(rotation):
            return Position(position.turn, order[0], rotation[side_idx + 1])
        return Position(position.turn + 1, order[0], rotation[0])


@dataclass(frozen=True)
class Position:
    """Where a game stands in its sequence of play."""

    turn: int
    phase: str
    phasing_side: str | None


@dataclass(frozen=True)
class SealedDecision:
    """A simultaneous secret decision open in the current state (e.g. a troop allocation).

    Each side in ``sides`` submits one order validated by ``order_model``; nobody else sees an
    order until every side has submitted (or the umpire opens them), then all are revealed
    at once and judged by :meth:`Ruleset.resolve_sealed`.
    """

    id: str
    title: str
    sides: tuple[str, ...]
    order_model: type[BaseModel]
    citation: Citation | None = None


@dataclass(frozen=True)
class Sides:
    """The sides of a game; each gets a seat, plus the umpire."""

    names: tuple[str, ...]
    labels: Mapping[str, str] = field(default_factory=dict)


class UnitActions(BaseModel):
    """One unit that may act now, the action kinds open to it and the sections that say so."""

    model_config = ConfigDict(frozen=True)

    unit: str
    kinds: tuple[str, ...]
    citations: tuple[Citation, ...] = ()


class AvailableActions(BaseModel):
    """What a seat may do now (:meth:`Ruleset.available_actions`): the action kinds open to
    it, the units that may act with their kinds, the sections behind the answer, and notes
    in the project's own words (e.g. which readings or defaults shaped it). A hint for front
    ends: the ruling on a submitted action stays the authority."""

    model_config = ConfigDict(frozen=True)

    kinds: tuple[str, ...] = Field(default=(), description="Action kinds open to the seat.")
    units: tuple[UnitActions, ...] = Field(
        default=(), description="Units that may act now (empty if the ruleset lists none)."
    )
    citations: tuple[Citation, ...] = ()
    notes: tuple[str, ...] = ()


class Ruleset(ABC, Generic[BoardT, StateT, ActionT, OptionsT]):
    """One ruleset: id, version, catalog, schemas and pure adjudication.

    Subclasses set the class attributes and implement :meth:`setup`. ``board`` is the
    immutable part of a game (map, tables) parsed once from the scenario; ``state`` is the
    mutable part (positions, phase) that actions change.

    The base supplies the plumbing (docs/ADDING_A_RULESET.md): :meth:`sides` from the board's
    ``sides`` (or the declared :attr:`fixed_sides`), scenario and option coercion, and, for a
    ruleset that declares its :attr:`kinds` (the ``kind -> judge`` table) and
    :meth:`context`, :meth:`actor_side`, :meth:`adjudicate` and :meth:`apply`; for one that
    declares :attr:`query_table`, :meth:`queries`.
    """

    id: ClassVar[str]
    version: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str] = ""
    source: ClassVar[str] = ""

    text: ClassVar[RulesText | None] = None
    """What the ruleset rules from (source, catalog, interpretations), declared once; sets
    :attr:`source`, :attr:`catalog` and :attr:`interpretations`."""
    catalog: ClassVar[Catalog]
    interpretations: ClassVar[tuple[Interpretation, ...]] = ()
    interpretation_by_id: ClassVar[Mapping[str, Interpretation]] = {}
    """:attr:`interpretations` by id (filled in from them)."""
    cites_from: ClassVar[Citable | None] = None
    """Where the default :meth:`context` cites sections from, when not :attr:`catalog` alone
    (a composed ruleset's :class:`~app.rules.judgement.Catalogs`: each citation keeps its
    home ruleset)."""

    scenario_model: ClassVar[type[BaseModel]]
    options_model: ClassVar[type[BaseModel]]
    board_model: ClassVar[type[BaseModel]]
    state_model: ClassVar[type[BaseModel]]
    """The board, state and options models default to the type parameters the ruleset
    names (``Ruleset[Board, State, Action, Options]``): said once."""
    action_models: ClassVar[Mapping[str, type[BaseModel]]]
    """Action kind -> pydantic model. Every model has a literal ``kind`` field. Derived from
    :attr:`kinds` when the ruleset declares them."""

    kinds: ClassVar[Mapping[str, Kind[Any, Any, Any, Any, Any]]] = {}
    """The dispatch table: action kind -> :class:`~app.rules.dispatch.Kind` (model, owner,
    judge, apply, outcome)."""

    query_table: ClassVar[tuple[Query[Any, Any], ...]] = ()
    """The read-only queries (:class:`~app.rules.dispatch.Query`), answered through
    :meth:`context`."""

    phase_rule: ClassVar[PhaseRule | None] = None
    """How the ruleset's rules refuse a kind submitted in a phase that does not allow it (a
    cited violation, :func:`app.rules.phases.out_of_phase`, which :meth:`adjudicate` places
    before the judge with the kind's declared reasons, :meth:`refused_before_judge`; no
    judge checks the phase); None: :func:`app.rules.play.step` refuses it as out of sequence
    before the judge."""

    refusal: ClassVar[Callable[[Any, Sequence[Problem]], Ruling] | None] = None
    """How the ruleset's judges word a refusal for problems found before the judge
    (:meth:`refuse`): ``refusal(ctx, problems)``; None: the judgement's own ``refuse``."""

    sealed: ClassVar[Sealed[Any, Any] | None] = None
    """The ruleset's sealed orders (:class:`~app.rules.dispatch.Sealed`); None: it has none."""

    offer: ClassVar[Callable[[Any, Any, Any, str], AvailableActions] | None] = None
    """What a seat may do now, the ruleset's own listing: ``offer(board, state, options,
    seat)`` (options coerced); None: the default of :meth:`available_actions`."""

    fixed_sides: ClassVar[Sides | None] = None
    """The sides, for a ruleset whose sides do not come from the scenario."""

    example: ClassVar[str | None] = None
    """File name (in the package's ``scenarios/`` folder) of the example scenario."""

    _action_adapter: ClassVar[TypeAdapter[Any] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for base in cls.__dict__.get("__orig_bases__", ()):
            if get_origin(base) is Ruleset:
                named = zip(
                    ("board_model", "state_model", "", "options_model"), get_args(base), strict=True
                )
                for attr, model in named:
                    if attr and attr not in cls.__dict__ and isinstance(model, type):
                        setattr(cls, attr, model)
        text = cls.__dict__.get("text")
        if text is not None:
            cls.source, cls.catalog, cls.interpretations = (
                text.source,
                text.catalog,
                text.interpretations,
            )
        if "interpretations" in cls.__dict__:
            cls.interpretation_by_id = {i.id: i for i in cls.interpretations}
        if cls.__dict__.get("kinds"):
            cls.action_models = {name: kind.model for name, kind in cls.kinds.items()}

    # -- validation ---------------------------------------------------------------------

    @classmethod
    def action_adapter(cls) -> TypeAdapter[Any]:
        """A TypeAdapter for the discriminated union of every action kind."""
        if cls.__dict__.get("_action_adapter") is None:
            from typing import Annotated, Union

            from pydantic import Field

            models = tuple(cls.action_models.values())
            union: Any = models[0] if len(models) == 1 else Union[models]  # noqa: UP007
            if len(models) > 1:
                union = Annotated[union, Field(discriminator="kind")]
            cls._action_adapter = TypeAdapter(union)
        adapter = cls.__dict__["_action_adapter"]
        assert adapter is not None
        return adapter  # type: ignore[no-any-return]

    def parse_scenario(self, data: Any) -> BaseModel:
        """Validate a scenario document (raises pydantic.ValidationError)."""
        return self.scenario_model.model_validate(data)

    def coerce_scenario(self, scenario: Any) -> Any:
        """``scenario`` as this ruleset's own scenario model: kept if it already is one,
        otherwise validated from its document (or from another model's aliased dump)."""
        return _coerce(self.scenario_model, scenario)

    def parse_options(self, data: Any) -> OptionsT:
        """Validate per-game options; missing keys take documented defaults."""
        return self.options_model.model_validate(data or {})  # type: ignore[return-value]

    def coerce_options(self, options: Any) -> OptionsT:
        """``options`` as this ruleset's options model (a document or None is validated)."""
        return _coerce(self.options_model, options or {})  # type: ignore[return-value]

    def parse_action(self, data: Any) -> ActionT:
        """Validate an action document (raises pydantic.ValidationError)."""
        return self.action_adapter().validate_python(data)  # type: ignore[no-any-return]

    def generated_size(self, scenario: Any) -> int:
        """How many elements :meth:`setup` will build that the scenario document does not list
        one by one -- e.g. the hexes of a rectangular map area. The service adds this to the
        document's own size and refuses a scenario over its budget before calling
        :meth:`setup`. Default: none (every element is listed in the document)."""
        return 0

    def load_board(self, data: Any) -> BoardT:
        """Re-load a stored board (already validated when the game was created)."""
        return _coerce(self.board_model, data)  # type: ignore[return-value]

    state_revalidates: ClassVar[bool] = False
    """The state model validates its own field values -- with some entries replaced by
    their documents -- to the state the whole document would give (its validators are
    idempotent: a value validated once passes again unchanged). Then the service rebuilds a
    state from a snapshot and the deltas after it without making the whole document
    (``app.db.deltas.apply_to_model``). Declare it only when it holds; the built-in
    rulesets' is tested on every state their rule cases make."""

    def load_state(self, data: Any) -> StateT:
        """Re-load a stored state: its document, or its JSON text as stored (validated
        straight from the text, without making the document first: a cache miss's parse)."""
        if isinstance(data, str | bytes):
            return self.state_model.model_validate_json(data)  # type: ignore[return-value]
        return _coerce(self.state_model, data)  # type: ignore[return-value]

    # -- the game -------------------------------------------------------------------------

    builder: ClassVar[Callable[[Any, Any], tuple[Any, Any]] | None] = None
    """The package's ``build(scenario, options) -> (board, state)`` (its ``setup.py``), which
    the default :meth:`setup` calls with the scenario and options coerced to their models."""

    def setup(self, scenario: Any, options: OptionsT) -> tuple[BoardT, StateT]:
        """Split a validated scenario into its immutable board and its initial state.

        Raises :class:`InvalidScenario` for a scenario that is well-formed but inconsistent.
        Default: :attr:`builder` with the scenario and options coerced to their models.
        """
        build = type(self).builder
        if build is None:
            raise NotImplementedError(f"ruleset {self.id!r} declares no builder and no setup")
        return build(self.coerce_scenario(scenario), self.coerce_options(options))

    def sides(self, board: BoardT) -> Sides:
        """The sides playing this game: :attr:`fixed_sides` if declared, else the board's
        ``sides`` (each with an ``id`` and an optional ``label``)."""
        if self.fixed_sides is not None:
            return self.fixed_sides
        listed = getattr(board, "sides", ())
        return Sides(
            names=tuple(s.id for s in listed),
            labels={s.id: getattr(s, "label", None) or s.id for s in listed},
        )

    def context(self, board: BoardT, state: StateT, options: OptionsT, dice: Sequence[int]) -> Any:
        """The per-ruling context the judges and queries of :attr:`kinds` and
        :attr:`query_table` take: a :class:`~app.rules.judgement.GameJudgement` (board, state,
        options, dice and the ruling's bookkeeping). Default: one citing :attr:`cites_from`
        (else :attr:`catalog`) and relying on :attr:`interpretations`; a ruleset whose rules
        need more look-ups returns its own subclass."""
        source = self.cites_from if self.cites_from is not None else self.catalog
        return GameJudgement(source, self.interpretation_by_id, board, state, options, dice)

    def kind(self, action: BaseModel) -> Kind[Any, Any, Any, Any, Any]:
        """The dispatch-table entry of an action (RulesError for a kind not in the table)."""
        kind = self.kinds.get(str(getattr(action, "kind", "")))
        if kind is None or not isinstance(action, kind.model):
            raise RulesError(f"not a {self.id} action: {type(action).__name__}")
        return kind

    def unit_side(self, board: BoardT, state: StateT, unit_id: str) -> str | None:
        """The side of a unit of the state (``state.units``, each with ``id`` and ``side``)."""
        for unit in getattr(state, "units", ()):
            if unit.id == unit_id:
                return str(unit.side)
        return None

    def actor_side(self, board: BoardT, state: StateT, action: ActionT) -> str | None:
        """The side that owns the action (whose unit moves); None if any seat may submit it.
        Default: from the kind's ``owner``."""
        kind = self.kind(action)
        if kind.owner == "umpire":
            return UMPIRE
        if kind.owner == "anyone":
            return None
        return self.unit_side(board, state, kind.owning_unit(action))

    def adjudicate(
        self,
        board: BoardT,
        state: StateT,
        action: ActionT,
        options: OptionsT,
        dice: Sequence[int] = (),
    ) -> Ruling:
        """Judge an action against the rules. Pure: same input, same ruling. Default: the
        kind's judge, given :meth:`context`, once :meth:`refused_before_judge` found nothing
        (else :meth:`refuse` with what it found)."""
        kind = self.kind(action)
        ctx = self.context(board, state, self.coerce_options(options), dice)
        refused = self.refused_before_judge(board, state, kind, ctx, action)
        if refused:
            return self.refuse(ctx, refused)
        return kind.judge(ctx, action)

    def refused_before_judge(
        self,
        board: BoardT,
        state: StateT,
        kind: Kind[Any, Any, Any, Any, Any],
        ctx: Any,
        action: ActionT,
    ) -> Sequence[Problem]:
        """The kit's check before the judge, for a kind whose phase the rules decide
        (:attr:`phase_rule`, unless ``sequence_only`` or ``kind.phase_of_part``): the names
        it gets wrong, its phase and what forbids it whatever the phase, in one order
        (:func:`app.rules.phases.refused_before_judge`). Empty: the judge rules."""
        rule = self.phase_rule
        if rule is None:
            return ()
        if kind.phase_of_part:
            return ()
        if not rule.rules_on(str(getattr(action, "kind", ""))):
            return ()
        phases = self._phases(board)
        if phases is None:
            return ()
        position = self.position(board, state)
        if position is None:
            return ()
        return refused_before_judge(rule, phases, position.phase, kind, ctx, action)

    _kept_phases: tuple[Any, tuple[PhaseSpec, ...] | None] | None = None
    """The last board asked of :meth:`_phases` and its phases (a board is never mutated)."""

    def _phases(self, board: BoardT) -> tuple[PhaseSpec, ...] | None:
        """The phases of the board's sequence of play (None without one), kept for the last
        board asked: every ruling asks, and a ruleset builds its sequence afresh each time
        (about a microsecond, a twentieth of the cheapest ruling)."""
        kept = self._kept_phases
        if kept is not None and kept[0] is board:
            return kept[1]
        sequence = self.sequence_of_play(board)
        phases = None if sequence is None else sequence.phases
        self._kept_phases = (board, phases)
        return phases

    def refuse(self, ctx: Any, problems: Sequence[Problem]) -> Ruling:
        """The ruling refusing an action for ``problems`` (the kit's, before the judge), as
        the ruleset's judges word a refusal: :attr:`refusal`, else the judgement's
        :meth:`~app.rules.judgement.Judgement.refuse` (summary: the first problem's
        message)."""
        refusal = type(self).refusal
        if refusal is not None:
            return refusal(ctx, problems)
        return ctx.refuse(*problems)  # type: ignore[no-any-return]

    def apply(self, board: BoardT, state: StateT, action: ActionT, ruling: Ruling) -> StateT:
        """Return the state after a legal action. Never mutates its inputs. Default: the
        kind's apply, given the ruling's typed outcome."""
        if not ruling.legal:
            raise RulesError("an illegal action cannot be applied")
        kind = self.kind(action)
        outcome = kind.outcome.model_validate(ruling.details)
        return kind.apply(board, state, action, outcome)  # type: ignore[no-any-return]

    # -- match flow (optional hooks; defaults mean "not used by this ruleset") --------------

    def sequence_of_play(self, board: BoardT) -> SequenceOfPlay | None:
        """The phases of a player turn; None if this ruleset does not enforce a sequence."""
        return None

    def position(self, board: BoardT, state: StateT) -> Position | None:
        """The current turn, phase and phasing side; None without a sequence of play."""
        return None

    def advance_phase(self, board: BoardT, state: StateT) -> StateT:
        """The state at the start of the next phase (snapshotting what rules need, e.g. which
        units started the phase in an enemy zone). Only called when a sequence exists."""
        raise NotImplementedError(f"ruleset {self.id!r} has no sequence of play")

    def dice_needed(self, board: BoardT, state: StateT, action: ActionT) -> Sequence[int]:
        """The sizes of the dice an action needs (e.g. ``[6, 6]``); the service rolls them
        verifiably and passes the values to :meth:`adjudicate` in this order. Default: the
        kind's ``dice`` (none for a ruleset without a kinds table)."""
        if not self.kinds:
            return ()
        return self.kind(action).dice_needed(board, state, action)

    def sealed_decisions(self, board: BoardT, state: StateT) -> Mapping[str, SealedDecision]:
        """Simultaneous secret decisions open in this state, by id (:attr:`sealed`)."""
        return {} if self.sealed is None else self.sealed.decisions(board, state)

    def judge_order(
        self,
        board: BoardT,
        state: StateT,
        decision: SealedDecision,
        side: str,
        order: BaseModel,
        options: OptionsT,
    ) -> Ruling:
        """Judge ``side``'s sealed order (already well-formed: ``decision.order_model``)
        against the game now, before it is accepted -- on submission and in the dry run
        ``POST /games/{id}/sealed/{decision}/check``. Pure. A refusal lists every rule the
        order breaks, cited. Without :attr:`sealed`: every well-formed order is accepted."""
        if self.sealed is not None:
            return self.sealed.judge(
                board, state, decision, side, order, self.coerce_options(options)
            )
        citations = (decision.citation,) if decision.citation is not None else ()
        return Ruling(legal=True, summary=f"{side}'s order is accepted.", citations=citations)

    def sealed_dice_needed(
        self, board: BoardT, state: StateT, decision: str, orders: Mapping[str, BaseModel]
    ) -> Sequence[int]:
        """Dice sizes needed to resolve revealed sealed orders."""
        return () if self.sealed is None else self.sealed.dice(board, state, decision, orders)

    def resolve_sealed(
        self,
        board: BoardT,
        state: StateT,
        decision: str,
        orders: Mapping[str, BaseModel],
        options: OptionsT,
        dice: Sequence[int] = (),
    ) -> Ruling:
        """Judge the revealed orders of a sealed decision (side -> order). Pure."""
        if self.sealed is None:
            raise NotImplementedError(f"ruleset {self.id!r} has no sealed decisions")
        return self.sealed.resolve(
            board, state, decision, orders, self.coerce_options(options), dice
        )

    def apply_sealed(
        self,
        board: BoardT,
        state: StateT,
        decision: str,
        orders: Mapping[str, BaseModel],
        ruling: Ruling,
    ) -> StateT:
        """The state after a resolved sealed decision."""
        if self.sealed is None:
            raise NotImplementedError(f"ruleset {self.id!r} has no sealed decisions")
        return self.sealed.apply(board, state, decision, orders, ruling)  # type: ignore[no-any-return]

    def is_over(self, board: BoardT, state: StateT) -> bool:
        """True once the game has ended (its dice seed may then be revealed to all)."""
        return False

    # -- read side ------------------------------------------------------------------------

    def available_actions(
        self, board: BoardT, state: StateT, options: OptionsT, seat: str
    ) -> AvailableActions:
        """What ``seat`` (a side, or the umpire who acts for every side) may do now. Pure.

        The service calls this only while the sequence of play lets the seat act and adds
        the phase, sealed decisions and whether the seat may end the phase. Default: every
        action kind, no unit list, citing the sequence of play if there is one. A ruleset
        declares its own listing (:attr:`offer`: the units that may act, the sections that
        decide it)."""
        offer = type(self).offer
        if offer is not None:
            return offer(board, state, self.coerce_options(options), seat)
        sequence = self.sequence_of_play(board)
        return AvailableActions(
            kinds=tuple(self.action_models),
            citations=(sequence.citation,) if sequence is not None else (),
            notes=(
                "This ruleset does not list the units that may act; a dry run judges any "
                "one action.",
            ),
        )

    def queries(self) -> Mapping[str, QuerySpec]:
        """Named read-only queries for front ends. Default: :attr:`query_table`, each run
        with the coerced board, state, options and parameters through :meth:`context`."""
        found = self.__dict__.get("_queries")
        if found is None:
            found = self.__dict__["_queries"] = {q.name: self._query(q) for q in self.query_table}
        return found

    def _query(self, query: Query[Any, Any]) -> QuerySpec:
        def run(board: Any, state: Any, options: Any, params: Any) -> Any:
            ctx = self.context(
                self.load_board(board), self.load_state(state), self.coerce_options(options), ()
            )
            return query.run(ctx, _coerce(query.params, params or {}))

        return QuerySpec(query.name, query.description, query.params, run, query.result)

    def private_to(self, board: BoardT, state: StateT, action: ActionT) -> Sequence[str] | None:
        """Seats (besides the umpire and the submitter) who may read this action's event and
        ruling in the log and the stream; None = every reader of the game. A ruleset with
        hidden information returns e.g. ``()`` for an action only its submitter may see.
        Default: the kind's ``private`` (every reader for a ruleset without a kinds table)."""
        if not self.kinds:
            return None
        return self.kind(action).private_to(board, state, action)

    def view(self, board: BoardT, state: StateT, seat: str | None) -> dict[str, Any]:
        """What a reader in ``seat`` (None = public) may see of the state. Default: all."""
        return state.model_dump(mode="json")

    def example_scenario(self) -> dict[str, Any] | None:
        """A small shipped scenario, for docs and examples: the package's
        ``scenarios/<example>`` JSON file (None if :attr:`example` is not set)."""
        if self.example is None:
            return None
        return shipped_scenario(type(self).__module__, self.example)


def shipped_scenario(module: str, name: str) -> dict[str, Any]:
    """The JSON scenario ``name`` of the ``scenarios/`` folder of ``module``'s package (the
    files ship as package data), parsed anew on every call."""
    package = module.rpartition(".")[0] or module
    text = resources.files(package).joinpath("scenarios", name).read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"{package}/scenarios/{name} is not a JSON object")
    return data


def shipped_scenarios(module: str) -> dict[str, dict[str, Any]]:
    """Every ``scenarios/*.json`` of ``module``'s package, by file stem, sorted."""
    package = module.rpartition(".")[0] or module
    folder = resources.files(package).joinpath("scenarios")
    if not folder.is_dir():
        return {}
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".json"))
    return {name.removesuffix(".json"): shipped_scenario(module, name) for name in names}


M = TypeVar("M", bound=BaseModel)


def _coerce(model: type[M], value: Any) -> M:
    """``value`` as ``model``: kept if it already is one, else validated from its document
    (or from another model's aliased dump)."""
    if isinstance(value, model):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(by_alias=True)
    return model.model_validate(value)
