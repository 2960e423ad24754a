"""The one-label search of ``reachable`` (``search._one_label_hexes``, a Dijkstra search with one
entry per hex) answers byte for byte as the Pareto label search (``search.reachable_labels``
and ``search.answer``, kept as the general search and the reference) for every unit it takes:
leaders, and foot units that take no hex next to an enemy carré and do not begin in a zone
they may shift within. It must take exactly those units (a search that never answers would pass a
comparison alone), and a position it takes wrongly -- an enemy carré whose fire the labels
would count, a unit able to shift within a zone -- must fall to the label search.

Generated games of ``test_search.py`` under every reading, with the enemy carrés kept or
formed into line, units marked as having entered their hex this phase (a foot unit that moved
into a zone may not leave it), and the carrés' count handed on by moves
(``test_zoi_index_handoff.py`` compares it with a fresh index's)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from app.rules.zoi import search
from app.rules.zoi.models import Unit, ZoiBoard, ZoiOptions, ZoiState
from app.rules.zoi.zones import Game, is_combat, is_foot
from tests.rules.zoi.test_search import READINGS, RS, _game
from tests.support.props import examples


def _position(
    seed: int,
    size: int,
    count: int,
    carres: bool,
    entered: float,
    reading: int,
    free_town: bool = False,
) -> tuple[ZoiBoard, ZoiState, ZoiOptions]:
    """A generated game; without ``carres`` every carré formed into line (facing north);
    each unit marked, with chance ``entered``, as having entered its hex this phase; with
    ``free_town`` a town costs no movement points to enter (steps of 0: labels queued at the
    movement points being taken)."""
    scenario = _game(seed, size, count)
    if free_town:
        scenario["terrain_costs"] = {"town": {"infantry": 0, "cavalry": 0, "artillery": 0}}
    if not carres:
        for unit in scenario["units"]:
            if unit.get("formation") == "carre":
                unit["formation"], unit["facing"] = "line", 0
    options = RS.parse_options(READINGS[reading])
    board, state = RS.setup(RS.parse_scenario(scenario), options)
    assert isinstance(board, ZoiBoard) and isinstance(state, ZoiState)
    assert isinstance(options, ZoiOptions)
    rng = random.Random(seed * 7 + reading)
    came = {u.id: "0101" if u.hex != "0101" else "0202" for u in state.units}
    marked = {uid: h for uid, h in came.items() if rng.random() < entered}
    return board, state.model_copy(update={"phase_start": marked}), options


def _takes(game: Game, unit: Unit) -> bool:
    """Whether the one-label search should answer for ``unit`` (its docstring's conditions;
    the hexes it takes are those the label search expands: the start and each hex with a
    label that does not stop there, movement points left or not)."""
    if unit.type == "artillery" and unit.formation == "unlimbered":
        return True
    if not is_combat(unit):
        return True
    if not is_foot(unit):
        return False
    look = search._Lookups(game, unit)
    if look.zone(unit.hex) is not None:
        if game.state.phase_start.get(unit.id, unit.hex) != unit.hex:
            return True  # may not leave: no hex reached
        if game.options.shift_within_zone != "stop":
            return False
    labels = search.reachable_labels(game, unit)
    taken = {unit.hex} | {h for h, found in labels.items() if any(not w[3] for w in found)}
    return not any(look.carres(h) for h in taken)


def _compare(board: ZoiBoard, state: ZoiState, options: ZoiOptions) -> tuple[int, int]:
    """Every unit's answer by both searches; (units taken, paths compared)."""
    game = Game(board, state, options)
    taken = paths = 0
    for unit in state.units:
        one = search._one_label_hexes(game, unit)
        assert (one is not None) == _takes(game, unit), unit
        if one is None:
            continue
        labels = search.reachable_labels(game, unit)
        assert all(len(found) == 1 for found in labels.values()), unit
        assert json.dumps(one) == json.dumps(search.answer(labels, unit.ma)), unit
        taken += 1
        paths += len(one)
    return taken, paths


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 100_000),
    st.sampled_from([(6, 10), (8, 12), (8, 20), (10, 30)]),
    st.booleans(),
    st.sampled_from([0.0, 0.3]),
    st.sampled_from(range(len(READINGS))),
    st.booleans(),
)
def test_one_label_search_answers_as_the_label_search(
    seed: int,
    size_count: tuple[int, int],
    carres: bool,
    entered: float,
    reading: int,
    free_town: bool,
) -> None:
    board, state, options = _position(seed, *size_count, carres, entered, reading, free_town)
    taken, _ = _compare(board, state, options)
    event(f"units taken: {min(taken, 5)}+" if taken >= 5 else f"units taken: {taken}")


@pytest.mark.parametrize("reading", range(len(READINGS)))
def test_one_label_search_on_fixed_games(reading: int) -> None:
    """Forty fixed games per reading (a town free to enter in one in five): both searches
    alike on each unit taken, and enough units and paths taken that the comparison means
    something."""
    taken = paths = 0
    for seed in range(40):
        size, count = ((6, 10), (8, 12), (8, 20), (10, 30))[seed % 4]
        position = _position(
            seed, size, count, seed % 3 != 0, 0.2 * (seed % 2), reading, seed % 5 == 0
        )
        t, p = _compare(*position)
        taken, paths = taken + t, paths + p
    assert taken >= 200 and paths >= 2000, (taken, paths)


def _open_game(units: list[dict[str, Any]], **reading: Any) -> tuple[Any, Any, Any]:
    scenario = {
        "ruleset": "zoi",
        "name": "open",
        "map": {"columns": [1, 8], "rows": [1, 8], "default_terrain": "clear"},
        "sides": [{"id": "french", "label": "F"}, {"id": "austrian", "label": "A"}],
        "units": [
            {"type": "infantry", "subtype": "line", "increments": 4, "ma": 4, **u} for u in units
        ],
        "turn": 1,
        "phase": "movement",
        "phasing": "french",
    }
    options = RS.parse_options(reading)
    board, state = RS.setup(RS.parse_scenario(scenario), options)
    return board, state, options


def test_an_enemy_carre_next_to_a_hex_taken_leaves_the_unit_to_the_label_search() -> None:
    """A French column with an Austrian carré two hexes off: leaving a hex next to the carré
    gives a fire chance (14.carre), so labels reaching a hex can differ in chances and the
    one-label search must not answer, even with one movement point left to the column (the
    hex it enters is next to the carré: the search gives up at any hex it takes there, points
    left or not). It answers with the carré in line instead, and with a French carré (not an
    enemy)."""
    mover = {"id": "fr", "side": "french", "hex": "0404", "formation": "column", "facing": 0}
    carre = {"id": "au", "side": "austrian", "hex": "0406", "formation": "carre"}
    own = {"id": "fr-c", "side": "french", "hex": "0707", "formation": "carre"}
    cases: list[tuple[list[dict[str, Any]], bool]] = [
        ([mover, carre], False),
        ([mover, {**carre, "formation": "line", "facing": 3}], True),
        ([mover, own], True),
        ([{**mover, "ma": 1}, carre], False),
    ]
    for units, taken in cases:
        board, state, options = _open_game(units)
        game = Game(board, state, options)
        unit = state.units[0]
        one = search._one_label_hexes(game, unit)
        assert (one is not None) is taken, units
        whole = search.answer(search.reachable_labels(game, unit), unit.ma)
        assert search.reachable_hexes(game, unit) == whole
        if taken:
            assert one == whole
        elif unit.ma > 1:  # the carré's fire makes a hex's paths differ in chances
            assert any(len(h["paths"]) > 1 for h in whole)
