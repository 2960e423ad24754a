"""The ``reachable`` search (``app/rules/zoi/search.py``) answers exactly what walking every path
with the move judge's own :class:`Walk` answers: the same hexes, the same Pareto-best paths in
the same order, the same fire chances, on generated games under every reading that changes a
move (the reference below is the search as it was before it was made fast)."""

from __future__ import annotations

import heapq
import json
import random
from typing import Any

import pytest

from app.rules import registry
from app.rules.zoi.models import EnterStep, ZoiBoard, ZoiOptions, ZoiState
from app.rules.zoi.movement import OPPORTUNITY_FIRE, Walk
from app.rules.zoi.zones import Game

RS = registry.get("zoi")

KINDS: tuple[tuple[str, str | None, tuple[str | None, ...]], ...] = (
    ("infantry", "line", ("column", "line", "carre", "skirmish", "routed", "road_march")),
    ("infantry", "light", ("column", "line", "skirmish")),
    ("cavalry", "heavy", ("column", "line", "routed")),
    ("cavalry", "light", ("column", "general_order")),
    ("artillery", "foot", ("limbered", "unlimbered", "road_march")),
    ("artillery", "horse", ("limbered", "unlimbered")),
    ("leader", None, (None,)),
)
TERRAIN = ("clear", "clear", "clear", "woods", "rough", "town", "marsh")
READINGS: tuple[dict[str, Any], ...] = (
    {},
    {
        "entering_counts_as_expenditure": True,
        "routed_units_exert_zone": False,
        "mixed_zone_stops_cavalry": "cavalry_only",
        "exit_cost_counts_in_departed_hex": True,
        "shift_within_zone": "slide",
        "carre_fire_only_after_moving_adjacent": True,
    },
    {"shift_within_zone": "slide_no_exit"},
    {"shift_within_zone": "slide"},
)


def _game(seed: int, size: int = 8, count: int = 12) -> dict[str, Any]:
    rng = random.Random(seed)
    terrain = {
        f"{c:02d}{r:02d}": t
        for c in range(1, size + 1)
        for r in range(1, size + 1)
        if (t := rng.choice(TERRAIN)) != "clear"
    }
    cells = rng.sample([(c, r) for c in range(1, size + 1) for r in range(1, size + 1)], count)
    units = []
    for i, (c, r) in enumerate(cells):
        kind, subtype, formations = rng.choice(KINDS)
        unit: dict[str, Any] = {
            "id": f"u{i}",
            "side": ("french", "austrian")[i % 2],
            "type": kind,
            "hex": f"{c:02d}{r:02d}",
            "increments": 4,
            "ma": rng.randint(3, 9),
        }
        if subtype:
            unit["subtype"] = subtype
        formation = rng.choice(formations)
        if formation is not None:
            unit["formation"] = formation
            if formation != "carre":
                unit["facing"] = rng.randrange(6)
        units.append(unit)
    return {
        "ruleset": "zoi",
        "name": f"generated {seed}",
        "map": {
            "layout": {"col_digits": 2, "row_digits": 2},
            "columns": [1, size],
            "rows": [1, size],
            "default_terrain": "clear",
            "terrain": terrain,
        },
        "sides": [{"id": "french", "label": "F"}, {"id": "austrian", "label": "A"}],
        "units": units,
        "turn": 1,
        "phase": "movement",
        "phasing": "french",
    }


def _dominates(a: Walk, b: Walk) -> bool:
    return (
        a.mp_spent <= b.mp_spent
        and a.chances <= b.chances
        and (not a.stopped or b.stopped)
        and (a.slid_only or not b.slid_only)
    )


def _reference(game: Game, unit_id: str) -> list[dict[str, Any]]:
    """Every path walked step by step with :class:`Walk`, Pareto labels per hex."""
    start = Walk.start(game, game.units[unit_id])
    labels: dict[str, list[Walk]] = {}
    counter = 0
    heap: list[tuple[int, int, int, Walk]] = [(0, 0, counter, start)]
    while heap:
        walk = heapq.heappop(heap)[3]
        if walk.stopped:
            continue
        for _, n in game.adjacent_on_map(walk.hex):
            if n in walk.path:
                continue
            nxt = walk.fork()
            if nxt.advance(nxt.entered, EnterStep(do="enter", hex=n)):
                continue
            here = labels.setdefault(n, [])
            if any(_dominates(old, nxt) for old in here):
                continue
            here[:] = [old for old in here if not _dominates(nxt, old)]
            here.append(nxt)
            counter += 1
            heapq.heappush(heap, (nxt.mp_spent, nxt.chances, counter, nxt))
    return [
        {
            "hex": h,
            "paths": [
                {
                    "path": w.path[1:],
                    "mp_spent": w.mp_spent,
                    "mp_left": w.mp_left,
                    "must_stop": w.stopped,
                    "opportunity_fire": [
                        {
                            "hex": e.hex,
                            "step": e.step,
                            "by": list(e.by),
                            "reason": e.details["reason"],
                        }
                        for e in w.effects
                        if e.kind == OPPORTUNITY_FIRE
                    ],
                }
                for w in sorted(labels[h], key=lambda w: (w.mp_spent, w.chances, w.path))
            ],
        }
        for h in sorted(labels)
    ]


@pytest.mark.parametrize("seed", range(5))
def test_search_answers_as_walking_every_path(seed: int) -> None:
    """One state queried under every reading (the search keeps lookups per state and side:
    a reading that changes a zone must not be answered from another reading's lookups)."""
    scenario = _game(seed)
    board, state = RS.setup(RS.parse_scenario(scenario), RS.parse_options({}))
    assert isinstance(board, ZoiBoard) and isinstance(state, ZoiState)
    query = RS.queries()["reachable"]
    reached = 0
    for reading in READINGS:
        options = RS.parse_options(reading)
        assert isinstance(options, ZoiOptions)
        for unit in scenario["units"]:
            fast = query.run(board, state, options, {"unit": unit["id"]})["hexes"]
            slow = _reference(Game(board, state, options), unit["id"])
            assert json.dumps(fast) == json.dumps(slow), (seed, reading, unit["id"])
            reached += len(fast)
    assert reached > 0


@pytest.mark.parametrize("seed", range(4))
def test_search_answers_as_walking_every_path_with_free_steps(seed: int) -> None:
    """A town free to enter (steps of 0 movement points, which queue a label where labels are
    being taken from): the same answers as walking every path, under every reading, on a
    board crowded enough that cavalry and foot units near carrés take the label search."""
    scenario = _game(seed, 8, 20)
    scenario["terrain_costs"] = {"town": {"infantry": 0, "cavalry": 0, "artillery": 0}}
    board, state = RS.setup(RS.parse_scenario(scenario), RS.parse_options({}))
    query = RS.queries()["reachable"]
    free = 0
    for reading in READINGS:
        options = RS.parse_options(reading)
        for unit in scenario["units"]:
            fast = query.run(board, state, options, {"unit": unit["id"]})["hexes"]
            slow = _reference(Game(board, state, options), unit["id"])
            assert json.dumps(fast) == json.dumps(slow), (seed, reading, unit["id"])
            free += sum(
                1
                for h in fast
                for p in h["paths"]
                if any(board.hexes[x] == "town" for x in p["path"])
            )
    assert free > 0


def test_a_zone_hex_is_found_from_its_neighbours_as_from_every_unit() -> None:
    """The per-hex zone lookup of the search and the whole-map zone of the game agree."""
    from app.rules.zoi.search import _Lookups

    for seed in range(6):
        scenario = _game(seed)
        options = RS.parse_options({})
        board, state = RS.setup(RS.parse_scenario(scenario), options)
        game = Game(board, state, options)
        for unit in game.state.units:
            look = _Lookups(game, unit)
            for h in board.hexes:
                zone = look.zone(h)
                expected = sorted({s.unit for s in game.enemy_zone(h, unit.side)})
                assert (list(zone.by) if zone else []) == expected


@pytest.mark.parametrize("routed", [True, False])
def test_the_steps_out_of_a_hex_are_found_neighbour_by_neighbour(routed: bool) -> None:
    """The steps out of each hex of a freshly parsed state -- the board's terrain steps for
    the unit's class (``BoardSteps``) less the hexes enemy units hold, a neighbour with no
    unit next to it given no zone by one test -- are what each neighbour says on its own: open
    to the unit's class (``Game.terrain_cost``), no enemy unit in it, and its zone the units
    of the game's whole-map zone there."""
    from app.rules.zoi.search import _Lookups, adjacency

    for seed in range(6):
        scenario = _game(seed, count=16)
        options = RS.parse_options({"routed_units_exert_zone": routed})
        board, made = RS.setup(RS.parse_scenario(scenario), options)
        state = RS.load_state(made.model_dump(mode="json"))
        game = Game(board, state, options)
        shortcut = 0
        for unit in state.units:
            look = _Lookups(game, unit)
            assert look._occupied is not None  # a plain table: the shortcut is taken
            for h in board.hexes:
                expected = []
                for _, n in adjacency(board)[h]:
                    cost = game.terrain_cost(unit, n)
                    if cost is None or game.enemies_in(n, unit.side):
                        continue
                    by = sorted({z.unit for z in game.enemy_zone(n, unit.side)})
                    expected.append((n, cost, by))
                    shortcut += look._occupied.isdisjoint(look._around[n])
                found = [
                    (n, cost, list(zone.by) if zone else []) for n, cost, zone in look.steps(h)
                ]
                assert found == expected, (seed, unit.id, h)
        assert shortcut > 0


def test_a_negative_entry_cost_keeps_the_no_revisit_check() -> None:
    """The search skips the per-step no-revisit check only when no entry cost is negative (a
    revisit is then always dominated); a scenario giving a negative cost (not refused at setup)
    is answered as walking every path, which never enters a hex twice."""
    checked = 0
    for seed in range(3):
        scenario = _game(seed)
        scenario["terrain_costs"] = {"town": {"infantry": -1, "cavalry": -1, "artillery": 0}}
        board, state = RS.setup(RS.parse_scenario(scenario), RS.parse_options({}))
        query = RS.queries()["reachable"]
        options = RS.parse_options({})
        for unit in scenario["units"]:
            fast = query.run(board, state, options, {"unit": unit["id"]})["hexes"]
            slow = _reference(Game(board, state, options), unit["id"])
            assert json.dumps(fast) == json.dumps(slow), (seed, unit["id"])
            assert all(unit["hex"] not in p["path"] for h in fast for p in h["paths"])
            checked += sum(len(h["paths"]) for h in fast)
    assert checked > 0


@pytest.mark.parametrize(("seed", "size", "count"), [(59, 6, 14), (60, 8, 20)])
def test_search_on_a_crowded_board_when_entering_costs_a_chance(
    seed: int, size: int, count: int
) -> None:
    """Crowded boards under ``entering_counts_as_expenditure``, where the chance counted
    on entering a zone hex decides the order labels are expanded in, and so which of two equally
    good paths is kept: the search must keep the one walking every path keeps (a chance counted
    twice, or taken off, there changes the answer on these boards)."""
    scenario = _game(seed, size, count)
    board, state = RS.setup(RS.parse_scenario(scenario), RS.parse_options({}))
    options = RS.parse_options({"entering_counts_as_expenditure": True})
    query = RS.queries()["reachable"]
    for unit in scenario["units"]:
        fast = query.run(board, state, options, {"unit": unit["id"]})["hexes"]
        slow = _reference(Game(board, state, options), unit["id"])
        assert json.dumps(fast) == json.dumps(slow), (seed, unit["id"])
