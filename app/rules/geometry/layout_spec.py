"""The scenario field that says how a map numbers its hexes, shared by the hex rulesets."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.rules.geometry.hexgrid import HexLayout


class LayoutSpec(BaseModel):
    """How the map numbers its hexes (see :class:`app.rules.geometry.HexLayout`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    orientation: Literal["flat", "pointy"] = "flat"
    offset: Literal["odd", "even"] = "odd"
    col_digits: int = Field(default=2, ge=1, le=4)
    row_digits: int = Field(default=2, ge=1, le=4)

    def layout(self) -> HexLayout:
        return HexLayout(self.orientation, self.offset, self.col_digits, self.row_digits)
