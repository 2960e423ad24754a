"""What ``base.Ruleset`` derives from a ruleset's declarations when its class is made and when
it is first asked: the models named by its generic parameters, its readings by id, its action
models and their discriminated union, its query table run on stored documents. Tested on a
ruleset class made here, so that nothing was derived before the test (issue 27: the shared
kit's survivors, docs/mutation/core.md)."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.rules.base import (
    AvailableActions,
    PhaseSpec,
    Position,
    Ruleset,
    SealedDecision,
    SequenceOfPlay,
    Sides,
)
from app.rules.catalog import Catalog, Interpretation, RuleSection, RulesText
from app.rules.dispatch import Kind, NoOutcome, Query, Sealed
from app.rules.errors import RulesError
from app.rules.judgement import GameJudgement
from app.rules.play import where
from app.rules.ruling import Ruling

CAT = Catalog("mini", [RuleSection(id="1", title="Moving", summary="Units move.")])
READING = Interpretation(
    id="mini.reading", question="?", reading="This.", alternative="That.", sections=("1",)
)


class Board(BaseModel):
    size: int = 3


class State(BaseModel):
    at: dict[str, int] = {}
    path: tuple[str, ...] = ()


class Options(BaseModel):
    fast: bool = False


class Go(BaseModel):
    kind: Literal["go"] = "go"
    unit: str


class Wait(BaseModel):
    kind: Literal["wait"] = "wait"


class Where(BaseModel):
    unit: str = "u1"


def _judge(ctx: Any, action: Any) -> Any:
    raise AssertionError("not judged here")


def _apply(board: Any, state: Any, action: Any, outcome: Any) -> Any:
    raise AssertionError("not applied here")


def _where(ctx: Any, params: Where) -> dict[str, Any]:
    return {
        "context": type(ctx).__name__,
        "board": type(ctx.board).__name__,
        "size": ctx.board.size,
        "state": type(ctx.state).__name__,
        "at": ctx.state.at.get(params.unit),
        "options": type(ctx.options).__name__,
        "fast": ctx.options.fast,
        "dice": ctx.dice,
        "params": type(params).__name__,
        "unit": params.unit,
        "cites": ctx.cite("1")[0].ruleset,
    }


def _make() -> tuple[type[Ruleset[Any, Any, Any, Any]], type[Ruleset[Any, Any, Any, Any]]]:
    class Mini(Ruleset[Board, State, Any, Options]):
        id = "mini"
        catalog = CAT
        interpretations = (READING,)
        kinds = {
            "go": Kind(Go, _judge, _apply, NoOutcome),
            "wait": Kind(Wait, _judge, _apply, NoOutcome, owner="anyone"),
        }
        query_table = (Query("where", "Where a unit stands.", Where, _where, result=dict),)

    class One(Ruleset[Board, State, Any, Options]):
        id = "one"
        catalog = CAT
        board_model = State  # declared: kept, not the generic parameter
        kinds = {"go": Kind(Go, _judge, _apply, NoOutcome)}

    return Mini, One


def test_a_ruleset_class_takes_its_models_readings_and_action_models() -> None:
    mini, one = _make()
    assert (mini.board_model, mini.state_model, mini.options_model) == (Board, State, Options)
    assert (one.board_model, one.state_model) == (State, State)
    assert mini.interpretation_by_id == {"mini.reading": READING}
    assert dict(mini.action_models) == {"go": Go, "wait": Wait}
    assert dict(one.action_models) == {"go": Go}


def test_the_action_union_is_discriminated_by_kind() -> None:
    mini, one = _make()
    adapter = mini.action_adapter()
    assert adapter is mini.action_adapter()  # made once per class
    assert adapter.validate_python({"kind": "go", "unit": "u1"}) == Go(unit="u1")
    assert adapter.validate_python({"kind": "wait"}) == Wait()
    with pytest.raises(ValidationError) as raised:
        adapter.validate_python({"kind": "fly"})
    assert raised.value.errors()[0]["type"] == "union_tag_invalid"
    single = one.action_adapter()
    assert single.validate_python({"kind": "go", "unit": "u2"}) == Go(unit="u2")
    # one kind: its model alone, no discriminator (the kind may be left to its default)
    assert single.validate_python({"unit": "u3"}) == Go(unit="u3")
    with pytest.raises(ValidationError) as wrong:
        single.validate_python({"kind": "wait"})
    assert [e["type"] for e in wrong.value.errors()] == ["literal_error", "missing"]
    assert mini().parse_action({"kind": "wait"}) == Wait()


def test_a_query_runs_on_stored_documents_through_the_rulesets_context() -> None:
    mini, _ = _make()
    rs = mini()
    spec = rs.queries()["where"]
    assert (spec.name, spec.description, spec.params, spec.result) == (
        "where",
        "Where a unit stands.",
        Where,
        dict,
    )
    assert rs.queries() is rs.queries()  # made once per ruleset
    answer = spec.run({"size": 5}, {"at": {"u2": 4}}, {"fast": True}, {"unit": "u2"})
    assert answer == {
        "context": GameJudgement.__name__,
        "board": "Board",
        "size": 5,
        "state": "State",
        "at": 4,
        "options": "Options",
        "fast": True,
        "dice": (),
        "params": "Where",
        "unit": "u2",
        "cites": "mini",
    }
    default = spec.run(Board(), State(at={"u1": 1}), Options(), None)  # models as they are
    assert (default["unit"], default["at"], default["fast"], default["size"]) == ("u1", 1, False, 3)


def test_the_owner_of_an_action_comes_from_its_kind() -> None:
    mini, _ = _make()
    rs = mini()
    state = State()
    assert rs.actor_side(Board(), state, Wait()) is None
    assert rs.unit_side(Board(), state, "u1") is None
    with pytest.raises(Exception) as raised:
        rs.kind(Where())
    assert str(raised.value) == "not a mini action: Where"


def test_the_defaults_of_a_ruleset_without_hooks() -> None:
    mini, _ = _make()
    rs = mini()
    board, state, options = Board(), State(at={"u1": 2}), Options()
    assert rs.generated_size({"any": "scenario"}) == 0
    view = rs.view(board, state.model_copy(update={"path": ("a", "b")}), None)
    assert view == {"at": {"u1": 2}, "path": ["a", "b"]}  # the JSON document: a list
    assert type(view["path"]) is list and rs.view(board, state, "axis")["path"] == []
    assert rs.is_over(board, state) is False
    offered = rs.available_actions(board, state, options, "axis")
    assert offered.kinds == ("go", "wait") and offered.units == () and offered.citations == ()
    assert offered.notes == (
        "This ruleset does not list the units that may act; a dry run judges any one action.",
    )
    decision = SealedDecision(id="d", title="Bids", sides=("axis",), order_model=Wait)
    ruling = rs.judge_order(board, state, decision, "axis", Wait(), options)
    assert (ruling.legal, ruling.summary, ruling.citations) == (
        True,
        "axis's order is accepted.",
        (),
    )
    cited = SealedDecision("d", "Bids", ("axis",), Wait, citation=CAT.cite("1"))
    assert rs.judge_order(board, state, cited, "soviet", Wait(), options).citations == (
        CAT.cite("1"),
    )
    for call, message in [
        (lambda: rs.advance_phase(board, state), "ruleset 'mini' has no sequence of play"),
        (
            lambda: rs.resolve_sealed(board, state, "d", {}, options),
            "ruleset 'mini' has no sealed decisions",
        ),
        (
            lambda: rs.apply_sealed(board, state, "d", {}, ruling),
            "ruleset 'mini' has no sealed decisions",
        ),
        (lambda: rs.setup({}, options), "ruleset 'mini' declares no builder and no setup"),
    ]:
        with pytest.raises(NotImplementedError) as raised:
            call()
        assert str(raised.value) == message


def test_a_sequence_hands_the_turn_round_its_sides() -> None:
    cite = CAT.cite("1")
    seq = SequenceOfPlay(
        phases=(PhaseSpec(id="move", title="Move"), PhaseSpec(id="fire", title="Fire")),
        citation=cite,
        sides=("axis", "allies", "neutral"),
    )
    assert seq.phase("fire").title == "Fire"
    with pytest.raises(KeyError) as raised:
        seq.phase("rest")
    assert raised.value.args == ("rest",)
    assert seq.next_position(Position(1, "move", "axis")) == Position(1, "fire", "axis")
    assert seq.next_position(Position(1, "fire", "axis")) == Position(1, "move", "allies")
    assert seq.next_position(Position(1, "fire", "allies")) == Position(1, "move", "neutral")
    assert seq.next_position(Position(1, "fire", "neutral")) == Position(2, "move", "axis")
    # a phasing side not in the rotation hands the turn to the first side, same game turn
    assert seq.next_position(Position(3, "fire", None)) == Position(3, "move", "axis")
    # a rotation given by the caller wins over the sequence's own
    given = ("allies", "axis")
    assert seq.next_position(Position(1, "fire", "allies"), given) == Position(1, "move", "axis")
    assert seq.next_position(Position(1, "fire", "axis"), given) == Position(2, "move", "allies")
    bare = SequenceOfPlay(phases=seq.phases, citation=cite)
    assert bare.next_position(Position(1, "fire", "x"), ["a", "b"]) == Position(1, "move", "a")


def test_declared_offer_and_sealed_orders_are_asked_with_the_game_and_coerced_options() -> None:
    """The base hands a ruleset's own ``offer`` and ``sealed`` hooks the board, the state,
    the decision, side, orders and ruling as given and the options coerced to its model; the
    default offer cites the sequence of play of the board asked about."""
    calls: list[tuple[Any, ...]] = []
    decision = SealedDecision("bids", "Bids", ("axis", "allies"), Wait)
    judged = Ruling(legal=False, summary="judged by the ruleset")

    def listing(board: Any, state: Any, options: Any, seat: str) -> AvailableActions:
        calls.append(("offer", board, state, options, seat))
        return AvailableActions(kinds=("wait",))

    def decisions(board: Any, state: Any) -> dict[str, SealedDecision]:
        calls.append(("decisions", board, state))
        return {"bids": decision}

    def judge(*args: Any) -> Ruling:
        calls.append(("judge", *args))
        return judged

    def dice(*args: Any) -> tuple[int, ...]:
        calls.append(("dice", *args))
        return (6, 6)

    def unresolved(*args: Any) -> Ruling:
        raise AssertionError("not resolved here")

    def apply(*args: Any) -> State:
        calls.append(("apply", *args))
        return State(path=("applied",))

    class Offering(Ruleset[Board, State, Any, Options]):
        id = "offering"
        catalog = CAT
        kinds = {"wait": Kind(Wait, _judge, _apply, NoOutcome, owner="anyone")}
        offer = listing
        sealed = Sealed(decisions, judge, dice, unresolved, apply)

    class Sequenced(Ruleset[Board, State, Any, Options]):
        id = "sequenced"
        catalog = CAT
        kinds = {"wait": Kind(Wait, _judge, _apply, NoOutcome, owner="anyone")}

        def sequence_of_play(self, board: Board) -> SequenceOfPlay | None:
            if board.size < 1:  # the board decides whether there is a sequence
                return None
            return SequenceOfPlay(phases=(PhaseSpec("move", "Move"),), citation=CAT.cite("1"))

    board, state, orders = Board(size=4), State(at={"u1": 1}), {"axis": Wait()}
    rs: Any = Offering()  # options given as documents: the base coerces them
    assert rs.available_actions(board, state, {"fast": True}, "allies").kinds == ("wait",)
    assert calls.pop() == ("offer", board, state, Options(fast=True), "allies")
    assert rs.sealed_decisions(board, state) == {"bids": decision}
    assert calls.pop() == ("decisions", board, state)
    assert rs.judge_order(board, state, decision, "axis", Wait(), {"fast": True}) is judged
    assert calls.pop() == ("judge", board, state, decision, "axis", Wait(), Options(fast=True))
    assert rs.sealed_dice_needed(board, state, "bids", orders) == (6, 6)
    assert calls.pop() == ("dice", board, state, "bids", orders)
    assert rs.apply_sealed(board, state, "bids", orders, judged) == State(path=("applied",))
    assert calls.pop() == ("apply", board, state, "bids", orders, judged)
    assert calls == []

    plain: Any = Sequenced()
    assert plain.sealed_decisions(board, state) == {}
    assert plain.sealed_dice_needed(board, state, "bids", orders) == ()
    offered = plain.available_actions(board, state, None, "axis")
    assert offered.kinds == ("wait",) and offered.citations == (CAT.cite("1"),)
    assert plain.available_actions(Board(size=0), state, None, "axis").citations == ()


def test_a_ruleset_declaring_its_text_takes_source_catalog_and_readings_from_it() -> None:
    class Texted(Ruleset[Board, State, Any, Options]):
        id = "texted"
        text = RulesText("A mini source, first edition", CAT, (READING,))
        kinds = {"go": Kind(Go, _judge, _apply, NoOutcome)}

    assert Texted.source == "A mini source, first edition"
    assert Texted.catalog is CAT and Texted.interpretations == (READING,)
    assert Texted.interpretation_by_id == {"mini.reading": READING}


class Side(BaseModel):
    id: str


class Labelled(Side):
    label: str


class SidedBoard(BaseModel):
    sides: list[Side] = []


def test_the_sides_of_a_board_and_the_turn_of_a_sequence_that_names_none() -> None:
    """Sides come from the board (a side without a label is labelled by its id; a board
    without sides has none); a sequence of play that names no sides takes the board's."""

    class Turning(Ruleset[SidedBoard, State, Any, Options]):
        id = "turning"
        catalog = CAT
        kinds = {"wait": Kind(Wait, _judge, _apply, NoOutcome, owner="anyone")}

        def sequence_of_play(self, board: SidedBoard) -> SequenceOfPlay | None:
            return SequenceOfPlay(phases=(PhaseSpec("move", "Move"),), citation=CAT.cite("1"))

        def position(self, board: SidedBoard, state: State) -> Position | None:
            return Position(2, "move", "blue")

    board = SidedBoard(sides=[Side(id="red"), Labelled(id="blue", label="Blue army")])
    rs = Turning()
    assert rs.sides(board) == Sides(("red", "blue"), {"red": "red", "blue": "Blue army"})
    assert rs.sides(SidedBoard()) == Sides((), {})
    mini, _ = _make()
    assert mini().sides(Board()) == Sides((), {})  # a board model with no sides at all
    turn = where(rs, board, State())
    assert turn is not None and turn.sides == ("red", "blue")
    assert turn.position == Position(2, "move", "blue") and turn.phase.id == "move"


def test_an_illegal_ruling_is_never_applied() -> None:
    mini, _ = _make()
    refused = Ruling(legal=False, summary="no")
    with pytest.raises(RulesError) as raised:
        mini().apply(Board(), State(), Go(unit="u1"), refused)
    assert str(raised.value) == "an illegal action cannot be applied"


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    unit_id: str = Field(alias="unit")


def test_a_query_given_another_model_reads_its_fields_by_alias() -> None:
    # parameters given as another model: its dump by alias is what the query's model reads
    mini, _ = _make()
    answer = (
        mini()
        .queries()["where"]
        .run(Board(), State(at={"u7": 3}), Options(), Aliased(unit_id="u7"))
    )
    assert (answer["unit"], answer["at"]) == ("u7", 3)
