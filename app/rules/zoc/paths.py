"""Basic movement rules every ``zoc`` path obeys (the ``basic.path`` section): the unit is on
the map, and each hex entered parses, lies on the map and touches the one before."""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.judgement import Problem
from app.rules.zoc.context import Context
from app.rules.zoc.models import Unit


def find_unit(ctx: Context, unit_id: str) -> Unit | Problem:
    """The unit, on the map; else the well-formedness problem."""
    unit = ctx.units.get(unit_id)
    if unit is None:
        return Problem("zoc.unknown_unit", f"There is no unit {unit_id!r}.", ["basic.path"])
    if unit.hex is None:
        return Problem(
            "zoc.unit_off_map", f"{unit_id} is not on the map.", ["basic.path"], unit=unit_id
        )
    return unit


def unit_and_path(
    ctx: Context, unit_id: str, path: Sequence[str]
) -> tuple[Unit, str, list[str]] | Problem:
    """The unit (on the map), its hex and the hexes its ``path`` enters (see
    :func:`without_start`); else the well-formedness problem of :func:`find_unit`."""
    found = find_unit(ctx, unit_id)
    if isinstance(found, Problem):
        return found
    assert found.hex is not None
    return found, found.hex, without_start(found.hex, path)


def without_start(start: str, path: Sequence[str]) -> list[str]:
    """The hexes entered: a path that repeats the unit's own hex first (a common front-end
    habit, e.g. ``[e3107, e3207]`` for a unit in e3107) means the same as one without it."""
    hexes = list(path)
    if hexes and hexes[0] == start:
        return hexes[1:]
    return hexes


def check_path(ctx: Context, start: str, path: Sequence[str], unit: str) -> Problem | None:
    """Well-formed path: every id parses, lies on the map, and touches the previous hex."""
    layout = ctx.board.layout.layout()
    prev = start
    for i, hex_id in enumerate(path, start=1):
        if not layout.is_valid(hex_id):
            return Problem(
                "zoc.bad_hex_id",
                f"Step {i}: {hex_id!r} is not a hex id of this map's layout.",
                ["basic.path"],
                step=i,
                hex=hex_id,
                unit=unit,
            )
        if not ctx.on_map(hex_id):
            return Problem(
                "zoc.off_map",
                f"Step {i}: hex {hex_id} is not on the map.",
                ["basic.path"],
                step=i,
                hex=hex_id,
                unit=unit,
            )
        if not ctx.topo.adjacent(prev, hex_id):
            return Problem(
                "zoc.path_not_contiguous",
                f"Step {i}: {hex_id} is not adjacent to {prev}.",
                ["basic.path"],
                step=i,
                hex=hex_id,
                unit=unit,
                details={"from": prev},
            )
        prev = hex_id
    return None


def names(units: Sequence[Unit]) -> str:
    return ", ".join(u.id for u in units)
