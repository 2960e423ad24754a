"""Turn a validated :class:`ZoiScenario` into a :class:`ZoiBoard` and an initial
:class:`ZoiState`, merging the scenario's tables over the defaults (:mod:`.tables`); the sequence
of play and what a new phase records."""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.base import Position
from app.rules.geometry.hexgrid import Hex
from app.rules.judgement import Judgement
from app.rules.refs import UnitRefs, repeats
from app.rules.zoi import tables
from app.rules.zoi.catalog import CATALOG
from app.rules.zoi.facing import needs_facing
from app.rules.zoi.models import (
    ChangeCosts,
    FrontSpec,
    MeleeEntry,
    Unit,
    ZoiBoard,
    ZoiOptions,
    ZoiScenario,
    ZoiState,
)
from app.rules.zoi.sequence import PHASES as PHASES
from app.rules.zoi.zones import Game, is_combat

MAX_HEXES = 40_000
"""Largest map a scenario may define (a bound on the work and storage one request causes)."""


def generated_hexes(scenario: ZoiScenario) -> int:
    """The hexes of the map rectangle, which the document does not list."""
    (c0, c1), (r0, r1) = scenario.map.columns, scenario.map.rows
    return max(0, c1 - c0 + 1) * max(0, r1 - r0 + 1)


def build(sc: ZoiScenario, options: ZoiOptions) -> tuple[ZoiBoard, ZoiState]:
    """Build board and initial state; raise :class:`InvalidScenario` if inconsistent."""
    check = Judgement(CATALOG)

    def err(
        loc: Sequence[str | int], msg: str, code: str, sections: Sequence[str] = ("movement",)
    ) -> None:
        check.problem(f"zoi.scenario.{code}", loc, msg, sections)

    layout = sc.map.layout.layout()
    hexes: dict[str, str] = {}
    c0, c1 = sc.map.columns
    r0, r1 = sc.map.rows
    if c0 > c1 or r0 > r1 or c0 < 0 or r0 < 0:
        err(["map"], "column and row ranges must be non-negative and ascending", "bad_map")
    elif (c1 - c0 + 1) * (r1 - r0 + 1) > MAX_HEXES:
        err(["map"], f"the map has more than {MAX_HEXES} hexes", "map_too_large")
        c1 = c0 - 1  # build nothing: the scenario is refused below
    for c in range(c0, c1 + 1):
        for r in range(r0, r1 + 1):
            try:
                h = layout.format(_hex(sc.map.prefix, c, r))
            except ValueError as exc:
                err(["map"], str(exc), "bad_hex_id")
                break
            hexes[h] = sc.map.default_terrain
    terrain_costs: dict[str, dict[str, int | None]] = {
        k: dict(v) for k, v in tables.TERRAIN_COSTS.items()
    }
    terrain_costs.update(sc.terrain_costs)
    for h, t in sc.map.terrain.items():
        if h not in hexes:
            err(["map", "terrain", h], f"{h} is not a hex of the map", "off_map")
        hexes[h] = t
    for h, t in sorted(hexes.items()):
        if t not in terrain_costs:
            err(
                ["map", "terrain", h],
                f"terrain {t!r} has no row in the terrain cost table",
                "terrain_without_cost",
                ("movement",),
            )
            break
    front: dict[str, FrontSpec] = {
        k: FrontSpec.model_validate(v) for k, v in tables.FRONT_TABLE.items()
    }
    for k, spec in sc.front_table.items():
        if spec is None:
            front.pop(k, None)
        else:
            front[k] = spec
    costs = {k: ChangeCosts.model_validate(v) for k, v in tables.CHANGE_COSTS.items()}
    costs.update(sc.change_costs)
    matrix = (
        sc.melee_matrix
        if sc.melee_matrix is not None
        else [MeleeEntry.model_validate(r) for r in tables.MELEE_MATRIX]
    )
    side_ids = [s.id for s in sc.sides]
    if repeats(side_ids):
        err(["sides"], "duplicate side id", "duplicate_id")
    board = ZoiBoard(
        name=sc.name,
        layout=sc.map.layout,
        hexes=hexes,
        sides=sc.sides,
        front_table=front,
        change_costs=costs,
        terrain_costs=terrain_costs,
        melee_matrix=matrix,
    )
    phasing = sc.phasing or side_ids[0]
    if phasing not in side_ids:
        err(["phasing"], f"unknown side {phasing!r}", "unknown_side")
    state = ZoiState(turn=sc.turn, phase=sc.phase, phasing=phasing, units=sc.units)
    game = Game(board, state, options)
    refs = UnitRefs(side_ids)
    for n, u in enumerate(sc.units):
        for field, code, msg, sections in _unit_errors(game, u, refs):
            err(["units", n, field], f"{u.id}: {msg}", code, sections)
        if refs.duplicate(u.id):
            err(["units", n, "id"], f"duplicate unit id {u.id!r}", "duplicate_id")
    for h, us in game.by_hex.items():
        if len({u.side for u in us}) > 1:
            err(["units"], f"units of different sides share {h}", "mixed_stack")
    check.raise_if_refused("the zoi scenario is inconsistent")
    if state.phase == "movement":
        state = state.model_copy(update={"phase_start": snapshot(state)})
    return board, state


def advance(state: ZoiState, nxt: Position) -> ZoiState:
    """The state at ``nxt``; entering the movement phase records where every unit starts it
    (rule 14: leaving a zone is allowed only at the start of the movement)."""
    phasing = nxt.phasing_side or state.phasing
    update = {"phase": nxt.phase, "phasing": phasing, "turn": nxt.turn}
    new = state.model_copy(update=update)
    if nxt.phase == "movement":
        new = new.model_copy(update={"moved": [], "phase_start": snapshot(new)})
    return new


def _hex(prefix: str, col: int, row: int) -> Hex:
    return Hex(prefix, col, row)


def snapshot(state: ZoiState) -> dict[str, str]:
    """Where the phasing side's units stand (the start of a movement phase)."""
    return {u.id: u.hex for u in state.units if u.side == state.phasing}


_UnitError = tuple[str, str, str, tuple[str, ...]]
"""(field, code, message, sections) of one problem with a scenario unit."""

_FRONT = ("movement", "14.front")


def _unit_errors(game: Game, u: Unit, refs: UnitRefs) -> list[_UnitError]:
    out: list[_UnitError] = []
    if refs.unknown_side(u.side):
        out.append(("side", "unknown_side", f"unknown side {u.side!r}", ("movement",)))
    if u.hex not in game.board.hexes:
        out.append(("hex", "off_map", f"hex {u.hex!r} is not on the map", ("movement",)))
    subtypes = tables.SUBTYPES[u.type]
    if subtypes and u.subtype not in subtypes:
        msg = f"{u.type} needs a subtype among {', '.join(subtypes)}"
        out.append(("subtype", "bad_subtype", msg, ("movement",)))
    if not subtypes and u.subtype is not None:
        out.append(("subtype", "bad_subtype", f"{u.type} takes no subtype", ("movement",)))
    if not is_combat(u):
        if u.formation is not None or u.facing is not None:
            msg = "leaders have no formation and no facing"
            out.append(("formation", "leader_formation", msg, _FRONT))
        return out
    if u.formation is None:
        out.append(("formation", "no_formation", "a combat unit needs a formation", _FRONT))
        return out
    spec = game.front_spec(u)
    if spec is None:
        msg = f"formation {u.formation!r} is not in the facing table for {u.type}"
        out.append(("formation", "unknown_formation", msg, _FRONT))
    elif needs_facing(spec) and u.facing is None:
        msg = f"a unit in {u.formation} needs a facing (0..5)"
        out.append(("facing", "no_facing", msg, _FRONT))
    elif not needs_facing(spec) and u.facing is not None:
        out.append(("facing", "facing", f"a unit in {u.formation} has no facing", _FRONT))
    if u.increments < 1:
        msg = "a combat unit needs at least one increment"
        out.append(("increments", "no_increments", msg, ("movement",)))
    return out
