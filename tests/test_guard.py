"""``pipeline.guard`` turns what a ruleset raises about client input into the service's typed
client errors, and lets everything else through unchanged."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from app.rules.base import InvalidQuery
from app.service.errors import InvalidInput, RulesRejected
from app.service.pipeline import guard


class _Doc(BaseModel):
    n: int


def _validation_error() -> ValidationError:
    try:
        _Doc.model_validate({"n": "x"})
    except ValidationError as exc:
        return exc
    raise AssertionError("validated")


def test_a_validation_error_names_its_fields_under_the_prefix() -> None:
    error = _validation_error()
    with pytest.raises(InvalidInput) as caught, guard("state", ("state",)):
        raise error
    assert caught.value.detail == "invalid state"
    assert caught.value.__cause__ is error
    assert [e.location for e in caught.value.errors] == ["/state/n"]


@pytest.mark.parametrize(
    ("raised", "code", "detail"),
    [
        (InvalidQuery("no such unit"), "query.invalid", "no such unit"),
        (ValueError("bad"), "rules.unjudgeable", "the ruleset could not judge this move: bad"),
        (KeyError("u9"), "rules.unjudgeable", "the ruleset could not judge this move: 'u9'"),
    ],
)  # fmt: skip
def test_a_ruleset_complaint_is_rejected(raised: Exception, code: str, detail: str) -> None:
    with pytest.raises(RulesRejected) as caught, guard("move"):
        raise raised
    assert caught.value.code == code and caught.value.detail == detail
    assert caught.value.__cause__ is raised


def test_anything_else_passes_unchanged() -> None:
    with pytest.raises(TypeError, match="not ours"), guard("move"):
        raise TypeError("not ours")
    with guard("move"):
        pass
