"""The one result type every ruleset returns: a :class:`Ruling`.

A ruling says whether an action is legal, what follows from it (effects), which rule
sections it applied (citations) and which readings of an ambiguous text it relied on
(interpretations). Rulings are plain immutable values: same input, same ruling.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Citation(_Value):
    """A pointer to one rule section of one ruleset's catalog."""

    ruleset: str = Field(description="Ruleset id, e.g. `zoc`.")
    section: str = Field(description="Section id as the source numbers it, e.g. `8.2`.")
    title: str = Field(default="", description="Section title from the catalog.")


CiteKey = tuple[str, str, str]
"""A citation's fields (ruleset, section, title): two citations are equal iff their keys are.
A tuple of strings hashes in C, where a model's hash is a Python call."""


def citation_key(c: Citation) -> CiteKey:
    d = c.__dict__
    return (d["ruleset"], d["section"], d["title"])


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


# -- building values whose fields are already of their types -----------------------------------

V = TypeVar("V", bound=_Value)
_new = object.__new__
_set = object.__setattr__


def _as_validated(model: type[V], values: dict[str, Any], fields: set[str]) -> V:
    """``model`` holding ``values`` as they are: what validating them would build when each
    value is already exactly of its field's type (validation returns such a value unchanged,
    a tuple or a dict as an equal copy). ``values`` name every field, in the order the model
    declares them (the order of the dump), and ``fields`` is the set of their names: the
    fields set are all of them, as when a caller passes every field. ``model_construct`` does
    the same with a look-up of aliases and defaults per field, which costs more than
    validating."""
    m = _new(model)
    _set(m, "__dict__", values)
    _set(m, "__pydantic_fields_set__", fields.copy())
    _set(m, "__pydantic_extra__", None)
    _set(m, "__pydantic_private__", None)
    return m


_EFFECT_FIELDS = set(Effect.model_fields)
_RULING_FIELDS = set(Ruling.model_fields)


def _only(kind: type, values: Iterable[Any]) -> bool:
    """Every value (or key) exactly a ``kind``: an exact ``str`` or model instance passes
    validation as it is, where a subclass, or a dict for a model, would be converted."""
    for v in values:  # noqa: SIM110 (a loop: all() over a generator costs more)
        if type(v) is not kind:
            return False
    return True


def effect_of(
    kind: str,
    message: str,
    unit: str | None,
    hex: str | None,
    step: int | None,
    by: tuple[str, ...],
    citations: tuple[Citation, ...],
    details: dict[str, Any],
) -> Effect:
    """``Effect(kind=..., ..., details=...)``, without validating values that are already
    exactly of their fields' types (anything else is validated, with the same result or
    error as the constructor). ``by``, ``citations`` and ``details`` are kept, not copied:
    pass values nobody else changes."""
    if (  # checked inline, a helper call only for a non-empty collection: this runs per effect
        type(kind) is str
        and type(message) is str
        and (unit is None or type(unit) is str)
        and (hex is None or type(hex) is str)
        and (step is None or type(step) is int)
        and type(by) is tuple
        and (not by or _only(str, by))
        and type(citations) is tuple
        and _only(Citation, citations)
        and type(details) is dict
        and (not details or _only(str, details))
    ):
        return _as_validated(
            Effect,
            {
                "kind": kind,
                "message": message,
                "unit": unit,
                "hex": hex,
                "step": step,
                "by": by,
                "citations": citations,
                "details": details,
            },
            _EFFECT_FIELDS,
        )
    return Effect(
        kind=kind,
        message=message,
        unit=unit,
        hex=hex,
        step=step,
        by=by,
        citations=citations,
        details=details,
    )


def ruling_of(
    legal: bool,
    summary: str,
    violations: tuple[Violation, ...],
    effects: tuple[Effect, ...],
    citations: tuple[Citation, ...],
    interpretations: tuple[InterpretationRef, ...],
    details: dict[str, Any],
) -> Ruling:
    """``Ruling(legal=..., ..., details=...)``, without validating values that are already
    exactly of their fields' types (as :func:`effect_of`; ``details`` is kept, not copied)."""
    if (
        type(legal) is bool
        and type(summary) is str
        and type(violations) is tuple
        and (not violations or _only(Violation, violations))
        and type(effects) is tuple
        and _only(Effect, effects)
        and type(citations) is tuple
        and _only(Citation, citations)
        and type(interpretations) is tuple
        and _only(InterpretationRef, interpretations)
        and type(details) is dict
        and (not details or _only(str, details))
    ):
        return _as_validated(
            Ruling,
            {
                "legal": legal,
                "summary": summary,
                "violations": violations,
                "effects": effects,
                "citations": citations,
                "interpretations": interpretations,
                "details": details,
            },
            _RULING_FIELDS,
        )
    return Ruling(
        legal=legal,
        summary=summary,
        violations=violations,
        effects=effects,
        citations=citations,
        interpretations=interpretations,
        details=details,
    )
