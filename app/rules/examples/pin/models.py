"""The toy's documents: scenario, board (what never changes), state (what moves), options
and its one action."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Side(_Model):
    id: str = Field(min_length=1, max_length=40)
    label: str = ""


class Unit(_Model):
    id: str = Field(min_length=1, max_length=40)
    side: str
    at: tuple[int, int]
    """(column, row) of the square it stands on."""


class Scenario(_Model):
    title: str = ""
    width: int = Field(ge=1, le=100)
    height: int = Field(ge=1, le=100)
    sides: list[Side] = Field(min_length=1, max_length=8)
    units: list[Unit] = Field(default_factory=list, max_length=500)


class Board(_Model):
    width: int
    height: int
    sides: list[Side]


class State(_Model):
    units: list[Unit]


class Options(_Model):
    """The toy has no ambiguous rule, so no option."""


class Move(_Model):
    kind: Literal["move"] = "move"
    unit: str
    to: tuple[int, int]


Action = Move
