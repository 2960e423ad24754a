"""Property tests on the shipped battle: any move, charge or fire of any unit along any path
gets a ruling that cites what shaped it, the same ruling twice, and (when legal) a state that
still holds every unit exactly once, on the table or on one zone's display."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import registry
from app.rules.ruling import Effect, Violation

BATTLE = Path(__file__).resolve().parents[3] / "scenarios" / "battlefield" / "millers-crossing.json"
RS = registry.get("battlefield")
OPTIONS = RS.parse_options({})
BOARD, START = RS.setup(RS.parse_scenario(json.loads(BATTLE.read_text(encoding="utf-8"))), OPTIONS)
UNITS = [u.id for u in START.table.units]

x = st.floats(min_value=0, max_value=1600, allow_nan=False).map(lambda v: round(v, 1))
y = st.floats(min_value=0, max_value=1000, allow_nan=False).map(lambda v: round(v, 1))
path = st.lists(st.tuples(x, y), min_size=1, max_size=4)


def _position(phase: str, side: str) -> object:
    zones = START.zones.model_copy(update={"phase": phase, "phasing_side": side})
    return START.model_copy(update={"zones": zones})


@settings(max_examples=120, deadline=None)
@given(
    st.sampled_from(UNITS),
    path,
    st.sampled_from(["move", "charge"]),
    st.sampled_from(["union", "confederate"]),
)
def test_any_path_gets_a_cited_deterministic_ruling(
    unit: str, waypoints: list[tuple[float, float]], kind: str, side: str
) -> None:
    state = _position("movement" if kind == "move" else "charge_declaration", side)
    action = RS.parse_action({"kind": kind, "unit": unit, "path": waypoints})
    dice = [5] * len(RS.dice_needed(BOARD, state, action))
    ruling = RS.adjudicate(BOARD, state, action, OPTIONS, dice)
    assert ruling == RS.adjudicate(BOARD, state, action, OPTIONS, dice)
    assert ruling.citations, ruling.summary
    cited = set(ruling.citations)
    items: list[Violation | Effect] = [*ruling.violations, *ruling.effects]
    for item in items:
        assert set(item.citations) <= cited, item
    if not ruling.legal:
        return
    after = RS.apply(BOARD, state, action, ruling)
    assert sorted(u.id for u in after.table.units) == sorted(UNITS)
    for u in after.zones.units:
        if u.zone is not None:
            assert u.at in ("garrison", "transit") and u.zone in BOARD.outlines


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(UNITS), st.sampled_from(UNITS))
def test_any_fire_gets_a_cited_ruling(unit: str, target: str) -> None:
    state = _position("initial_fire", "union")
    ruling = RS.adjudicate(
        BOARD, state, RS.parse_action({"kind": "fire", "unit": unit, "target": target}), OPTIONS
    )
    assert ruling.citations, ruling.summary
