"""The objective-zone actions a battlefield game takes as they are (``zone_part.zone_kind``):
each is the zone part's own kind, judged on the zone part of the game exactly as the
``objective-zones`` ruleset judges it, and applied there, with the table following (units it
removes leave the table). ``zone_kind`` runs when the ruleset's table of kinds is built, so a
rule case never reaches it; these tests build the kinds again and compare them with the zone
part's (issue 14, mutation round; docs/mutation/battlefield.md)."""

from __future__ import annotations

import pytest

from app.rules.battlefield import zone_part
from app.rules.battlefield.moves import ZONES
from app.rules.battlefield.table import sync_table
from tests.rules.rule_cases import _setup, load_cases

KINDS = ("transfer", "withdraw", "unlimber", "morale_test", "continue_melee")
CASES = {
    c.name: c
    for c in load_cases("battlefield")
    if c.name
    in (
        "morale-test-on-the-table-game",
        "engaged-melee-in-the-village-goes-on",
        "redoubt-chain-via-transit",
        "redoubt-stand-shifts-along-the-line",
    )
}


@pytest.mark.parametrize("name", KINDS)
def test_a_zone_kind_is_the_zone_parts_own(name: str) -> None:
    kind, inner = zone_part.zone_kind(name), ZONES.kinds[name]
    assert (kind.model, kind.outcome, kind.owner) == (inner.model, inner.outcome, inner.owner)


@pytest.mark.parametrize("case_name", sorted(CASES))
def test_a_zone_action_is_judged_and_applied_on_the_zone_part(case_name: str) -> None:
    case = CASES[case_name]
    rs, options, board, state = _setup(case)
    action = rs.parse_action(case.data["action"])
    dice = list(case.data.get("dice") or [])
    kind = zone_part.zone_kind(action.kind)
    ruling = kind.judge(rs.context(board, state, options, dice), action)
    assert ruling == ZONES.adjudicate(board.zones, state.zones, action, options.zones(), dice)
    assert ruling.legal is case.expect["legal"]
    if ruling.legal:
        out = kind.outcome.model_validate(ruling.details)
        zones = ZONES.kinds[action.kind].apply(board.zones, state.zones, action, out)
        assert kind.apply(board, state, action, out) == sync_table(board, state, zones)


def test_a_zone_action_is_judged_with_the_games_options() -> None:
    """A zone kind hands the game's options to the zone part: read as adjacent sectors only
    (``class_f_adjacent_only``), a transfer from sector 2 to 4 of the West redoubt is refused,
    which the default reading allows in an uncontested zone (OZ.Basic.C)."""
    import json

    from app.rules import registry
    from tests.rules.rule_cases import REPO

    rs = registry.get("battlefield")
    doc = json.loads((REPO / "scenarios/battlefield/millers-crossing.json").read_text("utf-8"))
    doc.update(phase="movement", phasing_side="confederate")
    strict = rs.parse_options({"class_f_adjacent_only": True})
    board, state = rs.setup(rs.parse_scenario(doc), strict)
    action = rs.parse_action(
        {"kind": "transfer", "unit": "cs-2va", "zone": "redoubt-w", "to_sector": 4}
    )
    kind = zone_part.zone_kind("transfer")
    ruling = kind.judge(rs.context(board, state, strict, ()), action)
    assert ruling == ZONES.adjudicate(board.zones, state.zones, action, strict.zones(), [])
    assert not ruling.legal
    lenient = rs.parse_options({})
    assert kind.judge(rs.context(board, state, lenient, ()), action).legal


def test_a_unit_with_no_castings_joins_no_assault() -> None:
    """OZ.Assault.A / C, BF.Charge: us-2 would join the assault us-1 declared on the village
    (case second-charge-joins-the-assault), but it has no castings left: refused. Setup and the
    zone part remove such a unit, so this guard is asked on a state built by hand."""
    [case] = [c for c in load_cases("battlefield") if c.name == "second-charge-joins-the-assault"]
    rs, options, board, state = _setup(case)
    units = [u.model_copy(update={"men": 0}) if u.id == "us-2" else u for u in state.zones.units]
    state = state.model_copy(update={"zones": state.zones.model_copy(update={"units": units})})
    action = rs.parse_action(case.data["action"])
    ruling = rs.adjudicate(board, state, action, options)
    assert not ruling.legal
    assert [(v.code, v.unit) for v in ruling.violations] == [("oz.no_castings", "us-2")]
    assert {"OZ.Assault.A", "OZ.Assault.C", "BF.Charge"} <= {c.section for c in ruling.citations}
    # the refusal itself cites the charge rule it stops, not only the zone rules
    [refusal] = ruling.violations
    assert [c.section for c in refusal.citations] == [
        "OZ.Assault.A",
        "BF.Charge",
        "OZ.Basic.B",
        "OZ.Assault.C",
    ]
    assert not [e for e in ruling.effects if e.kind == "bf.joins_assault"]
