"""Who counts as what on terrain (A.44-A.46): skirmishers, limbers, the ground closed to a
unit and the movement maximum in woods and rough; the per-ruling judgement type; whether a
unit stands in a feature (``terrain.in-feature``)."""

from __future__ import annotations

from typing import Any

from app.rules.base import RulesError
from app.rules.judgement import GameJudgement
from app.rules.terrain.geometry import HEAVY, LIGHT, ROUGH, unit_in
from app.rules.terrain.models import Board, Options, State, Unit

Ctx = GameJudgement[Board, State, Options]
"""One terrain judgement: the kit's bookkeeping and the game it judges."""


WHEELED = frozenset({"wagon", "limber", "artillery"})
OBSTACLES = frozenset({"fence", "stone_wall"})
HEAVY_SKIRMISH_CAP = 60.0  # A.44
LIGHT_FORMED_CAP = 40.0  # A.45
PROLONGE_CAP = 20.0  # A.45
ROUGH_INFANTRY_CAP = 60.0  # A.46


# -- who counts as what -------------------------------------------------------------------


def is_skirmish(unit: Unit, options: Options) -> bool:
    """Skirmish order (unformed troops too under ``unformed_counts_as: skirmish``)."""
    if unit.order == "skirmish":
        return True
    return unit.order == "unformed" and options.unformed_counts_as == "skirmish"


def is_limber(unit: Unit, options: Options) -> bool:
    if unit.type == "limber":
        return True
    return unit.type == "artillery" and unit.limbered and options.limbered_guns_as_limbers


def closed_reason(unit: Unit, kind: str, options: Options) -> tuple[str, str] | None:
    """(clause, reason) when woods or rough are closed to the unit, else None."""
    if kind in HEAVY:
        if unit.type == "wagon" or is_limber(unit, options):
            return "A.44", "heavy woods are closed to wagons and limbers"
        if unit.type == "artillery" and options.guns_in_heavy_woods == "closed":
            return "A.44", "heavy woods are closed to guns (interpretation)"
        if unit.type in ("infantry", "cavalry") and not is_skirmish(unit, options):
            return "A.44", f"heavy woods are closed to formed {unit.type}"
        return None
    if kind in LIGHT:
        if unit.type == "wagon" or is_limber(unit, options):
            return "A.45", "light woods are closed to wagons and limbers"
        return None
    if kind in ROUGH and unit.type == "cavalry" and not is_skirmish(unit, options):
        return "A.46", "rough is closed to formed cavalry"
    return None


def movement_cap(unit: Unit, kind: str, options: Options) -> tuple[str, float, str] | None:
    """(clause, yards, why) of the movement/charge maximum in woods or rough, else None."""
    if kind in HEAVY:
        if unit.type == "artillery" and not unit.limbered:
            return "A.45", PROLONGE_CAP, "unlimbered guns go by prolonge"
        if is_skirmish(unit, options):
            return "A.44", HEAVY_SKIRMISH_CAP, "skirmishers in heavy woods"
        return None
    if kind in LIGHT:
        if unit.type == "artillery" and not unit.limbered:
            return "A.45", PROLONGE_CAP, "unlimbered guns go by prolonge"
        if unit.type in ("infantry", "cavalry") and not is_skirmish(unit, options):
            return "A.45", LIGHT_FORMED_CAP, "formed troops in light woods"
        return None
    if kind in ROUGH and unit.type == "infantry" and not is_skirmish(unit, options):
        return "A.46", ROUGH_INFANTRY_CAP, "formed infantry in rough"
    return None


def in_feature(ctx: Ctx, unit: Unit, shape: Any) -> bool:
    """Is ``unit`` in the feature? Names ``terrain.in-feature`` whenever the answer is yes or
    the other reading would answer differently (the ruling then depends on the reading)."""
    inside = unit_in(unit, shape, ctx.options)
    other = ctx.options.model_copy(
        update={"in_feature": "centre" if ctx.options.in_feature == "footprint" else "footprint"}
    )
    if inside or unit_in(unit, shape, other) != inside:
        ctx.rely("terrain.in-feature")
    return inside


def find_unit(state: State, uid: str) -> Unit | None:
    return next((u for u in state.units if u.id == uid), None)


def on_table(ctx: Ctx, uid: str) -> Unit | None:
    """The unit ``uid`` if it stands on the table; else None, refused (T.Scenario)."""
    unit = find_unit(ctx.state, uid)
    if unit is None or unit.destroyed:
        ctx.reject("terrain.unknown_unit", f"no unit {uid} on the table", ("T.Scenario",), unit=uid)
        return None
    return unit


def actor(ctx: Ctx, uid: str) -> Unit | None:
    """The acting unit (see :func:`on_table`); dice a d10 cannot show are the caller's error."""
    unit = on_table(ctx, uid)
    if unit is not None and any(not 0 <= d <= 10 for d in ctx.dice):
        raise RulesError("a d10 reads 0-10")
    return unit
