"""A model with a few fields replaced, as ``model.model_copy(update=...)`` makes it, in a few
steps instead of pydantic's general ones (``copy.copy`` of each part, the checks for extra
fields and deep copies): ``apply`` makes the state after a move this way (the moved unit and
the state), at every submission, dry run and ``reachable`` after a move.

The result is what ``model_copy(update=...)`` gives -- the same values (shared, not copied),
the same fields set, no validation -- for a model without private attributes whose extra
fields are not allowed (the rules' models); any other model is copied by ``model_copy``
itself (``tests/rules/test_copies.py`` compares both)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__

_PLAIN: dict[type, bool] = {}
"""Model class -> whether it has neither private attributes nor extra fields allowed (its
instances' private and extra parts are then None)."""


def replaced(model: M, update: Mapping[str, Any]) -> M:
    """A shallow copy of ``model`` with the fields in ``update`` replaced (not validated)."""
    cls = type(model)
    plain = _PLAIN.get(cls)
    if plain is None:
        plain = _PLAIN[cls] = (
            cls.model_config.get("extra") != "allow" and not cls.__private_attributes__
        )
    if not plain:
        return model.model_copy(update=update)
    new = cls.__new__(cls)
    values = model.__dict__.copy()
    values.update(update)
    fields_set = set(model.__pydantic_fields_set__)
    fields_set.update(update)
    _set(new, "__dict__", values)
    _set(new, "__pydantic_extra__", None)
    _set(new, "__pydantic_fields_set__", fields_set)
    _set(new, "__pydantic_private__", None)
    return new
