"""``ruling.effect_of`` and ``ruling.ruling_of`` skip validation only for values already exactly
of their fields' types: field by field, a value validation would convert (a ``str`` subclass,
a list for a tuple, a dict for a model, ``1.0`` for an int, ``1`` for a bool) is validated, so
the value built is the constructor's to the type of every part (issue 27: the shared kit's
mutants, docs/mutation/core.md)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from app.rules.ruling import (
    Citation,
    Effect,
    InterpretationRef,
    Ruling,
    Violation,
    effect_of,
    ruling_of,
)


class _S(str):
    """Validation turns it into a plain str."""


class _D(dict):  # type: ignore[type-arg]
    """Validation turns it into a plain dict."""


CITE = Citation(ruleset="one", section="1", title="Moving")
EFFECT = Effect(kind="stop", message="Stops.", unit="u1", citations=(CITE,))
VIOLATION = Violation(code="c", message="No.", citations=(CITE,))
REF = InterpretationRef(id="r", text="This way.", option="o", value=2)

EFFECT_ARGS: dict[str, Any] = {
    "kind": "stop",
    "message": "Stops.",
    "unit": "u1",
    "hex": "0101",
    "step": 2,
    "by": ("u2",),
    "citations": (CITE,),
    "details": {"cost": 3},
}
RULING_ARGS: dict[str, Any] = {
    "legal": False,
    "summary": "No.",
    "violations": (VIOLATION,),
    "effects": (EFFECT,),
    "citations": (CITE,),
    "interpretations": (REF,),
    "details": {"n": 1},
}

EFFECT_ODD = [
    ("kind", _S("stop")),
    ("message", _S("Stops.")),
    ("unit", _S("u1")),
    ("hex", _S("0101")),
    ("step", 2.0),
    ("by", ["u2"]),
    ("by", (_S("u2"),)),
    ("by", ("u2", _S("u3"))),
    ("citations", [CITE]),
    ("citations", (CITE.model_dump(),)),
    ("citations", (CITE, CITE.model_dump())),
    ("details", _D(cost=3)),
    ("details", {_S("cost"): 3}),
    ("details", {"cost": 3, _S("more"): 4}),
]
RULING_ODD = [
    ("legal", 0),
    ("summary", _S("No.")),
    ("violations", [VIOLATION]),
    ("violations", (VIOLATION.model_dump(),)),
    ("violations", (VIOLATION, VIOLATION.model_dump())),
    ("effects", [EFFECT]),
    ("effects", (EFFECT.model_dump(),)),
    ("effects", (EFFECT, EFFECT.model_dump())),
    ("citations", [CITE]),
    ("citations", (CITE.model_dump(),)),
    ("citations", (CITE, CITE.model_dump())),
    ("interpretations", [REF]),
    ("interpretations", (REF.model_dump(),)),
    ("interpretations", (REF, REF.model_dump())),
    ("details", _D(n=1)),
    ("details", {_S("n"): 1}),
    ("details", {"n": 1, _S("m"): 2}),
]


def _typed(value: Any) -> Any:
    """The value with the exact type of every part (models, collections, keys, scalars)."""
    if isinstance(value, BaseModel):
        return (type(value), [(k, _typed(v)) for k, v in value.__dict__.items()])
    if isinstance(value, list | tuple):
        return (type(value), [_typed(v) for v in value])
    if isinstance(value, dict):
        return (type(value), [(_typed(k), _typed(v)) for k, v in value.items()])
    return (type(value), value)


def _odd_parts(value: Any) -> list[Any]:
    """The parts of a built value that validation would have converted."""
    if isinstance(value, BaseModel):
        return [p for v in value.__dict__.values() for p in _odd_parts(v)]
    if type(value) in (_S, _D, list, float):
        return [value]
    if isinstance(value, tuple):
        return [p for v in value for p in _odd_parts(v)]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in (*_odd_parts(k), *_odd_parts(v))]
    return []


@pytest.mark.parametrize(("field", "value"), EFFECT_ODD, ids=[f for f, _ in EFFECT_ODD])
def test_an_effect_field_validation_would_convert_is_converted(field: str, value: Any) -> None:
    args = {**EFFECT_ARGS, field: value}
    built = effect_of(*args.values())
    assert _typed(built) == _typed(Effect(**args))
    assert not _odd_parts(built)


@pytest.mark.parametrize(("field", "value"), RULING_ODD, ids=[f for f, _ in RULING_ODD])
def test_a_ruling_field_validation_would_convert_is_converted(field: str, value: Any) -> None:
    args = {**RULING_ARGS, field: value}
    built = ruling_of(*args.values())
    assert _typed(built) == _typed(Ruling(**args))
    assert not _odd_parts(built)


@pytest.mark.parametrize("empty", ["by", "citations", "details"])
def test_an_effect_with_empty_collections_is_the_constructors(empty: str) -> None:
    args = {**EFFECT_ARGS, empty: type(EFFECT_ARGS[empty])()}
    assert _typed(effect_of(*args.values())) == _typed(Effect(**args))


@pytest.mark.parametrize(
    "empty", ["violations", "effects", "citations", "interpretations", "details"]
)
def test_a_ruling_with_empty_collections_is_the_constructors(empty: str) -> None:
    args = {**RULING_ARGS, empty: type(RULING_ARGS[empty])()}
    assert _typed(ruling_of(*args.values())) == _typed(Ruling(**args))
