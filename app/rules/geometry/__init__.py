"""Board geometry shared by every ruleset: hex grids (offset layouts, hexsides, facing)."""

from __future__ import annotations

from app.rules.geometry.hexgrid import (
    DEFAULT_LAYOUT,
    Hex,
    HexIdError,
    HexLayout,
    Hexside,
)

__all__ = ["DEFAULT_LAYOUT", "Hex", "HexIdError", "HexLayout", "Hexside"]
