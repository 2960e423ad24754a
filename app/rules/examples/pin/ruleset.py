"""The toy ``pin`` ruleset: wiring only."""

from __future__ import annotations

from app.rules.base import Ruleset
from app.rules.dispatch import Kind, NoOutcome
from app.rules.examples.pin import movement
from app.rules.examples.pin.catalog import CATALOG, RULESET_ID
from app.rules.examples.pin.models import Action, Board, Move, Options, Scenario, State
from app.rules.examples.pin.setup import build


class PinRuleset(Ruleset[Board, State, Action, Options]):
    """A unit next to an enemy may not move (an example, not served)."""

    id = RULESET_ID
    version = "0.1.0"
    title = "Pin (an example ruleset)"
    catalog = CATALOG
    scenario_model = Scenario
    builder = build
    kinds = {"move": Kind(Move, movement.judge_move, movement.apply_move, NoOutcome)}
    example = "example.json"
