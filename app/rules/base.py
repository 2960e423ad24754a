"""The ruleset plug-in interface.

A ruleset is a pure object: it validates its scenario, options and actions with pydantic
models and judges actions with :meth:`Ruleset.adjudicate`, returning a :class:`Ruling`.
The service and the API know rulesets only through this interface and the registry
(:mod:`app.rules.registry`), so adding a ruleset needs no change outside its own package.

Nothing here touches a database, the network, the clock or randomness. Dice enter as values.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, TypeAdapter

from app.rules.catalog import Catalog, Interpretation
from app.rules.ruling import Ruling

UMPIRE = "umpire"
"""The seat that may act for every side."""

BoardT = TypeVar("BoardT", bound=BaseModel)
StateT = TypeVar("StateT", bound=BaseModel)
ActionT = TypeVar("ActionT", bound=BaseModel)
OptionsT = TypeVar("OptionsT", bound=BaseModel)


class RulesError(Exception):
    """Base class of errors raised by a rules core for input it cannot judge."""

    code = "rules.error"


class InvalidScenario(RulesError):
    """The scenario is well-formed JSON but inconsistent (unknown hex, duplicate unit…)."""

    code = "scenario.invalid"

    def __init__(self, message: str, errors: Sequence[Mapping[str, Any]] = ()) -> None:
        super().__init__(message)
        self.errors = list(errors)


class InvalidQuery(RulesError):
    """A query names something the game does not have (unknown unit, unknown side…)."""

    code = "query.invalid"


@dataclass(frozen=True)
class QuerySpec:
    """A read-only question a front end may ask about a game (zone map, reachable hexes…)."""

    name: str
    description: str
    params: type[BaseModel]
    run: Callable[[Any, Any, Any, Any], Any]
    """``run(board, state, options, params) -> JSON-able value``."""


@dataclass(frozen=True)
class Sides:
    """The sides of a game; each gets a seat, plus the umpire."""

    names: tuple[str, ...]
    labels: Mapping[str, str] = field(default_factory=dict)


class Ruleset(ABC, Generic[BoardT, StateT, ActionT, OptionsT]):
    """One ruleset: id, version, catalog, schemas and pure adjudication.

    Subclasses set the class attributes and implement the abstract methods.
    ``board`` is the immutable part of a game (map, tables) parsed once from the scenario;
    ``state`` is the mutable part (positions, phase) that actions change.
    """

    id: ClassVar[str]
    version: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str] = ""
    source: ClassVar[str] = ""

    catalog: ClassVar[Catalog]
    interpretations: ClassVar[tuple[Interpretation, ...]] = ()

    scenario_model: ClassVar[type[BaseModel]]
    options_model: ClassVar[type[BaseModel]]
    board_model: ClassVar[type[BaseModel]]
    state_model: ClassVar[type[BaseModel]]
    action_models: ClassVar[Mapping[str, type[BaseModel]]]
    """Action kind -> pydantic model. Every model has a literal ``kind`` field."""

    _action_adapter: ClassVar[TypeAdapter[Any] | None] = None

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

    def parse_options(self, data: Any) -> OptionsT:
        """Validate per-game options; missing keys take documented defaults."""
        return self.options_model.model_validate(data or {})  # type: ignore[return-value]

    def parse_action(self, data: Any) -> ActionT:
        """Validate an action document (raises pydantic.ValidationError)."""
        return self.action_adapter().validate_python(data)  # type: ignore[no-any-return]

    def load_board(self, data: Any) -> BoardT:
        """Re-load a stored board (already validated when the game was created)."""
        return self.board_model.model_validate(data)  # type: ignore[return-value]

    def load_state(self, data: Any) -> StateT:
        """Re-load a stored state."""
        return self.state_model.model_validate(data)  # type: ignore[return-value]

    # -- the game -------------------------------------------------------------------------

    @abstractmethod
    def setup(self, scenario: Any, options: OptionsT) -> tuple[BoardT, StateT]:
        """Split a validated scenario into its immutable board and its initial state.

        Raises :class:`InvalidScenario` for a scenario that is well-formed but inconsistent.
        """

    @abstractmethod
    def sides(self, board: BoardT) -> Sides:
        """The sides playing this game."""

    @abstractmethod
    def actor_side(self, board: BoardT, state: StateT, action: ActionT) -> str | None:
        """The side that owns the action (whose unit moves); None if any seat may submit it."""

    @abstractmethod
    def adjudicate(
        self,
        board: BoardT,
        state: StateT,
        action: ActionT,
        options: OptionsT,
        dice: Sequence[int] = (),
    ) -> Ruling:
        """Judge an action against the rules. Pure: same input, same ruling."""

    @abstractmethod
    def apply(self, board: BoardT, state: StateT, action: ActionT, ruling: Ruling) -> StateT:
        """Return the state after a legal action. Never mutates its inputs."""

    # -- read side ------------------------------------------------------------------------

    def queries(self) -> Mapping[str, QuerySpec]:
        """Named read-only queries for front ends."""
        return {}

    def view(self, board: BoardT, state: StateT, seat: str | None) -> dict[str, Any]:
        """What a reader in ``seat`` (None = public) may see of the state. Default: all."""
        return state.model_dump(mode="json")

    def example_scenario(self) -> dict[str, Any] | None:
        """A small shipped scenario, for docs and examples."""
        return None
