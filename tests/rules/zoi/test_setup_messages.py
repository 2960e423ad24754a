"""What ``zoi`` setup hands on besides the located problems the rule cases check: the refusal's
own message (the problem detail of a refused game creation) and the board's name (part of the
stored board, whose digest the API shows)."""

from __future__ import annotations

import pytest

from app.rules import InvalidScenario
from app.rules.zoi import ZoiRuleset

RS = ZoiRuleset()


def _scenario() -> dict[str, object]:
    example = RS.example_scenario()
    assert example is not None
    return dict(example)


def test_a_refused_scenario_says_how_many_problems_and_the_first() -> None:
    scenario = _scenario()
    scenario["phasing"] = "prussian"
    with pytest.raises(InvalidScenario) as refused:
        RS.setup(RS.parse_scenario(scenario), RS.parse_options({}))
    assert str(refused.value) == (
        "the zoi scenario is inconsistent: 1 problem(s), first: unknown side 'prussian'"
    )


def test_the_board_keeps_the_scenario_name() -> None:
    scenario = _scenario()
    board, _ = RS.setup(RS.parse_scenario(scenario), RS.parse_options({}))
    assert board.name == scenario["name"] != ""
