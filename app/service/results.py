"""What the use cases return: plain pydantic models (also the API's response schemas)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.rules.catalog import Interpretation
from app.rules.ruling import Ruling


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class RulesetSummary(_Out):
    id: str = Field(examples=["zoc"])
    version: str = Field(examples=["1.0"])
    title: str
    description: str = ""
    source: str = ""


class SectionInfo(_Out):
    id: str = Field(examples=["8.2"])
    title: str
    summary: str


class QueryInfo(_Out):
    name: str
    description: str
    params: dict[str, Any] = Field(description="JSON schema of the query-string parameters.")


class RulesetSchemas(_Out):
    scenario: dict[str, Any]
    options: dict[str, Any]
    actions: dict[str, dict[str, Any]] = Field(description="Action kind -> JSON schema.")


class RulesetInfo(RulesetSummary):
    catalog: list[SectionInfo]
    interpretations: list[Interpretation]
    schemas: RulesetSchemas
    queries: list[QueryInfo]
    example_scenario: dict[str, Any] | None = None


class CreatedGame(_Out):
    id: str
    ruleset: str
    ruleset_version: str
    version: int
    public: bool
    seats: dict[str, str] = Field(
        description="Seat name (each side, and `umpire`) -> bearer token. Shown only once."
    )


class SideInfo(_Out):
    name: str
    label: str


class GameView(_Out):
    id: str
    ruleset: str
    ruleset_version: str
    version: int
    status: str
    public: bool
    sides: list[SideInfo]
    seat: str | None = Field(description="The seat of the bearer token, null if anonymous.")
    state: dict[str, Any] = Field(description="The state as the ruleset lets this seat see it.")
    created_at: datetime
    updated_at: datetime


class ScenarioView(_Out):
    game: str
    ruleset: str
    ruleset_version: str
    digest: str = Field(description="SHA-256 of the board's canonical JSON.")
    scenario: dict[str, Any]
    board: dict[str, Any]


class EventView(_Out):
    seq: int
    seat: str
    kind: str
    action: dict[str, Any]
    ruling: Ruling
    dice: list[int]
    version: int = Field(description="The game version this event produced.")
    created_at: datetime


class EventPage(_Out):
    items: list[EventView]
    next: int | None = Field(
        description="Pass as `after` to get the next page; null when this page is the last."
    )


class ActionResult(_Out):
    event: int = Field(description="Sequence number of the appended event.")
    version: int = Field(description="The game version after the action (the new ETag).")
    ruling: Ruling
    state: dict[str, Any]


class DryRun(_Out):
    version: int
    ruling: Ruling


class QueryResult(_Out):
    query: str
    version: int
    result: Any


class ActionOutcome(_Out):
    """An accepted action's outcome, or the stored one on a retry (``body`` is JSON text,
    identical byte for byte on every replay)."""

    status: int
    body: str
    event: int
    version: int
    replayed: bool = False
