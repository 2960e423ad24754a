"""The kit checks a kind's phase before its judge, in one order (issue 25): the names the
action gets wrong (``Kind.names``), then the phase (``phases.out_of_phase``), with what forbids
the action whatever the phase (``Kind.despite_phase``) placed as the kind declares -- and no
judge of a ruleset package checks the phase itself. Tested on a small ruleset made here and on
the sources of the built-in packages."""

from __future__ import annotations

import ast
import inspect
import textwrap
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from app.rules import registry
from app.rules.base import PhaseSpec, Position, Ruleset, SequenceOfPlay
from app.rules.catalog import Catalog, RuleSection
from app.rules.dispatch import Kind, NoOutcome
from app.rules.judgement import GameJudgement, Problem
from app.rules.phases import PhaseRule, allowed_phases
from app.rules.ruling import Ruling
from tests.rules.battlefield.test_bf_destroyed import _game
from tests.rules.rule_cases import _setup, load_cases

CAT = Catalog(
    "kit",
    [
        RuleSection(id="seq", title="Sequence", summary="Each kind has its phase."),
        RuleSection(id="names", title="Names", summary="Units exist."),
        RuleSection(id="ban", title="Ban", summary="Some acts are never allowed."),
        RuleSection(id="move", title="Moving", summary="Units move."),
    ],
)
PHASES = (
    PhaseSpec(
        "march", "March", kinds=("go", "bare_go", "ban_go", "first_go", "part_go", "loose_go")
    ),
    PhaseSpec("fight", "Fight", kinds=("note",)),
)
RULE = PhaseRule("kit.wrong_phase", ("seq",), sequence_only=("loose_go",))


class Board(BaseModel):
    pass


class State(BaseModel):
    phase: str = "march"
    units: tuple[str, ...] = ("u1",)


class Options(BaseModel):
    pass


class Go(BaseModel):
    kind: Literal["go", "bare_go", "ban_go", "first_go", "part_go", "loose_go"] = "go"
    unit: str = "u1"


def _judge(ctx: GameJudgement[Board, State, Options], action: Go) -> Ruling:
    ctx.cite("move")
    return ctx.finish(f"{action.unit} goes ({action.kind}).")


def _apply(board: Board, state: State, action: Go, outcome: NoOutcome) -> State:
    return state


def _names(ctx: GameJudgement[Board, State, Options], action: Go) -> Problem | None:
    if action.unit in ctx.state.units:
        return None
    return Problem("kit.unknown_unit", f"No unit {action.unit}.", ["names"], unit=action.unit)


def _bans(ctx: GameJudgement[Board, State, Options], action: Go) -> list[Problem]:
    return [
        Problem("kit.ban_one", "Banned once.", ["ban"], unit=action.unit),
        Problem("kit.ban_two", "Banned twice.", ["ban"], unit=action.unit),
    ]


def _kind(name: str, **facts: Any) -> Kind[Any, Board, State, Go, NoOutcome]:
    model = type(f"Go_{name}", (Go,), {"__annotations__": {"kind": Literal[name]}, "kind": name})
    return Kind(model, _judge, _apply, NoOutcome, **facts)


def _ruleset(
    rule: PhaseRule | None = RULE, refusal: Any = None
) -> Ruleset[Board, State, Any, Options]:
    class Kit(Ruleset[Board, State, Any, Options]):
        id = "kit"
        catalog = CAT
        phase_rule = rule
        kinds = {
            "go": _kind("go", names=_names),
            "bare_go": _kind("bare_go"),
            "ban_go": _kind("ban_go", names=_names, despite_phase=_bans),
            "first_go": _kind("first_go", names=_names, despite_phase=_bans, despite_first=True),
            "part_go": _kind("part_go", names=_names, phase_of_part=True),
            "loose_go": _kind("loose_go", names=_names),
        }

        def sequence_of_play(self, board: Board) -> SequenceOfPlay:
            return SequenceOfPlay(PHASES, CAT.cite("seq"), ("a", "b"))

        def position(self, board: Board, state: State) -> Position:
            return Position(turn=1, phase=state.phase, phasing_side="a")

    Kit.refusal = refusal
    return Kit()


def _judged(ruleset: Ruleset[Any, Any, Any, Any], kind: str, unit: str, phase: str) -> Ruling:
    action = ruleset.parse_action({"kind": kind, "unit": unit})
    return ruleset.adjudicate(Board(), State(phase=phase), action, Options())


def _codes(ruling: Ruling) -> list[str]:
    return [v.code for v in ruling.violations]


def test_in_its_phase_the_judge_rules_even_on_a_name_it_gets_wrong_first() -> None:
    kit = _ruleset()
    done = _judged(kit, "go", "u1", "march")
    assert done.legal and done.summary == "u1 goes (go)."
    assert [c.section for c in done.citations] == ["move"]
    # the names are the judge's own rules too: in the phase the kit leaves them to it
    assert _judged(kit, "ban_go", "ghost", "march").legal


def test_out_of_its_phase_a_wrong_name_is_refused_first_and_alone() -> None:
    done = _judged(_ruleset(), "ban_go", "ghost", "fight")
    assert _codes(done) == ["kit.unknown_unit"]
    assert done.summary == "No unit ghost."
    assert [c.section for c in done.citations] == ["names"]


def test_out_of_its_phase_the_phase_is_refused_with_every_reason_in_the_declared_order() -> None:
    kit = _ruleset()
    plain = _judged(kit, "go", "u1", "fight")
    assert _codes(plain) == ["kit.wrong_phase"]
    (v,) = plain.violations
    assert v.message == "A go belongs to the march phase, not fight."
    assert v.unit is None and v.details == {"phase": "fight", "allowed": ["march"]}
    assert _codes(_judged(kit, "bare_go", "ghost", "fight")) == ["kit.wrong_phase"]  # no names
    after = _judged(kit, "ban_go", "u1", "fight")
    assert _codes(after) == ["kit.wrong_phase", "kit.ban_one", "kit.ban_two"]
    assert [c.section for c in after.citations] == ["seq", "ban"]
    assert after.summary == "A ban_go belongs to the march phase, not fight."
    before = _judged(kit, "first_go", "u1", "fight")
    assert _codes(before) == ["kit.ban_one", "kit.ban_two", "kit.wrong_phase"]
    assert [c.section for c in before.citations] == ["ban", "seq"]
    assert before.summary == "Banned once."


def test_a_rule_that_names_the_unit_names_the_actions_unit() -> None:
    named = PhaseRule("kit.wrong_phase", ("seq",), unit=True)
    (v,) = _judged(_ruleset(named), "go", "u1", "fight").violations
    assert (v.code, v.unit) == ("kit.wrong_phase", "u1")


def test_the_kit_leaves_the_phase_to_a_part_to_the_sequence_or_to_a_ruleset_without_a_rule() -> (
    None
):
    kit = _ruleset()
    assert _judged(kit, "part_go", "u1", "fight").legal  # phase_of_part: the part's judge
    assert _judged(kit, "loose_go", "u1", "fight").legal  # sequence_only: play.step's
    assert _judged(_ruleset(None), "go", "u1", "fight").legal  # no phase rule at all


def test_a_ruleset_words_the_kits_refusal_as_its_judges_do() -> None:
    def joined(ctx: GameJudgement[Board, State, Options], problems: list[Problem]) -> Ruling:
        for p in problems:
            ctx.reject_problem(p)
        return ctx.finish("")

    done = _judged(_ruleset(refusal=joined), "ban_go", "u1", "fight")
    assert done.summary == (
        "A ban_go belongs to the march phase, not fight.; Banned once.; Banned twice."
    )
    assert _codes(done) == ["kit.wrong_phase", "kit.ban_one", "kit.ban_two"]


def test_an_action_the_kit_refuses_before_its_judge_rolls_no_dice() -> None:
    """As when the judges checked the phase: an engaged melee's round (the zone part's dice)
    and a move's broken-wheel check (A.46) are not rolled out of their phase."""
    [case] = [
        c for c in load_cases("battlefield") if c.name == "engaged-melee-in-the-village-goes-on"
    ]
    rs, _, board, state = _setup(case)
    melee = rs.parse_action(case.data["action"])
    assert list(rs.dice_needed(board, state, melee))  # in its phase: the round's d10s
    assert list(rs.dice_needed(board, _in_phase(state, "movement"), melee)) == []
    board, state = _game()  # the Union's movement phase, rocks on the battery's way
    into = rs.parse_action({"kind": "move", "unit": "us-bty", "path": [[660, 200]]})
    assert list(rs.dice_needed(board, state, into)) == [10]
    assert list(rs.dice_needed(board, _in_phase(state, "initial_fire"), into)) == []


def _in_phase(state: Any, phase: str) -> Any:
    return state.model_copy(update={"zones": state.zones.model_copy(update={"phase": phase})})


# -- the built-in packages: no judge checks the phase ----------------------------------------

PACKAGES = [name.rpartition(".")[2] for name in registry.builtin_packages()]

PHASE_NAMES = frozenset({"out_of_phase", "is_open", "open_kinds", "allows", "allowed_phases"})
"""What :mod:`app.rules.phases` answers about a kind's phase."""


def _declares_the_phase_rule(tree: ast.Module) -> bool:
    """Whether a module declares its package's ``PHASE_RULE`` (its sequence declaration)."""
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == "PHASE_RULE" for t in targets):
            return True
    return False


def _uses_out_of_phase(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "out_of_phase" for a in node.names):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "out_of_phase":
            return True
    return False


@pytest.mark.parametrize("package", PACKAGES)
def test_only_a_packages_sequence_declaration_words_a_phase_refusal(package: str) -> None:
    """The kit refuses a kind out of its phase before the judge: no module of a ruleset
    package calls ``out_of_phase`` but the one declaring its ``PHASE_RULE``."""
    root = Path(str(resources.files(f"app.rules.{package}")))
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if _uses_out_of_phase(tree):
            assert _declares_the_phase_rule(tree), f"{package}/{path.name} uses out_of_phase"


def _judges() -> list[tuple[str, str, Any]]:
    found = []
    for ruleset in registry.all_rulesets():
        for name, kind in ruleset.kinds.items():
            found.append((ruleset.id, name, kind.judge))
    return found


@pytest.mark.parametrize(("ruleset_id", "kind", "judge"), _judges())
def test_no_judge_asks_which_phase_allows_its_kind(ruleset_id: str, kind: str, judge: Any) -> None:
    tree = ast.parse(textwrap.dedent(inspect.getsource(judge)))
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not used & (PHASE_NAMES | {"PHASES", "PHASE_RULE"}), (ruleset_id, kind)


def _confined(ruleset: Ruleset[Any, Any, Any, Any]) -> set[str]:
    """The kinds some phase of the ruleset's example does not allow."""
    options = ruleset.parse_options({})
    scenario = ruleset.example_scenario()
    assert scenario is not None
    board, _ = ruleset.setup(ruleset.parse_scenario(scenario), options)
    sequence = ruleset.sequence_of_play(board)
    assert sequence is not None
    everywhere = {p.id for p in sequence.phases}
    return {k for k in ruleset.kinds if set(allowed_phases(sequence.phases, k)) != everywhere}


@pytest.mark.parametrize("ruleset_id", ["battlefield", "objective-zones", "zoc", "zoi"])
def test_every_kind_the_kit_confines_declares_what_its_rules_check_first(ruleset_id: str) -> None:
    """A kind confined to some phases whose phase the kit checks declares the names its rules
    check before the phase (``Kind.names``): else the kit would cite the phase first."""
    ruleset = registry.get(ruleset_id)
    rule = ruleset.phase_rule
    assert rule is not None
    kinds = ruleset.kinds
    checked = {k for k in _confined(ruleset) if rule.rules_on(k) and not kinds[k].phase_of_part}
    assert checked
    assert sorted(k for k in checked if kinds[k].names is None) == []


# -- every built-in kind the kit confines: a wrong name comes before the phase ---------------


def _ghostly(ruleset_id: str) -> list[tuple[str, str, str]]:
    """(case, kind, field) for every confined kind the kit checks: a rule case of the kind and
    each name field of its action (the unit, a target, a zone)."""
    ruleset = registry.get(ruleset_id)
    rule = ruleset.phase_rule
    assert rule is not None
    wanted = {
        k for k in _confined(ruleset) if rule.rules_on(k) and not ruleset.kinds[k].phase_of_part
    }
    found: dict[tuple[str, str], str] = {}
    for case in load_cases(ruleset_id):
        action = case.data.get("action") or {}
        kind = action.get("kind")
        if kind not in wanted or case.data.get("setup_error"):
            continue
        for name in ("unit", "units", "zone", "target"):
            if name in action and isinstance(action[name], (str, list)):
                found.setdefault((kind, name), case.name)
    return [(case, kind, name) for (kind, name), case in sorted(found.items())]


GHOSTS = [
    (rid, *found)
    for rid in ("battlefield", "objective-zones", "zoc", "zoi")
    for found in _ghostly(rid)
]


def _out_of_phase(ruleset: Ruleset[Any, Any, Any, Any], board: Any, state: Any, kind: str) -> Any:
    """The state in the first phase that does not allow ``kind``."""
    sequence = ruleset.sequence_of_play(board)
    assert sequence is not None
    phase = next(p.id for p in sequence.phases if p.id not in allowed_phases(sequence.phases, kind))
    if hasattr(state, "zones"):  # battlefield: the zone part keeps the phase
        return _in_phase(state, phase)
    return state.model_copy(update={"phase": phase})


@pytest.mark.parametrize(("ruleset_id", "case_name", "kind", "field"), GHOSTS)
def test_out_of_its_phase_a_kind_naming_nothing_is_refused_for_the_name_alone(
    ruleset_id: str, case_name: str, kind: str, field: str
) -> None:
    [case] = [c for c in load_cases(ruleset_id) if c.name == case_name]
    rs, options, board, state = _setup(case)
    doc = dict(case.data["action"])
    doc[field] = ["ghost", *doc[field][1:]] if isinstance(doc[field], list) else "ghost"
    action = rs.parse_action(doc)
    ruling = rs.adjudicate(board, _out_of_phase(rs, board, state, kind), action, options)
    codes = [v.code for v in ruling.violations]
    assert len(codes) == 1 and codes[0].endswith(("unknown_unit", "unknown_zone", "bad_support"))


class LongBoard(BaseModel):
    """A board whose sequence of play allows ``go`` in the Fight phase too."""

    long: bool = True


def test_the_phases_kept_for_the_last_board_are_that_boards() -> None:
    class ByBoard(Ruleset[Any, State, Any, Options]):
        id = "kit-by-board"
        catalog = CAT
        phase_rule = RULE
        kinds = {"go": _kind("go", names=_names)}

        def sequence_of_play(self, board: Any) -> SequenceOfPlay:
            if isinstance(board, LongBoard):
                fight = PhaseSpec("fight", "Fight", kinds=("note", "go"))
                return SequenceOfPlay((PHASES[0], fight), CAT.cite("seq"), ("a",))
            return SequenceOfPlay(PHASES, CAT.cite("seq"), ("a",))

        def position(self, board: Any, state: State) -> Position:
            return Position(turn=1, phase=state.phase, phasing_side="a")

    kit = ByBoard()
    action = kit.parse_action({"kind": "go", "unit": "u1"})
    short, long = Board(), LongBoard()
    fight = State(phase="fight")
    for board, legal in ((short, False), (long, True), (long, True), (short, False)):
        ruling = kit.adjudicate(board, fight, action, Options())
        assert ruling.legal is legal, type(board).__name__
        assert _codes(ruling) == ([] if legal else ["kit.wrong_phase"])
    # two boards equal by value are still two boards: each is asked for its own sequence
    assert kit.adjudicate(LongBoard(), fight, action, Options()).legal
    assert not kit.adjudicate(Board(), fight, action, Options()).legal


def test_a_phase_rule_without_a_sequence_of_play_leaves_the_kind_to_its_judge() -> None:
    class NoSequence(Ruleset[Board, State, Any, Options]):
        id = "kit-no-sequence"
        catalog = CAT
        phase_rule = RULE
        kinds = {"go": _kind("go", names=_names)}

    kit = NoSequence()
    action = kit.parse_action({"kind": "go", "unit": "ghost"})
    for _ in range(2):  # asked again: the board's missing sequence is kept as missing
        ruling = kit.adjudicate(Board(), State(phase="fight"), action, Options())
        assert ruling.legal and ruling.summary == "ghost goes (go)."
