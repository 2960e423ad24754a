"""Request bodies (responses are the service's result models)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from app.service.jsonsafe import bad_line
from app.service.match import MatchOptions


def _line(value: str) -> str:
    problem = bad_line(value)
    if problem:
        raise PydanticCustomError("text.unsupported", problem)
    return value


Line = Annotated[str, AfterValidator(_line)]
"""A single-line text field of a request body (a label, a name, an id): no control
character, unpaired surrogate or line separator, so every database stores it as sent (422
``request.invalid``, error type ``text.unsupported``, otherwise). Path and query parameters get
the same check from :func:`app.api.deps.plain_parameters`."""


class CreateGameRequest(BaseModel):
    """Create a game of ``ruleset`` from a scenario; see ``GET /rulesets/{id}`` for schemas."""

    model_config = ConfigDict(extra="forbid", strict=True)

    ruleset: Line = Field(min_length=1, max_length=64, description="A ruleset id.")
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
