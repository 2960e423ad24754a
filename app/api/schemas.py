"""Request bodies (responses are the service's result models)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.service.match import MatchOptions

EXAMPLE_SCENARIO: dict[str, Any] = {
    "length": 10,
    "sides": ["red", "blue"],
    "pawns": [{"id": "r1", "side": "red", "at": 0}, {"id": "b1", "side": "blue", "at": 9}],
}


class CreateGameRequest(BaseModel):
    """Create a game of ``ruleset`` from a scenario; see ``GET /rulesets/{id}`` for schemas."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "examples": [
                {
                    "ruleset": "zoc",
                    "scenario": {"…": "a scenario matching GET /rulesets/zoc schemas.scenario"},
                    "options": {},
                    "public": True,
                }
            ]
        },
    )

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


ACTION_EXAMPLES: dict[str, Any] = {
    "move": {
        "summary": "A move along a path (zoc)",
        "value": {"kind": "move", "unit": "II/61", "path": ["e3306", "e3307"]},
    },
    "step": {
        "summary": "A step of the tiny test ruleset",
        "value": {"kind": "step", "pawn": "r1", "n": 2},
    },
}
