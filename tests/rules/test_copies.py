"""``app.rules.copies.replaced`` gives what pydantic's ``model_copy(update=...)`` gives: the
same type, values (the same objects), fields set, extra and private parts, and the same dump;
the source model is left as it was."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, PrivateAttr

from app.rules import registry
from app.rules.copies import replaced


def _parts(model: BaseModel) -> tuple[Any, ...]:
    return (
        type(model),
        {k: id(v) for k, v in model.__dict__.items()},
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        getattr(model, "__pydantic_private__", None),
        model.model_dump_json(),
    )


def _states() -> list[BaseModel]:
    out: list[BaseModel] = []
    for name in ("zoc", "zoi"):
        rs = registry.get(name)
        opts = rs.parse_options({})
        _board, state = rs.setup(rs.parse_scenario(rs.example_scenario()), opts)
        out.append(state)
    return out


@pytest.mark.parametrize("state", _states(), ids=["zoc", "zoi"])
def test_a_unit_and_a_state_replaced_as_model_copy_makes_them(state: Any) -> None:
    unit = state.units[0]
    before = _parts(unit), _parts(state)
    for update in ({"hex": state.units[-1].hex}, {}, {"id": "renamed", "side": unit.side}):
        assert _parts(replaced(unit, update)) == _parts(unit.model_copy(update=update))
    units = [replaced(unit, {"hex": None}), *state.units[1:]]
    update = {"units": units, "moved": [*state.moved, unit.id]}
    new = replaced(state, update)
    assert _parts(new) == _parts(state.model_copy(update=update))
    assert new.units is units and new == state.model_copy(update=update)
    assert (_parts(unit), _parts(state)) == before  # the models copied are unchanged


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int = 0


class _Private(BaseModel):
    a: int = 0
    _seen: list[int] = PrivateAttr(default_factory=list)


@pytest.mark.parametrize(
    "model", [_Open(a=1, b=2), _Private(a=1)], ids=["extra allowed", "private attribute"]
)
def test_other_models_are_copied_by_model_copy(model: BaseModel) -> None:
    for update in ({"a": 5}, {"b": 7}):
        assert _parts(replaced(model, update)) == _parts(model.model_copy(update=update))
