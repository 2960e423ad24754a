"""Posture and cover (A.47): who is Holding or Advancing, and the cover a unit has now --
protective cover (buildings A.43, hasty works A.41, walls and sunken roads A.11/A.12, the
protective cover of A.47) counts in a melee only while the unit is Holding; prepared works
(A.41) and fort wall sections (A.36) do not depend on posture.

``battlefield`` answers its own ``cover`` query with these functions (its units in a zone get
the zone's cover too, its posture also knows Engaged)."""

from __future__ import annotations

from typing import Any

from app.rules.dispatch import NoOutcome
from app.rules.judgement import Judgement
from app.rules.ruling import Ruling
from app.rules.terrain.geometry import shape_of, unit_in
from app.rules.terrain.ground import Ctx, on_table
from app.rules.terrain.models import Board, Feature, Hold, Options, Posture, State, Unit


def rating(feature: Feature) -> str | None:
    """``protective`` (A.47: buildings, hasty works, walls, sunken roads, cover), ``earthworks``
    (prepared works, fort wall sections: A.41, A.36) or None."""
    if feature.kind in ("building", "protective_cover", "stone_wall"):
        return "protective"
    if feature.kind == "road" and feature.sunken:
        return "protective"
    if feature.kind == "earthworks":
        return "earthworks" if feature.works == "prepared" else "protective"
    if feature.kind == "fort" and feature.partial:
        return "earthworks"
    return None


def cover_features(board: Board, unit: Unit, options: Options) -> dict[str, list[str]]:
    """The features giving ``unit`` cover where it stands, by rating (``terrain.in-feature``
    decides whether it stands in one)."""
    found: dict[str, list[str]] = {"protective": [], "earthworks": []}
    for feature in board.features:
        kind = rating(feature)
        if kind is not None and unit_in(unit, shape_of(feature), options):
            found[kind].append(feature.id)
    return found


def cover_answer(
    j: Judgement,
    uid: str,
    posture: str,
    found: dict[str, list[str]],
    *,
    holding: bool,
    extra_cover: bool = False,
) -> dict[str, Any]:
    """The cover answer (A.47; A.41 when prepared works are found): ``in_cover`` from the
    protective features (or ``extra_cover``, e.g. a zone's), ``cover_in_melee`` only while
    ``holding``."""
    j.cite("A.47")
    if found["earthworks"]:
        j.cite("A.41")
    in_cover = bool(found["protective"]) or extra_cover
    return {
        "unit": uid,
        "posture": posture,
        "features": found["protective"],
        "earthworks": found["earthworks"],
        "in_cover": in_cover,
        "cover_in_melee": in_cover and holding,
    }


def posture_of(state: State, uid: str) -> Posture:
    """A unit not listed in ``state.postures`` is Holding."""
    return state.postures.get(uid, "holding")


def cover(ctx: Ctx, uid: str) -> dict[str, Any]:
    """The ``cover`` query: the unit's cover now (KeyError for a unit not on the table)."""
    unit = next((u for u in ctx.state.units if u.id == uid and not u.destroyed), None)
    if unit is None:
        raise KeyError(uid)
    ctx.rely("terrain.posture")
    posture = posture_of(ctx.state, uid)
    found = cover_features(ctx.board, unit, ctx.options)
    flipped = "centre" if ctx.options.in_feature == "footprint" else "footprint"
    other = cover_features(ctx.board, unit, ctx.options.model_copy(update={"in_feature": flipped}))
    if found["protective"] or found["earthworks"] or other != found:
        ctx.rely("terrain.in-feature")  # it stands in a feature, or the other reading says so
    out = cover_answer(ctx, uid, posture, found, holding=posture == "holding")
    out["citations"] = ctx.cited_ids()
    out["interpretations"] = ctx.relied_ids()
    return out


def advances(ctx: Ctx) -> None:
    """Under ``move_advances`` a legal move or charge makes the unit Advancing (A.47,
    ``terrain.posture``); a ruling that does so names the reading."""
    if ctx.options.move_advances and not ctx.refused:
        ctx.rely("terrain.posture")
        ctx.cite("A.47")


def advanced(board: Board, state: State, uid: str) -> State:
    """``state`` with ``uid`` Advancing, when moves make units Advancing (``move_advances``)."""
    if not board.options.move_advances:
        return state
    return state.model_copy(update={"postures": {**state.postures, uid: "advancing"}})


def judge_hold(ctx: Ctx, a: Hold) -> Ruling:
    unit = on_table(ctx, a.unit)
    if unit is None:
        return ctx.finish("")
    ctx.rely("terrain.posture")
    ctx.effect(
        "terrain.posture",
        f"{unit.id} is {a.posture}",
        ["A.47"],
        unit=unit.id,
        details={"posture": a.posture},
    )
    return ctx.finish(f"{unit.id} is ordered {a.posture}")


def apply_hold(board: Board, state: State, a: Hold, out: NoOutcome) -> State:
    postures = {k: v for k, v in state.postures.items() if k != a.unit}
    if a.posture != "holding":
        postures[a.unit] = a.posture
    return state.model_copy(update={"postures": postures}, deep=True)
