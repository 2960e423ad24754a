"""``zoi``'s "what can I do now" (``app/rules/zoi/available.py``) on the shipped example, phase
by phase and seat by seat: exact units, kinds, citations and notes (docs/rulesets/zoi.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import UMPIRE
from app.rules.base import AvailableActions
from app.rules.zoi import ZoiRuleset
from app.rules.zoi.models import ZoiBoard, ZoiState

RS = ZoiRuleset()
FRENCH = ("fr-4-2", "fr-art-1", "fr-cuir-1", "fr-ldr")
AUSTRIAN = ("aus-ir49", "aus-gr1", "aus-h3", "aus-ldr")
LEADERS = ("fr-ldr", "aus-ldr")


def _ask(seat: str, **state: Any) -> AvailableActions:
    example = RS.example_scenario()
    assert example is not None
    options = RS.parse_options({})
    board, initial = RS.setup(RS.parse_scenario(example), options)
    return RS.available_actions(board, initial.model_copy(update=state), options, seat)


def _units(answer: AvailableActions) -> dict[str, tuple[tuple[str, ...], list[str]]]:
    return {u.unit: (u.kinds, [c.section for c in u.citations]) for u in answer.units}


def _sections(answer: AvailableActions) -> list[str]:
    return [c.section for c in answer.citations]


def test_movement_phase_the_phasing_side_moves_each_unit_once() -> None:
    answer = _ask("french", moved=["fr-cuir-1"], eliminated=["fr-ldr"])
    move = (("move",), ["sequence", "movement"])
    assert _units(answer) == {"fr-4-2": move, "fr-art-1": move}
    assert answer.kinds == ("move",)
    assert _sections(answer) == ["sequence", "movement"]
    assert answer.notes == ()


def test_movement_phase_the_other_side_has_nothing() -> None:
    answer = _ask("austrian")
    assert answer.units == () and answer.kinds == ()
    assert _sections(answer) == ["sequence", "movement"]
    assert answer.notes == ("No unit of austrian acts in the movement phase here.",)


def test_the_umpire_sees_the_phasing_side_and_sets_the_phase() -> None:
    answer = _ask(UMPIRE)
    assert list(_units(answer)) == list(FRENCH)
    assert answer.kinds == ("move", "set_phase")
    assert answer.notes == ()


def test_melee_phase_every_combat_unit_of_either_side_may_retreat() -> None:
    """14.melee-retreat: combat formations retreat from a melee; leaders are not offered the
    retreat the ruling refuses them (zoi.not_combat_unit)."""
    retreat = (("melee_retreat",), ["sequence", "14.melee-retreat"])
    answer = _ask("austrian", phase="melee")
    assert _units(answer) == {u: retreat for u in AUSTRIAN if u not in LEADERS}
    assert answer.kinds == ("melee_retreat",)
    assert _sections(answer) == ["sequence", "14.melee-retreat"]
    umpire = _ask(UMPIRE, phase="melee")
    assert list(_units(umpire)) == [u for u in (*FRENCH, *AUSTRIAN) if u not in LEADERS]
    assert umpire.kinds == ("melee_retreat", "set_phase")


def test_a_fire_phase_has_no_action_of_rule_14() -> None:
    answer = _ask("french", phase="defensive_fire")
    assert answer.units == () and answer.kinds == ()
    assert _sections(answer) == ["sequence"]
    assert answer.notes == ("No unit of french acts in the defensive fire phase here.",)
    umpire = _ask(UMPIRE, phase="defensive_fire")
    assert umpire.units == () and umpire.kinds == ("set_phase",) and umpire.notes == ()


# -- offered means legal --------------------------------------------------------------------


def _example() -> tuple[ZoiBoard, ZoiState, Any]:
    example = RS.example_scenario()
    assert example is not None
    options = RS.parse_options({})
    board, initial = RS.setup(RS.parse_scenario(example), options)
    return board, initial, options


def _with_units(state: ZoiState, **changes: dict[str, Any]) -> ZoiState:
    units = [u.model_copy(update=changes[u.id]) if u.id in changes else u for u in state.units]
    return state.model_copy(update={"units": units})


def _neighbours(board: ZoiBoard, hex_id: str) -> list[str]:
    layout = board.layout.layout()
    out = [layout.neighbor(hex_id, d) for d in range(6)]
    return [h for h in out if h is not None and h in board.hexes]


def _witnesses(board: ZoiBoard, state: ZoiState, unit_id: str, kind: str) -> Iterator[Any]:
    """Candidate actions of ``kind`` for the unit, written here and not taken from
    ``available.py``: every one-hex retreat; every one-step move (enter a neighbour, face,
    each formation of the board's facing table, limber, unlimber)."""
    unit = next(u for u in state.units if u.id == unit_id)
    if kind == "melee_retreat":
        for h in _neighbours(board, unit.hex):
            yield RS.parse_action({"kind": kind, "unit": unit_id, "path": [h]})
        return
    steps: list[dict[str, Any]] = [{"do": "enter", "hex": h} for h in _neighbours(board, unit.hex)]
    steps += [{"do": "face", "facing": f} for f in range(6)]
    forms = {key.rpartition(".")[2] for key in board.front_table}
    steps += [{"do": "formation", "formation": f, "facing": unit.facing or 0} for f in forms]
    steps += [{"do": "limber"}, {"do": "unlimber"}]
    for step in steps:
        yield RS.parse_action({"kind": kind, "unit": unit_id, "steps": [step]})


def _legal_kinds(board: ZoiBoard, state: ZoiState, options: Any, unit_id: str) -> set[str]:
    kinds = set()
    for kind in ("move", "melee_retreat"):
        if any(
            RS.adjudicate(board, state, a, options).legal
            for a in _witnesses(board, state, unit_id, kind)
        ):
            kinds.add(kind)
    return kinds


def _offered_are_legal(board: ZoiBoard, state: ZoiState, options: Any) -> None:
    """Every kind offered to a unit has an action the ruling accepts, for every seat; and a
    unit with such an action (of its seat's side) is offered it."""
    for seat in ("french", "austrian", UMPIRE):
        answer = RS.available_actions(board, state, options, seat)
        offered = {u.unit: set(u.kinds) for u in answer.units}
        for unit in state.units:
            if seat != UMPIRE and unit.side != seat:
                assert unit.id not in offered
                continue
            legal = _legal_kinds(board, state, options, unit.id)
            assert offered.get(unit.id, set()) == legal, (seat, unit.id, state.phase)


def test_a_leader_is_offered_moves_but_no_melee_retreat() -> None:
    board, initial, options = _example()
    melee = initial.model_copy(update={"phase": "melee"})
    for seat in ("french", "austrian", UMPIRE):
        offered = {u.unit for u in RS.available_actions(board, melee, options, seat).units}
        assert not offered & set(LEADERS)
    for leader in LEADERS:
        retreat = RS.parse_action({"kind": "melee_retreat", "unit": leader, "path": ["0608"]})
        refused = RS.adjudicate(board, melee, retreat, options)
        assert [v.code for v in refused.violations] == ["zoi.not_combat_unit"]
    moving = {u.unit for u in RS.available_actions(board, initial, options, "french").units}
    assert "fr-ldr" in moving
    _offered_are_legal(board, initial, options)
    _offered_are_legal(board, melee, options)


def test_a_unit_with_no_open_hex_is_offered_no_retreat_and_no_move() -> None:
    """fr-4-2 in 0608 hemmed in: its six neighbours hold Austrians (a retreat may not enter
    an enemy hex, nor a move). In the melee phase it has no retreat; in the movement phase,
    in column facing 0, it may still change facing or formation, so a move stays offered
    until it has no movement points for that either."""
    board, initial, options = _example()
    ring = _neighbours(board, "0608")
    assert len(ring) == 6
    austrians = [u for u in initial.units if u.side == "austrian"]
    extra = [
        austrians[0].model_copy(update={"id": f"aus-ring-{n}", "hex": h})
        for n, h in enumerate(ring[len(austrians) :])
    ]
    placed = [u.model_copy(update={"hex": h}) for u, h in zip(austrians, ring, strict=False)]
    others = [u for u in initial.units if u.side != "austrian" and u.hex not in ring]
    state = initial.model_copy(update={"units": [*others, *placed, *extra]})
    melee = state.model_copy(update={"phase": "melee"})
    offered = {u.unit for u in RS.available_actions(board, melee, options, "french").units}
    assert "fr-4-2" not in offered and "fr-cuir-1" in offered
    _offered_are_legal(board, melee, options)
    moving = {u.unit for u in RS.available_actions(board, state, options, "french").units}
    assert "fr-4-2" in moving
    _offered_are_legal(board, state, options)
    stuck = _with_units(state, **{"fr-4-2": {"ma": 0}})
    moving = {u.unit for u in RS.available_actions(board, stuck, options, "french").units}
    assert "fr-4-2" not in moving
    _offered_are_legal(board, stuck, options)


def test_a_unit_without_movement_points_is_offered_no_move() -> None:
    """A scenario may give a unit ``ma: 0``: every step costs points, so no move is legal and
    none is offered (movement)."""
    board, initial, options = _example()
    state = _with_units(initial, **{"fr-art-1": {"ma": 0}, "fr-ldr": {"ma": 0}})
    offered = {u.unit for u in RS.available_actions(board, state, options, "french").units}
    assert offered == {"fr-4-2", "fr-cuir-1"}
    _offered_are_legal(board, state, options)


def test_after_a_melee_retreat_the_offers_stay_legal() -> None:
    """A unit that retreated from a melee (and lost increments on the way) is still offered
    only what the ruling accepts; one that was eliminated is offered nothing."""
    board, initial, options = _example()
    melee = initial.model_copy(update={"phase": "melee"})
    retreat = RS.parse_action({"kind": "melee_retreat", "unit": "aus-ir49", "path": ["0605"]})
    ruling = RS.adjudicate(board, melee, retreat, options)
    assert ruling.legal, ruling.summary
    after = RS.apply(board, melee, retreat, ruling)
    _offered_are_legal(board, after, options)
    dying = _with_units(melee, **{"fr-cuir-1": {"increments": 0}})
    gone = RS.parse_action({"kind": "melee_retreat", "unit": "fr-cuir-1", "path": ["0907"]})
    ruling = RS.adjudicate(board, dying, gone, options)
    assert ruling.legal and ruling.details["eliminated"], ruling.summary
    after = RS.apply(board, dying, gone, ruling)
    assert "fr-cuir-1" in after.eliminated
    answer = RS.available_actions(board, after, options, UMPIRE)
    assert "fr-cuir-1" not in {u.unit for u in answer.units}
    _offered_are_legal(board, after, options)


_BOARD, _INITIAL, _OPTIONS = _example()
_HEXES = sorted(_BOARD.hexes)
_PHASES = ("movement", "melee", "charges", "defensive_fire")


@st.composite
def _positions(draw: st.DrawFn) -> ZoiState:
    """A position of the shipped scenario: the units on distinct hexes (so enemies next to
    each other, as after a melee), facings, artillery limbered or not, a phase, the phasing
    side, the units that have moved, fewer movement points."""
    units = _INITIAL.units
    hexes = draw(
        st.lists(st.sampled_from(_HEXES), min_size=len(units), max_size=len(units), unique=True)
    )
    new = []
    for unit, h in zip(units, hexes, strict=True):
        update: dict[str, Any] = {"hex": h}
        if unit.facing is not None:
            update["facing"] = draw(st.integers(0, 5))
        if unit.type == "artillery":
            update["formation"] = draw(st.sampled_from(["limbered", "unlimbered"]))
        if draw(st.booleans()):
            update["ma"] = draw(st.integers(0, 3))
        new.append(unit.model_copy(update=update))
    moved = [u.id for u in units if draw(st.booleans())]
    return _INITIAL.model_copy(
        update={
            "units": new,
            "phase": draw(st.sampled_from(_PHASES)),
            "phasing": draw(st.sampled_from(["french", "austrian"])),
            "moved": moved,
            "phase_start": {u.id: u.hex for u in new},
        }
    )


@settings(max_examples=25)
@given(_positions())
def test_every_offered_action_is_judged_legal(state: ZoiState) -> None:
    """Property over positions of the shipped scenario: leaders, artillery (limbered or not),
    cavalry and infantry next to enemies, in every kind of phase -- whatever ``available``
    offers, the ruling accepts some action of that kind, and nothing the ruling would accept
    is left out."""
    _offered_are_legal(_BOARD, state, _OPTIONS)


def test_a_hemmed_in_carre_is_offered_the_move_out_of_carre() -> None:
    """fr-4-2 in carré (no facing) in 0608, its six neighbours held by Austrians: it may not
    enter a hex, nor face (a carré has no facing), but it may form another formation, which
    needs a facing (the first step given one, 0): a move is offered, and the ruling accepts it."""
    board, initial, options = _example()
    ring = _neighbours(board, "0608")
    austrians = [u for u in initial.units if u.side == "austrian"]
    extra = [
        austrians[0].model_copy(update={"id": f"aus-ring-{n}", "hex": h})
        for n, h in enumerate(ring[len(austrians) :])
    ]
    placed = [u.model_copy(update={"hex": h}) for u, h in zip(austrians, ring, strict=False)]
    others = [u for u in initial.units if u.side != "austrian" and u.hex not in ring]
    state = initial.model_copy(update={"units": [*others, *placed, *extra]})
    state = _with_units(state, **{"fr-4-2": {"formation": "carre", "facing": None}})
    moving = {u.unit for u in RS.available_actions(board, state, options, "french").units}
    assert "fr-4-2" in moving
    out = RS.parse_action(
        {
            "kind": "move",
            "unit": "fr-4-2",
            "steps": [{"do": "formation", "formation": "column", "facing": 0}],
        }
    )
    assert RS.adjudicate(board, state, out, options).legal
    _offered_are_legal(board, state, options)
