"""The one result type every ruleset returns: a :class:`Ruling`.

A ruling says whether an action is legal, what follows from it (effects), which rule
sections it applied (citations) and which readings of an ambiguous text it relied on
(interpretations). Rulings are plain immutable values: same input, same ruling.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Citation(_Value):
    """A pointer to one rule section of one ruleset's catalog."""

    ruleset: str = Field(description="Ruleset id, e.g. `zoc`.")
    section: str = Field(description="Section id as the source numbers it, e.g. `8.2`.")
    title: str = Field(default="", description="Section title from the catalog.")


class Violation(_Value):
    """One reason an action is illegal. `code` is a stable machine-readable string."""

    code: str = Field(description="Stable error code, e.g. `zoc.must_stop`.")
    message: str
    step: int | None = Field(default=None, description="Index of the offending step, if any.")
    hex: str | None = None
    unit: str | None = None
    location: str | None = Field(
        default=None,
        description="RFC 6901 JSON pointer into the judged document (scenario, order), if any.",
    )
    citations: tuple[Citation, ...] = ()
    details: dict[str, Any] = Field(default_factory=dict)


class Effect(_Value):
    """A consequence of a (legal or examined) action: must stop, fire chance, losses…"""

    kind: str = Field(description="Stable effect kind, e.g. `must_stop`, `opportunity_fire`.")
    message: str = ""
    unit: str | None = None
    hex: str | None = None
    step: int | None = None
    by: tuple[str, ...] = Field(default=(), description="Units entitled to / causing it.")
    citations: tuple[Citation, ...] = ()
    details: dict[str, Any] = Field(default_factory=dict)


class InterpretationRef(_Value):
    """A named reading of an ambiguous rule text that this ruling depends on."""

    id: str
    text: str
    option: str | None = Field(default=None, description="Per-game option that selects it.")
    value: Any = Field(default=None, description="The option value in force for this game.")


class Ruling(_Value):
    """The verdict on one action."""

    legal: bool
    summary: str
    violations: tuple[Violation, ...] = ()
    effects: tuple[Effect, ...] = ()
    citations: tuple[Citation, ...] = ()
    interpretations: tuple[InterpretationRef, ...] = ()
    details: dict[str, Any] = Field(
        default_factory=dict, description="Ruleset-specific facts (path, cost, losses…)."
    )
