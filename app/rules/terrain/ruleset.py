"""The ``terrain`` ruleset (seed 003, Terrain Definitions A.1-A.47) as a plug-in.

Wiring only: the rules live in the package's rule-family modules (``movement`` for moves and
charges, ``sight`` for line of sight and fire, ``cover`` for posture and cover (A.47), over
``ground``: who counts as what), the
setup in ``setup``, the queries in ``queries``, the shapes in ``geometry``.
"""

from __future__ import annotations

from typing import Any

from app.rules.base import Ruleset
from app.rules.dispatch import Kind, NoOutcome
from app.rules.terrain import cover, models, movement, queries, sight
from app.rules.terrain.available import available_actions
from app.rules.terrain.catalog import RULESET_ID, TEXT
from app.rules.terrain.ground import Ctx
from app.rules.terrain.models import Action, Board, Options, Scenario, State
from app.rules.terrain.setup import build

KINDS: dict[str, Kind[Ctx, Board, State, Any, Any]] = {
    "move": Kind(
        models.Move,
        movement.judge_move,
        movement.apply_move,
        models.MoveOutcome,
        dice=movement.dice_needed,
    ),
    "charge": Kind(models.DeclareCharge, movement.judge_charge, movement.apply_charge, NoOutcome),
    "fire": Kind(models.Fire, sight.judge_fire, sight.apply_fire, NoOutcome),
    "hold": Kind(models.Hold, cover.judge_hold, cover.apply_hold, NoOutcome),
}
"""Action kind -> its model, the rule family's judge and apply, the outcome apply takes, and
the kind's dice (a move's broken-wheel checks, A.46)."""


class TerrainRuleset(Ruleset[Board, State, Action, Options]):
    """Measured table-top terrain: woods, rough, water, buildings and works, in yards."""

    id = RULESET_ID
    version = "0.11.0"
    state_revalidates = True  # tests/db/test_kept_state.py checks every rule case's states
    title = "Terrain Definitions (measured horse-and-musket rules)"
    description = (
        "Table-top terrain measured in yards: who may enter woods, rough and buildings, how "
        "far, fords and streams, broken wheels, and what blocks line of sight."
    )
    text = TEXT
    scenario_model = Scenario
    builder = build
    kinds = KINDS
    query_table = queries.QUERIES
    example = "example.json"

    offer = available_actions


__all__ = ["Action", "TerrainRuleset"]
