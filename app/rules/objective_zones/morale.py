"""Morale in objective zones (OZ.Morale): who must test, and the test itself."""

from __future__ import annotations

from app.rules.dispatch import NoOutcome
from app.rules.judgement import Problem
from app.rules.objective_zones.combat import DIE
from app.rules.objective_zones.models import Board, MoraleTest, State
from app.rules.objective_zones.zones import Ctx, unit_named
from app.rules.ruling import Ruling


def judge_morale_test(ctx: Ctx, a: MoraleTest) -> Ruling:
    dice = ctx.dice
    unit = unit_named(ctx.state, a.unit)
    if unit is None:
        return ctx.refuse(
            Problem("oz.unknown_unit", f"There is no unit {a.unit!r}.", ["OZ.Scenario"])
        )
    cause = ctx.state.morale_due.get(unit.id)
    if cause is None:
        return ctx.refuse(
            Problem(
                "oz.no_morale_due",
                f"{unit.id} owes no morale test: units in a zone test only after a melee "
                "result or losses to artillery, never because other units failed.",
                ["OZ.Morale"],
                unit=unit.id,
            )
        )
    ctx.rely("oz.morale-test")
    ctx.rely("oz.d10")
    marks = ctx.board.morale_pass
    by_default = unit.grade not in marks
    need = ctx.board.default_morale_pass if by_default else marks[unit.grade]
    ctx.cite("OZ.Morale", "OZ.Scenario")
    # a grade the scenario gives no pass mark tests against its default_morale_pass, and says so
    source = (
        f" (grade {unit.grade} has no morale_pass mark: the scenario's default_morale_pass {need})"
        if by_default
        else ""
    )
    extra: dict[str, object] = {"pass_mark": "default_morale_pass"} if by_default else {}
    if not dice:
        return ctx.finish(
            f"{unit.id} tests morale ({cause}): passes on {need} or more{source}.",
            {"cause": cause, "pass_from": need, **extra},
        )
    roll = dice[0] % DIE
    passed = roll >= need
    kind = "oz.morale_passed" if passed else "oz.morale_failed"
    ctx.effect(
        kind,
        f"{unit.id} rolled {roll}",
        ["OZ.Morale", "OZ.Scenario"],
        unit=unit.id,
        details={"cause": cause, "roll": roll, "pass_from": need, **extra},
    )
    return ctx.finish(
        f"{unit.id} {'passes' if passed else 'fails'} its morale test ({roll} against "
        f"{need}){source}.",
        {"cause": cause, "roll": roll, "pass_from": need, "passed": passed, **extra},
    )


def dice_needed(board: Board, state: State, a: MoraleTest) -> list[int]:
    return [DIE] if a.unit in state.morale_due else []


def apply_morale_test(board: Board, state: State, a: MoraleTest, out: NoOutcome) -> State:
    """The test is taken: the unit owes none any more."""
    new = state.model_copy(deep=True)
    new.morale_due = {k: v for k, v in new.morale_due.items() if k != a.unit}
    return new
