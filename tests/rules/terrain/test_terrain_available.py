"""What a seat may do in ``terrain`` (``available_actions``): exact answers on the example.

The terrain definitions give no sequence of play, so every unit of the seat's side still on the
table may move and charge, and fire while an enemy unit remains; a unit a broken wheel destroyed
(A.46) is no longer listed, and the note naming it cites A.46. Rule cases cannot ask this.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.rules import registry
from app.rules.base import UMPIRE
from app.rules.terrain.catalog import CATALOG

EXAMPLE = Path(__file__).resolve().parents[3] / "scenarios" / "terrain" / "example.json"
NO_SEQUENCE = (
    "The terrain definitions give no sequence of play: any side may act at any time "
    "(project default)."
)
ALL = ("move", "charge", "fire", "hold")
FRENCH = ("fr-inf", "fr-skirm", "fr-cav", "fr-bty", "fr-wagon")
BRITISH = ("br-inf", "br-cav", "br-lt")


def _game(destroyed: tuple[str, ...] = ()) -> tuple[Any, Any, Any, Any]:
    rs = registry.get("terrain")
    options = rs.parse_options({})
    board, state = rs.setup(rs.parse_scenario(json.loads(EXAMPLE.read_text())), options)
    units = [u.model_copy(update={"destroyed": u.id in destroyed}) for u in state.units]
    return rs, options, board, state.model_copy(update={"units": units})


def _units(answer: Any) -> list[tuple[str, tuple[str, ...]]]:
    return [(u.unit, tuple(u.kinds)) for u in answer.units]


def test_a_side_with_enemies_on_the_table_may_move_charge_and_fire() -> None:
    rs, options, board, state = _game()
    answer = rs.available_actions(board, state, options, "french")
    assert _units(answer) == [(u, ALL) for u in FRENCH]
    assert tuple(answer.kinds) == ("charge", "fire", "hold", "move")
    assert tuple(answer.notes) == (NO_SEQUENCE,)
    assert tuple(answer.citations) == ()


def test_the_umpire_sees_every_sides_units_in_state_order() -> None:
    rs, options, board, state = _game()
    answer = rs.available_actions(board, state, options, UMPIRE)
    assert _units(answer) == [(u, ALL) for u in FRENCH + BRITISH]
    assert tuple(answer.kinds) == ("charge", "fire", "hold", "move")
    assert tuple(answer.notes) == (NO_SEQUENCE,)


def test_destroyed_units_are_left_out_and_named_citing_a46() -> None:
    rs, options, board, state = _game(destroyed=("fr-cav", "fr-wagon"))
    answer = rs.available_actions(board, state, options, "french")
    assert _units(answer) == [(u, ALL) for u in ("fr-inf", "fr-skirm", "fr-bty")]
    assert tuple(answer.notes) == (
        NO_SEQUENCE,
        "Destroyed by a broken wheel, no longer acting: fr-cav, fr-wagon.",
    )
    assert tuple(answer.citations) == (CATALOG.cite("A.46"),)
    # the other side's answer does not name them
    british = rs.available_actions(board, state, options, "british")
    assert _units(british) == [(u, ALL) for u in BRITISH]
    assert tuple(british.notes) == (NO_SEQUENCE,) and tuple(british.citations) == ()


def test_destroyed_enemies_leave_nobody_to_fire_at() -> None:
    rs, options, board, state = _game(destroyed=FRENCH)
    answer = rs.available_actions(board, state, options, "british")
    assert _units(answer) == [(u, ("move", "charge", "hold")) for u in BRITISH]
    assert tuple(answer.kinds) == ("charge", "hold", "move")
    french = rs.available_actions(board, state, options, "french")
    assert _units(french) == [] and tuple(french.kinds) == ()
    assert tuple(french.notes) == (
        NO_SEQUENCE,
        f"Destroyed by a broken wheel, no longer acting: {', '.join(FRENCH)}.",
    )
    umpire = rs.available_actions(board, state, options, UMPIRE)
    assert _units(umpire) == [(u, ("move", "charge", "hold")) for u in BRITISH]
    assert tuple(umpire.citations) == (CATALOG.cite("A.46"),)


def test_one_enemy_left_is_enough_to_fire() -> None:
    rs, options, board, state = _game(destroyed=FRENCH[1:])
    answer = rs.available_actions(board, state, options, "british")
    assert _units(answer) == [(u, ALL) for u in BRITISH]


def test_a_seat_with_no_units_may_do_nothing() -> None:
    rs, options, board, state = _game()
    answer = rs.available_actions(board, state, options, "prussian")
    assert _units(answer) == [] and tuple(answer.kinds) == ()
    assert tuple(answer.notes) == (NO_SEQUENCE,) and tuple(answer.citations) == ()
