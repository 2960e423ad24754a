"""The ``reachable`` search (``app/rules/zoc/search.py``) answers exactly what the search it
replaced answered: :func:`reference_reachable` below is that search as it was (string hexes,
every step judged by :class:`Mover`, every hex within the allowance's distance given a
why-not). With ``why_not: "all"`` the answers are the same to the byte (same JSON, same key
order, same citations in the same order, same readings); with the default ``"frontier"`` they
are the same but for the ``zoc.out_of_reach`` entries (and a citation only they made). Checked
on generated games under every option, weather, phase, hexside feature and marker, on a
fresh state and again on the same state (the search's per-state memo replayed)."""

from __future__ import annotations

import heapq
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from app.rules import registry
from app.rules.judgement import Problem
from app.rules.zoc.catalog import CATALOG
from app.rules.zoc.context import Context
from app.rules.zoc.models import Unit, ZocOptions
from app.rules.zoc.movement import Stop, reachable, reachable_start
from app.rules.zoc.topology import topology
from tests.support.props import examples

RS = registry.get("zoc")

HEXES = [f"{c:02d}{r:02d}" for c in range(1, 8) for r in range(1, 8)]
SIDES_OF_MAP = [(a, b) for a in HEXES for b in HEXES if a < b]
PHASES = ["operational_movement", "exploitation", "reserve_movement"]
WEATHER = ["clear", "mud", "snow", "storms"]
FEATURES = ["mountain", "river", "major_river", "all_sea", "strait", "lake", "canal", "border"]
OPTIONS = list(ZocOptions.model_fields)
FLIPPED = {name: not f.default for name, f in ZocOptions.model_fields.items()}
"""Every option against its default."""


def _adjacent_pairs() -> list[tuple[str, str]]:
    board, _ = RS.setup(RS.parse_scenario(_base({})), RS.parse_options({}))
    topo = topology(board)
    return sorted({tuple(sorted((a, b))) for a in HEXES for b, _ in topo.neighbors[a]})  # type: ignore[misc]


def _base(extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "areas": [
            {"cols": [1, 7], "rows": [1, 3], "weather_zone": "north", "country": "ussr"},
            {"cols": [1, 7], "rows": [4, 7], "weather_zone": "south", "country": "ussr"},
        ],
        "countries": {"ussr": {"name": "USSR"}, "hungary": {"policy_affected": True}},
        "sides": [{"id": "axis"}, {"id": "soviet"}],
        "phasing_side": "axis",
        **extra,
    }


PAIRS: list[tuple[str, str]] = []


@st.composite
def games(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    if not PAIRS:
        PAIRS.extend(_adjacent_pairs())
    cells = draw(st.lists(st.sampled_from(HEXES), min_size=3, max_size=12, unique=True))
    mover, *others = cells
    units: list[dict[str, Any]] = [
        {"id": "m", "side": "axis", "movement_allowance": draw(st.integers(1, 8)), "hex": mover}
    ]
    for i, h in enumerate(others):
        unit: dict[str, Any] = {
            "id": f"u{i}",
            "side": draw(st.sampled_from(["axis", "soviet", "soviet"])),
            "movement_allowance": 2,
            "hex": h,
        }
        if draw(st.integers(0, 5)) == 0:
            unit["ground"] = False
        if draw(st.integers(0, 5)) == 0:
            unit["country"] = "hungary"
        units.append(unit)
    terrain = {
        h: {"terrain": draw(st.sampled_from(["clear", "forest", "swamp", "all_sea", "city"]))}
        for h in draw(st.lists(st.sampled_from(HEXES), max_size=8, unique=True))
        if h != mover
    }
    hexsides = {
        f"{a}/{b}": draw(st.lists(st.sampled_from(FEATURES), min_size=1, max_size=2, unique=True))
        for a, b in draw(st.lists(st.sampled_from(PAIRS), max_size=8, unique=True))
    }
    markers: list[dict[str, Any]] = []
    for i, kind in enumerate(
        draw(
            st.lists(
                st.sampled_from(
                    ["airdrop", "airdrop", "logistics", "partisan_base", "detachment", "beachhead"]
                ),
                max_size=4,
            )
        )
    ):
        marker: dict[str, Any] = {
            "id": f"k{i}",
            "kind": kind,
            "side": draw(st.sampled_from(["axis", "soviet"])),
            "hex": draw(st.sampled_from(HEXES)),
        }
        if kind == "beachhead":
            a, b = draw(st.sampled_from(PAIRS))
            marker["hex"] = a
            marker["hexside"] = f"{a}/{b}"
            terrain[a] = {"terrain": "all_sea"}
        markers.append(marker)
    scenario = _base(
        {
            "hexes": terrain,
            "hexsides": hexsides,
            "units": units,
            "markers": markers,
            "weather": {z: draw(st.sampled_from(WEATHER)) for z in ("north", "south")},
            "phase": draw(st.sampled_from(PHASES)),
        }
    )
    if draw(st.booleans()):
        scenario["start_positions"] = {"m": draw(st.sampled_from(HEXES))}
    moved = [u["id"] for u in units[1:] if u["side"] == "axis" and draw(st.booleans())]
    if moved:
        scenario["moved"] = moved
    if draw(st.integers(0, 3)) == 0:
        scenario["movement_costs"] = {"terrain": {"clear": draw(st.integers(0, 2))}}
    options = {name: draw(st.booleans()) for name in OPTIONS}
    return scenario, options


def _dump(answer: dict[str, Any]) -> str:
    return json.dumps(answer)


def _query(board: Any, state: Any, opts: Any, why_not: str) -> dict[str, Any]:
    ctx = Context(board, state, opts)
    return reachable(ctx, ctx.units["m"], why_not)


def _frontier_of(full: dict[str, Any]) -> dict[str, Any]:
    """The "all" answer without its ``zoc.out_of_reach`` entries."""
    out = dict(full)
    out["unreachable"] = {
        h: reasons
        for h, reasons in full["unreachable"].items()
        if [r["code"] for r in reasons] != ["zoc.out_of_reach"]
    }
    return out


def _same_as_reference(scenario: dict[str, Any], options: dict[str, Any]) -> None:
    opts = RS.parse_options(options)
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    ref_ctx = Context(board, state.model_copy(), opts)
    reference = reference_reachable(ref_ctx, ref_ctx.units["m"])
    for _ in range(2):  # a fresh state, then the same state again (its memo replayed)
        assert _dump(_query(board, state, opts, "all")) == _dump(reference)
        frontier = _query(board, state, opts, "frontier")
        expected = _frontier_of(reference)
        assert {k: v for k, v in frontier.items() if k != "citations"} == {
            k: v for k, v in expected.items() if k != "citations"
        }
        cited = [c for c in reference.get("citations", []) if c in frontier["citations"]]
        assert frontier["citations"] == cited
        for reasons in frontier["unreachable"].values():
            for r in reasons:
                assert set(r["citations"]) <= set(frontier["citations"])


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_search_answers_as_the_reference(game_data: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _same_as_reference(*game_data)


def test_frontier_rows_are_in_hex_id_order_on_a_board_numbered_otherwise() -> None:
    """The ``frontier`` why-nots list their hexes in hex id order, as the reference does, also
    where the board numbers its hexes in another order (``_base``'s rows 1-3 first: 0403
    before 0204). The reference test compares the rows as a dict, so their order went
    unchecked there (session 15's mutation run: ``Found.frontier`` sorting only on a board
    numbered in id order survived)."""
    scenario = _base(
        {
            "units": [
                {"id": "m", "side": "axis", "movement_allowance": 1, "hex": "0303"},
                {"id": "s1", "side": "soviet", "movement_allowance": 2, "hex": "0403"},
                {"id": "s2", "side": "soviet", "movement_allowance": 2, "hex": "0204"},
            ]
        }
    )
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    ids = list(topology(board).neighbors)
    assert ids.index("0403") < ids.index("0204")  # numbered out of hex id order
    ref_ctx = Context(board, state.model_copy(), opts)
    expected = _frontier_of(reference_reachable(ref_ctx, ref_ctx.units["m"]))["unreachable"]
    for _ in range(2):  # a fresh search, then the kept one
        got = _query(board, state, opts, "frontier")["unreachable"]
        assert list(got) == ["0204", "0403"]
        assert json.dumps(got) == json.dumps(expected)


def test_a_hex_refused_from_two_hexes_keeps_the_first_reason() -> None:
    """In Mud a unit may not leave an EZOC hex (8.2), also one its friends negate and it
    entered without stopping: m passes through 0206 and 0207 (negated by u7 and u1), and
    each refuses the step on into 0106. The why-not of 0106 is the first refusal the search
    met (leaving 0207), as the reference writes it, not the last (session 15's mutation run:
    keeping the last reason of a code survived the reference test)."""
    scenario = _base(
        {
            "units": [
                {"id": "m", "side": "axis", "movement_allowance": 6, "hex": "0606"},
                {"id": "u1", "side": "axis", "movement_allowance": 2, "hex": "0207"},
                {"id": "u5", "side": "soviet", "movement_allowance": 2, "hex": "0107"},
                {"id": "u7", "side": "axis", "movement_allowance": 2, "hex": "0206"},
                {"id": "u9", "side": "soviet", "movement_allowance": 2, "hex": "0105"},
            ],
            "weather": {"north": "mud", "south": "mud"},
            "phase": "exploitation",
        }
    )
    _same_as_reference(scenario, {})
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    for why_not in ("all", "frontier"):
        assert _query(board, state, opts, why_not)["unreachable"]["0106"] == [
            {
                "code": "zoc.mud_exit",
                "message": "m may not leave 0207: it is an EZOC hex (of u5) in Mud.",
                "citations": ["8.2.mud", "8.2.exploitation", "8.1", "8.1.clar.nonphasing"],
            }
        ]


FAR_BEACHHEAD = {
    "hexes": {"0701": {"terrain": "all_sea"}},
    "markers": [{"id": "bh-far", "kind": "beachhead", "hex": "0701", "side": "axis"}],
}
"""A Beachhead marker far from the units: with one, the zones find projections the general
way (``Zones._projections``), without, per board (``_projections_by_board``)."""


def _far_beachhead(scenario: dict[str, Any], on: bool) -> dict[str, Any]:
    if on:
        scenario = {**scenario, **json.loads(json.dumps(FAR_BEACHHEAD))}
        scenario["markers"][0]["hexside"] = "0701/0702"
    return scenario


@pytest.mark.parametrize("beachhead", [False, True])
def test_a_unit_stacked_after_one_that_projects_nothing_still_projects(beachhead: bool) -> None:
    """A non-ground unit projects no ZOC (8); a ground unit stacked after it in the same hex
    still does, into all six hexes around, on the lazy zones (an area's ``ezoc-map``) as on
    the whole map's (session 15's mutation run: the hex's later units skipped after a silent
    one survived every case and test)."""
    scenario = _base(
        {
            "units": [
                {"id": "m", "side": "axis", "movement_allowance": 3, "hex": "0202"},
                {"id": "s-air", "side": "soviet", "movement_allowance": 2, "hex": "0404"},
                {"id": "s-inf", "side": "soviet", "movement_allowance": 2, "hex": "0404"},
            ]
        }
    )
    scenario["units"][1]["ground"] = False
    scenario = _far_beachhead(scenario, beachhead)
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    ezoc_map = RS.queries()["ezoc-map"]
    area = ezoc_map.run(board, state, opts, {"side": "axis", "near": "0404", "within": 1})
    assert {h: row["by"] for h, row in area["hexes"].items()} == {
        h: ["s-inf"] for h in ("0303", "0304", "0403", "0405", "0503", "0504")
    }
    assert area["no_zoc"] == [{"unit": "s-air", "reason": "not a ground unit", "section": "8"}]
    whole = ezoc_map.run(board, state, opts, {"side": "axis"})
    assert area["hexes"] == whole["hexes"]


@pytest.mark.parametrize("beachhead", [False, True])
def test_every_unit_of_a_stack_is_blocked_by_a_mountain_hexside(beachhead: bool) -> None:
    """A Mountain hexside stops the projection of each unit of a stack (8), and the area's
    ``ezoc-map`` lists each one's block, as the whole map's does (session 15's mutation run:
    the hex's later units skipped after the first blocked one survived)."""
    scenario = _base(
        {
            "units": [
                {"id": "m", "side": "axis", "movement_allowance": 3, "hex": "0202"},
                {"id": "s-1", "side": "soviet", "movement_allowance": 2, "hex": "0404"},
                {"id": "s-2", "side": "soviet", "movement_allowance": 2, "hex": "0404"},
            ],
            "hexsides": {"0403/0404": ["mountain"]},
        }
    )
    scenario = _far_beachhead(scenario, beachhead)
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    ezoc_map = RS.queries()["ezoc-map"]
    area = ezoc_map.run(board, state, opts, {"side": "axis", "near": "0404", "within": 1})
    assert area["blocked"] == [
        {
            "unit": unit,
            "from": "0404",
            "to": "0403",
            "reason": "mountain hexside 0403/0404",
            "section": "8.exc.mountain",
        }
        for unit in ("s-1", "s-2")
    ]
    assert "0403" not in area["hexes"]
    assert area["blocked"] == ezoc_map.run(board, state, opts, {"side": "axis"})["blocked"]


def test_a_friendly_policy_unit_is_no_no_zoc_note_for_its_own_side() -> None:
    """A unit of a Policy Affected country projects no ZOC (8), which matters only to the
    other sides: next to it, its own side's move notes nothing and cites no section 8, and its
    side's ``ezoc-map`` lists no no-ZOC unit (session 15's mutation run: the silent unit's
    side lost, so noted for every side, survived every case and test)."""
    scenario = _base(
        {
            "units": [
                {"id": "m", "side": "axis", "movement_allowance": 3, "hex": "0202"},
                {"id": "h-1", "side": "axis", "movement_allowance": 2, "hex": "0203"},
                {"id": "s-1", "side": "soviet", "movement_allowance": 2, "hex": "0605"},
            ]
        }
    )
    scenario["units"][1]["country"] = "hungary"
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    action = RS.parse_action({"kind": "move", "unit": "m", "path": ["0302"]})
    ruling = RS.adjudicate(board, state, action, opts)
    assert ruling.legal
    assert [c.section for c in ruling.citations] == ["basic.path", "basic.movement-points"]
    assert ruling.details["steps"] == [
        {"step": 1, "hex": "0302", "cost": 1, "ezoc_by": [], "negated_by": [], "no_zoc": []}
    ]
    area = {"side": "axis", "near": "0203", "within": 1}
    assert RS.queries()["ezoc-map"].run(board, state, opts, area)["no_zoc"] == []
    soviet = RS.queries()["ezoc-map"].run(board, state, opts, {**area, "side": "soviet"})
    assert soviet["no_zoc"] == [
        {
            "unit": "h-1",
            "reason": "unit of a Policy Affected country",
            "section": "8.exc.policy-unit",
        }
    ]


def _across_a_beachhead(*markers_before: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(board, state, options) of a Soviet unit whose ZOC reaches the sea hex 0102 only
    across the Beachhead Hexside 0102/0202 of an Axis Beachhead marker, listed after
    ``markers_before``; the Axis mover stands away, in 0606."""
    scenario = _base(
        {
            "hexes": {"0102": {"terrain": "all_sea"}},
            "hexsides": {"0102/0202": ["strait"]},
            "markers": [
                *markers_before,
                {"id": "bh-1", "kind": "beachhead", "hex": "0102", "side": "axis"},
            ],
            "units": [
                {"id": "m", "side": "axis", "movement_allowance": 3, "hex": "0606"},
                {"id": "s-1", "side": "soviet", "movement_allowance": 2, "hex": "0202"},
            ],
        }
    )
    scenario["markers"][-1]["hexside"] = "0102/0202"
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    return board, state, opts


def test_a_beachhead_marker_listed_after_another_marker_counts() -> None:
    """A Beachhead marker lets a ZOC across its Beachhead Hexside of sea (8 clarification)
    wherever it stands in the marker list: here after a Logistics marker, on the whole map and
    on an area (session 15's mutation run: the scan of the markers ending at the first one that
    is no Beachhead went unjudged)."""
    board, state, opts = _across_a_beachhead(
        {"id": "k-1", "kind": "logistics", "hex": "0505", "side": "axis"}
    )
    ezoc_map = RS.queries()["ezoc-map"]
    for params in ({"side": "axis"}, {"side": "axis", "near": "0102", "within": 1}):
        row = ezoc_map.run(board, state, opts, params)["hexes"]["0102"]
        assert (row["by"], row["across_beachhead_hexside"]) == (["s-1"], ["s-1"])
        assert row["citations"] == [
            "8",
            "8.1",
            "8.1.clar.nonphasing",
            "8.exc.sea",
            "8.clar.beachhead",
        ]


def test_search_answers_as_the_reference_on_the_shipped_scenarios() -> None:
    """Every unit of the packaged scenarios, in each movement phase, under two option sets."""
    from app.rules.zoc.ruleset import ZocRuleset

    for name in ("seed-example.json", "coast-and-weather.json", "seed-example-no-infantry.json"):
        from app.rules.base import shipped_scenario

        data = shipped_scenario(ZocRuleset.__module__, name)
        for phase in PHASES:
            for options in ({}, FLIPPED):
                opts = RS.parse_options(options)
                board, state = RS.setup(RS.parse_scenario({**data, "phase": phase}), opts)
                for unit in state.units:
                    if unit.hex is None:
                        continue
                    ref_ctx = Context(board, state.model_copy(), opts)
                    reference = reference_reachable(ref_ctx, ref_ctx.units[unit.id])
                    ctx = Context(board, state, opts)
                    got = reachable(ctx, ctx.units[unit.id], "all")
                    assert _dump(got) == _dump(reference), (name, phase, unit.id)


def _area_of_full(
    full: dict[str, Any], area: set[str], unit_hex: dict[str, str | None]
) -> dict[str, Any]:
    """The whole-map ``ezoc-map`` answer cut to ``area`` (citations and readings aside)."""
    return {
        **{k: v for k, v in full.items() if k not in ("citations", "interpretations")},
        "hexes": {h: v for h, v in full["hexes"].items() if h in area},
        "blocked": [b for b in full["blocked"] if b["to"] in area],
        "no_zoc": [s for s in full["no_zoc"] if unit_hex.get(s["unit"]) in area],
    }


MARKERS_AROUND_A_NEGATED_HEX: tuple[dict[str, Any], dict[str, Any]] = (
    _base(
        {
            "units": [
                {"id": "m", "side": "axis", "movement_allowance": 1, "hex": "0402"},
                {"id": "u0", "side": "soviet", "movement_allowance": 2, "hex": "0401"},
            ],
            "markers": [
                {"id": "k0", "kind": "logistics", "side": "axis", "hex": "0301"},
                {"id": "k1", "kind": "logistics", "side": "axis", "hex": "0501"},
            ],
        }
    ),
    {},
)
"""Found by the random profile: the whole map cites 8.1.clar.markers (0301) before
8.1.negation (0401); the area within 1 of 0501 lists 0401 and 0501 but not 0301."""


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.sampled_from(HEXES), st.integers(0, 4), st.sampled_from(["axis", "soviet"]))
@example(MARKERS_AROUND_A_NEGATED_HEX, "0501", 1, "soviet")
def test_ezoc_map_of_an_area_is_the_whole_map_cut_to_it(
    game_data: tuple[dict[str, Any], dict[str, Any]], near: str, within: int, side: str
) -> None:
    """The area answer looks only at the units next to the area, and says what the whole-map
    answer says of the area's hexes, in the same order, citing only what it lists (and relying
    only on the readings its hexes needed); both cite in the catalog's order."""
    scenario, options = game_data
    opts = RS.parse_options(options)
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    query = RS.queries()["ezoc-map"]
    full = query.run(board, state.model_copy(), opts, {"side": side})
    part = query.run(board, state, opts, {"side": side, "near": near, "within": within})
    layout = board.layout.layout()
    area = {h for h in layout.within(near, within) if h in board.hexes}
    unit_hex = {u.id: u.hex for u in state.units}
    assert {
        k: v for k, v in part.items() if k not in ("citations", "interpretations")
    } == _area_of_full(full, area, unit_hex)
    assert set(part["interpretations"]) <= set(full["interpretations"])
    assert part["citations"] == [c for c in full["citations"] if c in part["citations"]]
    for answer in (full, part):  # in the catalog's order (docs/rulesets/zoc.md)
        assert answer["citations"] == [s for s in CATALOG.ids() if s in answer["citations"]]
    listed = [c for e in part["hexes"].values() for c in e["citations"]]
    listed += [b["section"] for b in part["blocked"]] + [s["section"] for s in part["no_zoc"]]
    assert set(listed) <= set(part["citations"])


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_lazy_zones_of_a_fresh_state_are_the_whole_maps(
    game_data: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """Hex by hex, the zones of a freshly parsed state (where a hex with no unit next to it
    is answered by one test, ``Zones.occupied``) say what section 8 applied to every unit at
    once says (:func:`compute_zones`): the units projecting into the hex, the projections
    stopped, each side's EZOC and no-ZOC notes (blocked projections, then adjacent units that
    project nothing)."""
    from app.rules.zoc.zones import Zones, compute_zones

    scenario, options = game_data
    opts = RS.parse_options(options)
    board, made = RS.setup(RS.parse_scenario(scenario), opts)
    state = RS.load_state(made.model_dump(mode="json"))
    topo = topology(board)
    whole = compute_zones(board, topo, state.units, state.markers)
    lazy = Zones(board, topo, [(u, u.hex) for u in state.units], state.markers)
    assert lazy.occupied is not None  # a plain table: the shortcut is taken
    for h in board.hexes:
        assert lazy.into(h) == whole.into.get(h, [])
        assert lazy.blocked_into(h) == whole.blocked_into.get(h, [])
        for side in ("axis", "soviet"):
            assert lazy.ezoc(h, side) == whole.ezoc(h, side)
            notes = [
                (b.unit, b.reason, b.section)
                for b in whole.blocked_into.get(h, [])
                if b.side != side
            ]
            for nbr, _ in topo.neighbors[h]:
                notes += [
                    (q.unit, q.reason, q.section)
                    for q in whole.silent_at.get(nbr, [])
                    if q.side != side
                ]
            assert lazy.no_zoc(h, side) == tuple(notes)


def test_the_index_s_zones_of_a_state_with_units_off_the_map_are_the_whole_maps() -> None:
    """The state's index keeps one table of the units by hex, the hexes off the map too
    (``StateIndex.occupants``, the zones' table): the zones still say, hex by hex, what
    section 8 applied to every unit at once says (units off the map project nothing), and
    the rulings' look-ups find the units off the map where they stand."""
    from app.rules.zoc.zones import compute_zones

    scenario = _base(
        {
            "units": [
                {"id": "a", "side": "axis", "movement_allowance": 4, "hex": "0303"},
                {"id": "s1", "side": "soviet", "movement_allowance": 2, "hex": "0404"},
                {"id": "s2", "side": "soviet", "movement_allowance": 2, "hex": "0304"},
            ]
        }
    )
    opts = RS.parse_options({})
    board, made = RS.setup(RS.parse_scenario(scenario), opts)
    doc = made.model_dump(mode="json")
    doc["units"][1]["hex"] = "0909"  # off the map, next to no hex of it
    doc["units"].append({"id": "s3", "side": "soviet", "movement_allowance": 2, "hex": "0909"})
    state = RS.load_state(doc)
    assert "0909" not in board.hexes
    ctx = RS.context(board, state, opts, ())
    assert [u.id for _, u in ctx.occupants["0909"]] == ["s1", "s3"]
    assert [u.id for u in ctx.enemy_ground_units("0909", "axis")] == ["s1", "s3"]
    topo = topology(board)
    whole = compute_zones(board, topo, state.units, state.markers)
    for h in [*board.hexes, "0909"]:
        assert ctx.zones.into(h) == whole.into.get(h, []), h
        for side in ("axis", "soviet"):
            assert ctx.zones.ezoc(h, side) == whole.ezoc(h, side), h
            assert not [n for n in ctx.zones.no_zoc(h, side) if n[0] in ("s1", "s3")], h
    assert [u.id for u in ctx.zones.ezoc("0303", "axis")] == ["s2"]


def test_ezoc_map_of_an_area_on_the_coast_scenario() -> None:
    """Coast and weather: projections blocked by a mountain, sea, strait, a Beachhead and
    Policy Affected Hungary, units that project nothing; each area says what the whole map
    says of it, in the same order."""
    from app.rules.base import shipped_scenario
    from app.rules.zoc.ruleset import ZocRuleset

    data = shipped_scenario(ZocRuleset.__module__, "coast-and-weather.json")
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(data), opts)
    query = RS.queries()["ezoc-map"]
    layout = board.layout.layout()
    unit_hex = {u.id: u.hex for u in state.units}
    for side in ("axis", "soviet"):
        full = query.run(board, state, opts, {"side": side})
        assert len(full["blocked"]) >= 2, full["blocked"]
        for near, within in (("b0405", 8), ("b0404", 2), ("b0706", 1), ("b0104", 0)):
            part = query.run(board, state, opts, {"side": side, "near": near, "within": within})
            area = {h for h in layout.within(near, within) if h in board.hexes}
            assert {
                k: v for k, v in part.items() if k not in ("citations", "interpretations")
            } == _area_of_full(full, area, unit_hex)
        whole = query.run(board, state, opts, {"side": side, "near": "b0405", "within": 8})
        assert whole == full


# -- the reference: the search as it was before app/rules/zoc/search.py ------------------------


def reference_reachable(ctx: Context, unit: Unit) -> dict[str, Any]:
    """Every hex the unit can end its move in this phase: cheapest legal path, cost, stops;
    and, for hexes within range it cannot reach, why (with citations)."""
    mover, base, refused = reachable_start(ctx, unit)  # the same checks before the search
    if refused is not None:
        return refused
    assert unit.hex is not None
    start = unit.hex
    Node = tuple[str, bool]  # (hex, must stop there)
    best: dict[Node, int] = {(start, False): 0}
    prev: dict[Node, Node | None] = {(start, False): None}
    stops: dict[Node, Stop] = {}
    reasons: dict[str, dict[str, dict[str, Any]]] = {}

    def note(hex_id: str, code: str, message: str, sections: list[str]) -> None:
        found = reasons.setdefault(hex_id, {})
        if code in found:
            ctx.cite(*sections)  # a later reason of the same kind may cite more sections
            return
        found[code] = {
            "code": code,
            "message": message,
            "citations": [c.section for c in ctx.cite(*sections)],
        }

    heap: list[tuple[int, int, str, bool]] = [(0, 0, start, False)]
    seq = 0
    done: set[Node] = set()
    while heap:
        cost, _, cur, terminal = heapq.heappop(heap)
        node = (cur, terminal)
        if node in done:
            continue
        done.add(node)
        if terminal:
            stop = stops[node]
            for nbr, _side in ctx.topo.neighbors[cur]:
                note(
                    nbr,
                    "zoc.must_stop",
                    f"Paths through {cur} end there: {stop.message}.",
                    stop.sections,
                )
            continue
        first = prev[node] is None
        for nbr, _side in ctx.topo.neighbors[cur]:
            step_cost = mover.basic_step(cur, nbr, 0, False)
            if isinstance(step_cost, Problem):
                note(nbr, step_cost.code, step_cost.message, list(step_cost.sections))
                continue
            total = cost + step_cost
            if total > unit.movement_allowance:
                if "zoc.insufficient_mp" in reasons.get(nbr, ()):
                    continue  # noted before, with the same section
                note(
                    nbr,
                    "zoc.insufficient_mp",
                    f"Entering {nbr} from {cur} would cost {total} movement points.",
                    ["basic.movement-points"],
                )
                continue
            outcome = mover.zoc_step(cur, nbr, 0, first)
            if outcome.problem is not None:
                note(
                    nbr,
                    outcome.problem.code,
                    outcome.problem.message,
                    list(outcome.problem.sections),
                )
                continue
            nxt: Node = (nbr, outcome.stop is not None)
            if total < best.get(nxt, total + 1):
                best[nxt] = total
                prev[nxt] = node
                if outcome.stop is not None:
                    stops[nxt] = outcome.stop
                seq += 1
                heapq.heappush(heap, (total, seq, nbr, nxt[1]))
    paths: dict[Node, list[str]] = {(start, False): []}

    def path_to(node: Node) -> list[str]:
        """The hexes entered on the cheapest path to ``node`` (each prefix built once)."""
        chain: list[Node] = []
        walk = node
        while walk not in paths:
            chain.append(walk)
            parent = prev[walk]
            assert parent is not None
            walk = parent
        path = paths[walk]
        for n in reversed(chain):
            path = paths[n] = [*path, n[0]]
        return path

    result: dict[str, dict[str, Any]] = {}
    for (hex_id, terminal), total in best.items():
        if hex_id == start:
            continue
        entry = result.get(hex_id)
        if entry is not None and (entry["cost"] < total or (entry["cost"] == total and terminal)):
            continue
        path = path_to((hex_id, terminal))
        found_stop = stops.get((hex_id, terminal))
        result[hex_id] = {
            "cost": total,
            "path": path,
            "must_stop": terminal,
            "stop": None
            if found_stop is None
            else {
                "reason": found_stop.reason,
                "by": found_stop.by,
                "message": found_stop.message,
                "citations": [c.section for c in ctx.cite(*found_stop.sections)],
            },
        }
    layout = ctx.board.layout.layout()
    unreachable: dict[str, list[dict[str, Any]]] = {}
    out_of_reach: list[str] | None = None
    on_map = ctx.board.hexes
    for hex_id in layout.within(start, unit.movement_allowance):
        if hex_id == start or hex_id in result or hex_id not in on_map:
            continue
        found = reasons.get(hex_id)
        if found:
            unreachable[hex_id] = sorted(found.values(), key=lambda r: str(r["code"]))
        else:
            if out_of_reach is None:
                out_of_reach = [c.section for c in ctx.cite("basic.movement-points")]
            unreachable[hex_id] = [
                {
                    "code": "zoc.out_of_reach",
                    "message": f"No legal path reaches {hex_id} within the movement allowance.",
                    "citations": list(out_of_reach),
                }
            ]
    return {
        **base,
        "can_move": True,
        "started_in_ezoc": mover.started_in_ezoc,
        "reachable": dict(sorted(result.items())),
        "unreachable": dict(sorted(unreachable.items())),
        "citations": ctx.cited_ids(),
        "interpretations": [i.id for i in ctx.interpretations()],
    }


def _asks(near: str, within: int, side: str, path: list[str]) -> list[tuple[str, Any]]:
    """Queries and a move ruling on one game: (query name or "move", parameters or action)."""
    return [
        ("ezoc-map", {"side": side}),
        ("ezoc-map", {"side": side, "near": near, "within": within}),
        ("reachable", {"unit": "m"}),
        ("reachable", {"unit": "m", "why_not": "all"}),
        ("supply", {"side": side}),
        ("move", RS.parse_action({"kind": "move", "unit": "m", "path": path})),
    ]


def _ask(board: Any, state: Any, opts: Any, name: str, params: Any) -> str:
    if name == "move":
        return RS.adjudicate(board, state, params, opts).model_dump_json()
    return _dump(RS.queries()[name].run(board, state, opts, params))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    games(),
    st.sampled_from(HEXES),
    st.integers(0, 4),
    st.sampled_from(["axis", "soviet"]),
    st.lists(st.sampled_from(HEXES), min_size=1, max_size=3),
    st.permutations(range(6)),
)
@example(MARKERS_AROUND_A_NEGATED_HEX, "0501", 1, "soviet", ["0403"], [1, 0, 2, 3, 4, 5])
def test_answers_do_not_depend_on_what_was_asked_before(
    game_data: tuple[dict[str, Any], dict[str, Any]],
    near: str,
    within: int,
    side: str,
    path: list[str],
    order: list[int],
) -> None:
    """The per-state caches (the zone map, the lazy zones, the search's memo, the citation
    groups) never change an answer: asked on one state object in any order (the area before
    the whole map, a ruling between queries), every answer is the one a fresh state gives."""
    scenario, options = game_data
    opts = RS.parse_options(options)
    asks = _asks(near, within, side, path)
    alone = []
    for name, params in asks:
        board, state = RS.setup(RS.parse_scenario(scenario), opts)
        alone.append(_ask(board, state, opts, name, params))
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    for i in [*order, *order]:  # then again on the warm state
        name, params = asks[i]
        assert _ask(board, state, opts, name, params) == alone[i], (name, params)
