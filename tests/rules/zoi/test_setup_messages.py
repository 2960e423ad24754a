"""What ``zoi`` setup hands on besides the located problems the rule cases check: the refusal's
own message (the problem detail of a refused game creation) and the board's name (part of the
stored board, whose digest the API shows)."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import InvalidScenario
from app.rules.zoi import ZoiRuleset

RS = ZoiRuleset()


def _scenario() -> dict[str, Any]:
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


@pytest.mark.parametrize(
    ("columns", "rows", "hexes"),
    [
        ([1, 10], [1, 10], 100),
        ([3, 5], [2, 2], 3),
        ([0, 0], [4, 7], 4),
        ([5, 1], [1, 10], 0),
        ([1, 10], [8, 3], 0),
    ],
)
def test_generated_size_counts_the_map_rectangle(
    columns: list[int], rows: list[int], hexes: int
) -> None:
    """The size the service budgets a request by (``Ruleset.generated_size``): the hexes of
    the map rectangle, none for a range that runs backwards."""
    scenario = _scenario()
    scenario["map"] = {**scenario["map"], "columns": columns, "rows": rows}
    assert RS.generated_size(RS.parse_scenario(scenario)) == hexes


def test_the_sequence_of_play_cites_the_sequence_and_rotates_the_sides() -> None:
    """What a rejection for acting out of sequence cites (the service uses the citation)."""
    board, _ = RS.setup(RS.parse_scenario(_scenario()), RS.parse_options({}))
    sequence = RS.sequence_of_play(board)
    assert sequence.citation.section == "sequence"
    assert sequence.sides == ("french", "austrian")
    assert [p.id for p in sequence.phases][:2] == ["charges", "movement"]


def test_generated_size_of_what_is_not_a_parsed_scenario_is_none() -> None:
    """Only a parsed ``ZoiScenario`` has a map rectangle to count; anything else (the raw
    document, nothing) generates no hexes, as the base ruleset's default says."""
    assert RS.generated_size(_scenario()) == 0
    assert RS.generated_size(None) == 0
