"""The ``objective-zones`` ruleset (seed 003, Operational Objective Zones) as a plug-in.

Wiring only: the rules live in the package's rule-family modules (``movement``, ``fire``,
``assault``, ``support``, ``morale``, ``combat``, ``engaged``, over the facts of ``zones`` and
the shared ``checks``), the setup in ``setup``, the sequence of play in ``sequence``, the
queries in ``queries``.
"""

from __future__ import annotations

from typing import Any

from app.rules.base import (
    Position,
    Ruleset,
    SequenceOfPlay,
)
from app.rules.dispatch import Kind, NoOutcome, Sealed
from app.rules.objective_zones import (
    assault,
    checks,
    combat,
    dice,
    engaged,
    fire,
    morale,
    movement,
    queries,
    sequence,
    support,
)
from app.rules.objective_zones.available import available_actions
from app.rules.objective_zones.catalog import RULESET_ID, TEXT
from app.rules.objective_zones.models import (
    Action,
    AssaultOutcome,
    Board,
    Bombard,
    BombardOutcome,
    Charge,
    ContinueMelee,
    DeclareAssault,
    DeclareOutcome,
    EnterZone,
    ExitZone,
    GarrisonFire,
    MoraleTest,
    Musketry,
    Options,
    Placement,
    Scenario,
    State,
    Transfer,
    Unlimber,
    Withdraw,
)
from app.rules.objective_zones.setup import build
from app.rules.objective_zones.zones import Ctx

KINDS: dict[str, Kind[Ctx, Board, State, Any, Any]] = {
    "enter": Kind(
        EnterZone,
        movement.judge_enter,
        movement.apply_enter,
        Placement,
        names=checks.names_unit_and_zone,
    ),
    "exit": Kind(
        ExitZone, movement.judge_exit, movement.apply_exit, NoOutcome, names=checks.names_unit
    ),
    "transfer": Kind(
        Transfer,
        movement.judge_transfer,
        movement.apply_transfer,
        Placement,
        names=checks.names_unit_and_zone,
    ),
    "musketry": Kind(
        Musketry, fire.judge_musketry, fire.apply_nothing, NoOutcome, names=fire.musketry_names
    ),
    "garrison_fire": Kind(
        GarrisonFire,
        fire.judge_garrison_fire,
        fire.apply_nothing,
        NoOutcome,
        names=checks.names_unit,
    ),
    "bombard": Kind(
        Bombard,
        fire.judge_bombard,
        fire.apply_bombard,
        BombardOutcome,
        dice=dice.bombard,
        names=checks.names_unit_and_zone,
    ),
    "declare_assault": Kind(  # owned by the side of the first unit it names
        DeclareAssault,
        assault.judge_declare,
        assault.apply_declare,
        DeclareOutcome,
        unit_of=lambda a: a.units[0],
        names=assault.declare_names,
    ),
    "charge": Kind(
        Charge,
        assault.judge_charge,
        assault.apply_charge,
        NoOutcome,
        names=assault.charge_names,
        despite_phase=assault.charge_problems,
    ),
    "withdraw": Kind(
        Withdraw,
        movement.judge_withdraw,
        movement.apply_withdraw,
        NoOutcome,
        names=checks.names_unit,
    ),
    "unlimber": Kind(
        Unlimber,
        support.judge_unlimber,
        support.apply_unlimber,
        NoOutcome,
        names=support.unlimber_names,
    ),
    "morale_test": Kind(
        MoraleTest,
        morale.judge_morale_test,
        morale.apply_morale_test,
        NoOutcome,
        dice=dice.morale_test,
    ),
    "continue_melee": Kind(
        ContinueMelee,
        engaged.judge_continue,
        engaged.apply_continue,
        AssaultOutcome,
        "anyone",
        dice=dice.continue_melee,
        names=checks.names_zone,
    ),
}
"""Action kind -> its model, the rule family's judge and apply, the outcome apply takes, and
the kind's facts (owner, dice, what the kit checks before the phase: ``names``, and what it
cites with a phase refusal: ``despite_phase``)."""


class ObjectiveZonesRuleset(Ruleset[Board, State, Action, Options]):
    """Operational Objective Zones: zone displays, sectors, and secret assault allocation."""

    id = RULESET_ID
    version = "1.8.0"
    state_revalidates = True  # tests/db/test_kept_state.py checks every rule case's states
    title = "Operational Objective Zones (measured horse-and-musket rules)"
    description = (
        "Villages, farms, redoubts and bridges fought over as zones with an In-Transit box and "
        "garrison sectors; assaults resolved by a secret, simultaneous troop allocation."
    )
    text = TEXT
    scenario_model = Scenario
    builder = build
    kinds = KINDS
    phase_rule = sequence.PHASE_RULE
    query_table = queries.QUERIES
    example = "example.json"

    # -- sequence of play --------------------------------------------------------------------

    def sequence_of_play(self, board: Board) -> SequenceOfPlay:
        return sequence.sequence_of_play(board)

    def position(self, board: Board, state: State) -> Position:
        return sequence.position(state)

    def advance_phase(self, board: Board, state: State) -> State:
        return sequence.advance_phase(board, state)

    # -- the sealed allocation (OZ.Assault.B-D) and the read side ---------------------------

    sealed = Sealed[Board, State](
        decisions=lambda board, state: combat.sealed_decisions(state),
        judge=combat.judge_sealed,
        dice=lambda board, state, did, orders: combat.dice_needed(
            board, state, did, orders, board.options
        ),
        resolve=combat.resolve,
        apply=lambda board, state, did, orders, ruling: combat.apply(board, state, did, ruling),
    )
    offer = available_actions


__all__ = ["Action", "ObjectiveZonesRuleset"]
