"""Hex grids in offset layouts, as printed on wargame maps.

Hex ids are an optional map prefix (letters) followed by the column and the row as
zero-padded digits: ``e3306`` is column 33, row 06 of map ``e``. Two layout families exist:

* ``flat`` -- flat-topped hexes in vertical columns; every other column is shifted half a hex
  down (``odd``: odd columns shifted, the default; ``even``: even columns shifted).
* ``pointy`` -- pointy-topped hexes in horizontal rows; every other row is shifted half a hex
  right (``odd`` or ``even``).

The default layout (flat, odd) reproduces the zone-of-control seed's map: ``e3306`` touches
``e3305, e3307, e3206, e3207, e3406, e3407``.

Internally hexes are converted to axial/cube coordinates (q, r) for neighbours, distance and
lines. Directions are numbered 0..5 clockwise; for flat-topped hexes 0 is north, for
pointy-topped hexes 0 is north-east. Vertex ``d`` lies between hexside directions ``d`` and
``d + 1``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Literal

# Axial direction vectors, clockwise. Flat: N, NE, SE, S, SW, NW. Pointy: NE, E, SE, SW, W, NW.
AXIAL_DIRECTIONS: tuple[tuple[int, int], ...] = (
    (0, -1),
    (1, -1),
    (1, 0),
    (0, 1),
    (-1, 1),
    (-1, 0),
)
_AXIAL_TO_DIRECTION = {v: i for i, v in enumerate(AXIAL_DIRECTIONS)}
_POINTY_SHIFT = 1  # pointy direction d uses AXIAL_DIRECTIONS[(d + 1) % 6]

DIRECTION_NAMES: dict[str, tuple[str, ...]] = {
    "flat": ("N", "NE", "SE", "S", "SW", "NW"),
    "pointy": ("NE", "E", "SE", "SW", "W", "NW"),
}
_ID_RE = re.compile(r"^([A-Za-z]*)([0-9]+)$")


class HexIdError(ValueError):
    """A hex id that does not parse under the layout (a clear error, never a crash)."""


@dataclass(frozen=True, order=True)
class Hex:
    """A hex in offset coordinates: optional map prefix, column and row."""

    prefix: str
    col: int
    row: int


@dataclass(frozen=True, order=True)
class Hexside:
    """The side shared by two adjacent hexes; the same value from either side."""

    a: str
    b: str

    @staticmethod
    def between(h1: str, h2: str) -> Hexside:
        return Hexside(h1, h2) if h1 <= h2 else Hexside(h2, h1)

    @property
    def id(self) -> str:
        return f"{self.a}/{self.b}"

    def other(self, hex_id: str) -> str:
        if hex_id == self.a:
            return self.b
        if hex_id == self.b:
            return self.a
        raise ValueError(f"{hex_id} is not on hexside {self.id}")

    def __str__(self) -> str:
        return self.id


@dataclass(frozen=True)
class HexLayout:
    """How a map numbers its hexes. Pure value; safe to share and cache."""

    orientation: Literal["flat", "pointy"] = "flat"
    offset: Literal["odd", "even"] = "odd"
    col_digits: int = 2
    row_digits: int = 2

    # -- ids ------------------------------------------------------------------------------

    def parse(self, hex_id: str) -> Hex:
        """Parse ``e3306`` into ``Hex('e', 33, 6)``; raise :class:`HexIdError` if malformed."""
        if not isinstance(hex_id, str):
            raise HexIdError(f"hex id must be a string, got {type(hex_id).__name__}")
        m = _ID_RE.match(hex_id)
        if m is None:
            raise HexIdError(
                f"malformed hex id {hex_id!r}: expected letters (optional map prefix) "
                f"then {self.col_digits}+{self.row_digits} digits, e.g. 'e3306'"
            )
        prefix, digits = m.groups()
        if len(digits) != self.col_digits + self.row_digits:
            raise HexIdError(
                f"malformed hex id {hex_id!r}: expected {self.col_digits} column digits and "
                f"{self.row_digits} row digits"
            )
        return Hex(prefix, int(digits[: self.col_digits]), int(digits[self.col_digits :]))

    def format(self, h: Hex) -> str:
        if h.col < 0 or h.row < 0:
            raise HexIdError(f"hex {h} lies off the numbered map (negative coordinate)")
        col, row = str(h.col).zfill(self.col_digits), str(h.row).zfill(self.row_digits)
        if len(col) > self.col_digits or len(row) > self.row_digits:
            raise HexIdError(f"hex {h} does not fit the layout's digit counts")
        return f"{h.prefix}{col}{row}"

    def is_valid(self, hex_id: str) -> bool:
        try:
            self.parse(hex_id)
        except HexIdError:
            return False
        return True

    # -- coordinates ----------------------------------------------------------------------

    def to_axial(self, h: Hex) -> tuple[int, int]:
        if self.orientation == "flat":
            q = h.col
            shift = (
                (h.col - (h.col & 1)) // 2 if self.offset == "odd" else (h.col + (h.col & 1)) // 2
            )
            return q, h.row - shift
        shift = (h.row - (h.row & 1)) // 2 if self.offset == "odd" else (h.row + (h.row & 1)) // 2
        return h.col - shift, h.row

    def from_axial(self, prefix: str, q: int, r: int) -> Hex:
        if self.orientation == "flat":
            shift = (q - (q & 1)) // 2 if self.offset == "odd" else (q + (q & 1)) // 2
            return Hex(prefix, q, r + shift)
        shift = (r - (r & 1)) // 2 if self.offset == "odd" else (r + (r & 1)) // 2
        return Hex(prefix, q + shift, r)

    def _axial_dir(self, direction: int) -> tuple[int, int]:
        d = direction % 6
        if self.orientation == "pointy":
            d = (d + _POINTY_SHIFT) % 6
        return AXIAL_DIRECTIONS[d]

    # -- adjacency ------------------------------------------------------------------------

    def neighbor(self, hex_id: str, direction: int) -> str | None:
        """The hex across hexside ``direction`` (0..5), or None if it falls off the numbering."""
        h = self.parse(hex_id)
        q, r = self.to_axial(h)
        dq, dr = self._axial_dir(direction)
        n = self.from_axial(h.prefix, q + dq, r + dr)
        if n.col < 0 or n.row < 0:
            return None
        try:
            return self.format(n)
        except HexIdError:
            return None

    def neighbors(self, hex_id: str) -> list[str]:
        """The (up to six) adjacent hex ids, in direction order."""
        out = []
        for d in range(6):
            n = self.neighbor(hex_id, d)
            if n is not None:
                out.append(n)
        return out

    def direction(self, from_id: str, to_id: str) -> int | None:
        """The direction (0..5) from one hex to an adjacent one; None if not adjacent."""
        a, b = self.parse(from_id), self.parse(to_id)
        if a.prefix != b.prefix:
            return None
        qa, ra = self.to_axial(a)
        qb, rb = self.to_axial(b)
        d = _AXIAL_TO_DIRECTION.get((qb - qa, rb - ra))
        if d is None:
            return None
        if self.orientation == "pointy":
            d = (d - _POINTY_SHIFT) % 6
        return d

    def adjacent(self, a: str, b: str) -> bool:
        return self.direction(a, b) is not None

    def hexside(self, a: str, b: str) -> Hexside:
        """The hexside between two adjacent hexes; HexIdError if they are not adjacent."""
        if not self.adjacent(a, b):
            raise HexIdError(f"{a} and {b} are not adjacent: they share no hexside")
        return Hexside.between(a, b)

    def direction_name(self, direction: int) -> str:
        return DIRECTION_NAMES[self.orientation][direction % 6]

    def vertex_directions(self, vertex: int) -> tuple[int, int]:
        """The two hexside directions that meet at vertex ``vertex``."""
        return vertex % 6, (vertex + 1) % 6

    # -- metric ---------------------------------------------------------------------------

    def distance(self, a: str, b: str) -> int:
        """Hex distance (number of hex steps). Hexes on different map prefixes raise."""
        ha, hb = self.parse(a), self.parse(b)
        if ha.prefix != hb.prefix:
            raise HexIdError(f"{a} and {b} lie on different maps ({ha.prefix!r}/{hb.prefix!r})")
        qa, ra = self.to_axial(ha)
        qb, rb = self.to_axial(hb)
        dq, dr = qa - qb, ra - rb
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def within(self, center: str, radius: int) -> list[str]:
        """Every numbered hex at distance <= radius of ``center`` (center included)."""
        return list(_within(self, center, radius))

    def _within(self, center: str, radius: int) -> list[str]:
        h = self.parse(center)
        q0, r0 = self.to_axial(h)
        out: list[str] = []
        for dq in range(-radius, radius + 1):
            for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
                n = self.from_axial(h.prefix, q0 + dq, r0 + dr)
                if n.col < 0 or n.row < 0:
                    continue
                try:
                    out.append(self.format(n))
                except HexIdError:
                    continue
        return out

    def line(self, a: str, b: str) -> list[str]:
        """The hexes of a straight line from ``a`` to ``b`` (both included).

        Uses cube interpolation with a tiny nudge so that lines along a hexside pick
        a consistent side. Where that side leaves the numbered grid (a line along the
        map's edge, e.g. ``e0199`` to ``e2599``: its ties would fall on row 100), the line
        takes the other side throughout, which is on the grid.
        """
        try:
            return self._line(a, b, 1e-6)
        except HexIdError:
            return self._line(a, b, -1e-6)

    def _line(self, a: str, b: str, eps: float) -> list[str]:
        ha, hb = self.parse(a), self.parse(b)
        n = self.distance(a, b)
        qa, ra = self.to_axial(ha)
        qb, rb = self.to_axial(hb)
        out: list[str] = []
        for i in range(n + 1):
            t = i / n if n else 0.0
            q = qa + eps + (qb - qa) * t
            r = ra + 2 * eps + (rb - ra) * t
            s = -qa - ra - 3 * eps + ((-qb - rb) - (-qa - ra)) * t
            rq, rr, rs = round(q), round(r), round(s)
            dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
            if dq > dr and dq > ds:
                rq = -rr - rs
            elif dr > ds:
                rr = -rq - rs
            out.append(self.format(self.from_axial(ha.prefix, rq, rr)))
        return out

    def ring(self, center: str, radius: int) -> Iterator[str]:
        for h in self.within(center, radius):
            if self.distance(center, h) == radius:
                yield h

    @cached_property
    def description(self) -> str:
        side = "columns" if self.orientation == "flat" else "rows"
        return f"{self.orientation}-topped hexes in {side}, {self.offset} {side} shifted"


@lru_cache(maxsize=256)
def _within(layout: HexLayout, center: str, radius: int) -> tuple[str, ...]:
    return tuple(layout._within(center, radius))


DEFAULT_LAYOUT = HexLayout()
