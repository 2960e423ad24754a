"""Melee retreats under rule 14: increments lost for zone hexes left behind."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.rules.judgement import Problem, count_of
from app.rules.ruling import Effect, Ruling, Violation
from app.rules.zoi import search
from app.rules.zoi.catalog import I_RETREAT_HEXES
from app.rules.zoi.models import (
    MeleeEntry,
    MeleeRetreatAction,
    MeleeRetreatOutcome,
    Unit,
    ZoiBoard,
    ZoiState,
)
from app.rules.zoi.zones import (
    Game,
    cites,
    class_keys,
    is_combat,
    missing_unit,
    ruling,
    unit_named,
    violation,
)

INCREMENT_LOST = "zoi.increment_lost"
LOSS_AVOIDED = "zoi.loss_avoided"
MELEE_RESULT = "zoi.melee_result"
ELIMINATED = "zoi.eliminated"


@dataclass
class RetreatOutcome:
    violation: Violation | None = None
    effects: list[Effect] = field(default_factory=list)
    sections: set[str] = field(default_factory=set)
    consulted: set[str] = field(default_factory=set)
    details: dict[str, Any] = field(default_factory=dict)


def matrix_entry(game: Game, unit: Unit, result: str, condition: str | None) -> MeleeEntry | None:
    """The melee matrix row for this unit, condition and result (most specific first)."""
    types = (*class_keys(unit), "*")
    conditions = (condition, "*") if condition else ("*",)
    for t in types:
        for c in conditions:
            for row in game.board.melee_matrix:
                if row.type == t and row.condition == c and row.result == result:
                    return row
    return None


def retreater_refusal(unit: Unit) -> Violation | None:
    """14.melee-retreat: only a combat formation retreats from a melee; a leader is refused.
    Shared by the ruling and "what can I do now" (``available.py``)."""
    if not is_combat(unit):
        return violation(
            "zoi.not_combat_unit",
            f"{unit.id} is a leader, not a combat formation.",
            ["14.melee-retreat"],
            unit=unit.id,
        )
    return None


def retreat_step_refusal(
    game: Game, unit: Unit, previous: str, h: str, seen: set[str], step: int
) -> Violation | None:
    """Why the retreat may not go from ``previous`` into ``h`` (``step`` of its path, hexes
    ``seen`` so far), or None: on the map, adjacent, not twice, no enemy, open terrain
    (movement)."""
    code, message = "", ""
    if not game.on_map(h):
        code, message = "zoi.off_map", f"{h} is not a hex of this map."
    elif not game.layout.adjacent(previous, h):
        code, message = "zoi.not_adjacent", f"{h} is not adjacent to {previous}."
    elif h in seen:
        code, message = "zoi.bad_path", f"The retreat passes through {h} twice."
    elif game.enemies_in(h, unit.side):
        code, message = "zoi.occupied", f"{h} holds enemy units."
    elif game.terrain_cost(unit, h) is None:
        code, message = "zoi.prohibited_terrain", f"{unit.id} may not enter {h}."
    if code:
        return violation(code, message, ["movement"], step=step, hex=h, unit=unit.id)
    return None


def may_melee_retreat(game: Game, unit: Unit) -> bool:
    """Whether some melee retreat of ``unit`` is legal now (the phase aside): it is a combat
    formation and a first hex of a path is open to it -- a one-hex retreat with no matrix
    result is then legal, and no retreat is legal without such a hex. The same checks as
    :func:`judge_retreat`, for ``available.py``."""
    if retreater_refusal(unit) is not None:
        return False
    seen = {unit.hex}
    return any(
        retreat_step_refusal(game, unit, unit.hex, h, seen, 0) is None
        for _, h in game.adjacent_on_map(unit.hex)
    )


def judge_retreat(game: Game, unit: Unit, action: MeleeRetreatAction) -> RetreatOutcome:
    """Check the retreat path and count the increments lost hex by hex (14.melee-retreat)."""
    out = RetreatOutcome()
    refused = retreater_refusal(unit)
    if refused is not None:
        out.violation = refused
        return out
    result_loss = 0
    if action.result is not None:
        row = matrix_entry(game, unit, action.result, action.condition)
        out.sections.add("14.melee-matrix")
        if row is None:
            out.violation = violation(
                "zoi.unknown_result",
                f"The melee matrix has no result {action.result!r} for {unit.type}"
                + (f" ({action.condition})" if action.condition else "")
                + ".",
                ["14.melee-matrix"],
                unit=unit.id,
            )
            return out
        if row.retreat != len(action.path):
            out.violation = violation(
                "zoi.bad_retreat_length",
                f"Result {row.result} retreats {row.retreat} hex(es); the path has "
                f"{len(action.path)}.",
                ["14.melee-matrix"],
                unit=unit.id,
                expected=row.retreat,
            )
            return out
        result_loss = row.loss
    previous = unit.hex
    seen = {unit.hex}
    for i, h in enumerate(action.path):
        step_refused = retreat_step_refusal(game, unit, previous, h, seen, i)
        if step_refused is not None:
            out.violation = step_refused
            return out
        seen.add(h)
        previous = h
    out.consulted.add(I_RETREAT_HEXES)
    if game.options.retreat_loss_hexes == "exited":
        counted = [unit.hex, *action.path[:-1]]
    else:
        counted = list(action.path)
    out.sections.add("14.melee-retreat")
    if result_loss:
        out.effects.append(
            Effect(
                kind=MELEE_RESULT,
                message=f"Result {action.result}: {unit.id} loses {result_loss} increment(s).",
                unit=unit.id,
                citations=cites(["14.melee-matrix"]),
                details={"result": action.result, "loss": result_loss},
            )
        )
    by_hex: list[dict[str, Any]] = []
    zone_loss = 0
    # A unit cannot lose more increments than it has: once it is down to zero it is eliminated
    # and the rest of the path is never walked (14.melee-retreat).
    left = max(unit.increments - result_loss, 0)
    where = [unit.hex, *action.path]
    elim_hex: str | None = unit.hex if left == 0 else None
    for n, h in enumerate(counted):
        if left == 0:
            break
        src = game.enemy_zone(h, unit.side, out.consulted)
        by = tuple(sorted({s.unit for s in src}))
        friends = [f.id for f in game.friendly_combat_in(h, unit.side, unit.id)]
        loss = 1 if by and not friends else 0
        zone_loss += loss
        left -= loss
        if left == 0:
            # Leaving a hex, the unit dies on entering the next one; under the "entered"
            # reading it dies in the hex it entered.
            elim_hex = where[n + 1] if game.options.retreat_loss_hexes == "exited" else h
        by_hex.append({"hex": h, "zone_by": list(by), "friendly": friends, "loss": loss})
        if by and friends:
            out.sections.add("14.melee-retreat.friendly")
            out.effects.append(
                Effect(
                    kind=LOSS_AVOIDED,
                    message=f"{h} lies in the zone of {', '.join(by)} but {', '.join(friends)} "
                    f"hold it: no loss.",
                    unit=unit.id,
                    hex=h,
                    by=by,
                    citations=cites(["14.melee-retreat", "14.melee-retreat.friendly"]),
                    details={"friendly": friends},
                )
            )
        elif by:
            out.effects.append(
                Effect(
                    kind=INCREMENT_LOST,
                    message=f"{unit.id} loses an increment "
                    + ("leaving" if game.options.retreat_loss_hexes == "exited" else "entering")
                    + f" {h}, in the zone of "
                    f"{', '.join(by)}.",
                    unit=unit.id,
                    hex=h,
                    by=by,
                    citations=cites(["14.melee-retreat"]),
                    details={"loss": 1},
                )
            )
    after = left
    if after == 0:
        out.effects.append(
            Effect(
                kind=ELIMINATED,
                message=f"{unit.id} is reduced to zero increments and eliminated in {elim_hex}.",
                unit=unit.id,
                hex=elim_hex,
                citations=cites(["14.melee-retreat"]),
            )
        )
    out.details = {
        "hexes": by_hex,
        "zone_loss": zone_loss,
        "result_loss": result_loss,
        "increments_before": unit.increments,
        "increments_after": after,
        "eliminated": after == 0,
        "final_hex": action.path[-1] if elim_hex is None else elim_hex,
    }
    return out


def retreat_names(game: Game, action: MeleeRetreatAction) -> Problem | None:
    """``Kind.names``: the unit the action names is not in this game."""
    return missing_unit(game, action.unit, "14.melee-retreat")


def judge_melee_retreat(game: Game, action: MeleeRetreatAction) -> Ruling:
    """Judge a melee retreat (14.melee-retreat): the path, and the increments it costs."""
    unit = unit_named(game, action.unit, "14.melee-retreat")
    if isinstance(unit, Ruling):
        return unit
    out = judge_retreat(game, unit, action)
    if out.violation is not None:
        return ruling(
            game,
            out.violation.message,
            violations=(out.violation,),
            sections=["14", *out.sections],
            consulted=out.consulted,
        )
    d = out.details
    zone_loss = (
        f"losing {count_of(d['zone_loss'], 'increment')} to enemy zones"
        if d["zone_loss"]
        else "losing nothing to enemy zones"
    )
    summary = (
        f"{unit.id} retreats to {d['final_hex']}, {zone_loss}"
        + (f" and {d['result_loss']} to the melee result" if d["result_loss"] else "")
        + f": {d['increments_before']} -> {d['increments_after']} increments"
        + ("; eliminated." if d["eliminated"] else ".")
    )
    return ruling(
        game,
        summary,
        effects=out.effects,
        sections=["14", *out.sections],
        consulted=out.consulted,
        details=d,
    )


def apply_melee_retreat(
    board: ZoiBoard, state: ZoiState, action: MeleeRetreatAction, outcome: MeleeRetreatOutcome
) -> ZoiState:
    """The unit stands in the hex it retreated to with the increments it kept; with none
    left it is eliminated."""
    if outcome.increments_after <= 0:
        units = [u for u in state.units if u.id != action.unit]
        new = state.model_copy(
            update={"units": units, "eliminated": [*state.eliminated, action.unit]}
        )
        return search.moved_to(state, new, action.unit)  # the search's look-ups handed on
    update = {"hex": outcome.final_hex, "increments": outcome.increments_after}
    units = [u.model_copy(update=update) if u.id == action.unit else u for u in state.units]
    return search.moved_to(state, state.model_copy(update={"units": units}), action.unit)
