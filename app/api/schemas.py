"""Request bodies (responses are the service's result models)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.service.match import MatchOptions


class CreateGameRequest(BaseModel):
    """Create a game of ``ruleset`` from a scenario; see ``GET /rulesets/{id}`` for schemas."""

    model_config = ConfigDict(extra="forbid", strict=True)

    ruleset: str = Field(min_length=1, max_length=64, description="A ruleset id.")
    scenario: dict[str, Any] = Field(description="Validated by the ruleset's scenario schema.")
    options: dict[str, Any] = Field(
        default_factory=dict, description="Per-game options (house rules, interpretations)."
    )
    public: bool = Field(
        default=True,
        description="True: anyone may read the game. False: only holders of its seat tokens.",
    )
    match: MatchOptions | None = Field(
        default=None,
        description="Match options: clock (time control), physical_dice, takeback, "
        "enforce_sequence. Omitted: untimed, derived dice, no takebacks, sequence enforced.",
    )
