"""Facing: which hexside directions are front for a facing-table row and a facing number.

A small addition to the shared grid (:mod:`app.rules.geometry.hexgrid`), which numbers
directions 0..5 clockwise and puts vertex ``d`` between hexside directions ``d`` and ``d + 1``.

* hexside facing ``d`` with front ``n`` (odd): hexsides ``d - (n-1)/2 .. d + (n-1)/2``;
* vertex facing ``d`` with front ``n`` (even): hexsides ``d - (n/2 - 1) .. d + n/2``;
* ``all``: the six hexsides; ``none``: no hexside.
"""

from __future__ import annotations

from app.rules.zoi.models import FrontSpec

ALL_DIRECTIONS: tuple[int, ...] = (0, 1, 2, 3, 4, 5)


def front_directions(spec: FrontSpec, facing: int | None) -> tuple[int, ...]:
    """The front hexside directions, in ascending order.

    >>> front_directions(FrontSpec(faces="hexside", front=3), 0)
    (0, 1, 5)
    >>> front_directions(FrontSpec(faces="vertex", front=2), 5)
    (0, 5)
    """
    if spec.faces == "none":
        return ()
    if spec.faces == "all":
        return ALL_DIRECTIONS
    if facing is None:
        return ()
    if spec.faces == "hexside":
        half = (spec.front - 1) // 2
        return tuple(sorted({(facing + k) % 6 for k in range(-half, half + 1)}))
    half = spec.front // 2
    return tuple(sorted({(facing + k) % 6 for k in range(-(half - 1), half + 1)}))


def needs_facing(spec: FrontSpec) -> bool:
    """Whether a unit in this formation must carry a facing number."""
    return spec.faces in ("hexside", "vertex")
