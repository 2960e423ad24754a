"""A new state's JSON text put together from the state before's (issue 28 item 3).

A submission's full answer carries the new state's text; on the 100x100 map with 526 units
encoding it whole (:func:`app.service.jsonsafe.encode_state`) was a sixth of the
submission's CPU. ``apply`` makes the state after an action with its lists shared item by
item with the state before (:func:`app.rules.copies.replaced`): a one-unit move replaces one
unit object and keeps the other 525. So the text of each item of a state's model lists is
kept with the state (by identity, as the rules' memos keep a state's index), and the new
state's text is the text of its other fields with each list's items' texts joined in:
an identity test per item, the one changed unit encoded.

The result is byte for byte :func:`encode_state`'s (pydantic-core's serializer of the same
models with the same settings): only for a list field declared ``list[Model]`` with no
alias, no serializer of its own and no model serializer on the state, whose items are all of
exactly ``Model`` (a subclass would be serialized as ``Model`` by the list's serializer but
as itself alone); anything else is encoded whole. Like the rules' memos it relies on states
and their items never being mutated once made (rulesets return new ones). The test suite
(``REFEREE_CHECK_KEPT_STATE``) compares every text put together with the whole encoding
(:mod:`app.service.pipeline`).
"""

from __future__ import annotations

import operator
import types
import typing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress, count
from typing import Any

import pydantic_core
from pydantic import BaseModel

from app.rules.copies import replaced
from app.rules.memo import ByIdentity
from app.service.jsonsafe import encode_state


@dataclass(frozen=True, slots=True)
class _Kept:
    """What a state's text was put together from."""

    texts: tuple[list[bytes], ...]
    """The JSON text of each item of the state's model lists, a list per field (in
    :func:`_fields`'s order)."""
    pieces: tuple[bytes, ...]
    """The text of the other fields: the state's text with each list's items left out, cut
    where they go (``pieces[0]``, the items of field ``slots[0]``, ``pieces[1]``, ...)."""
    slots: tuple[int, ...]
    others: tuple[Any, ...]
    """The values of the state's other fields the pieces were encoded from."""


_KEPT: ByIdentity[_Kept] = ByIdentity(maxsize=1024)
"""State -> what its text was put together from. A state lives as long as the service keeps
it (its cache of parsed states and the write's hand-on); what is kept for it goes with it."""

_FIELDS: dict[type, tuple[tuple[str, type[BaseModel], bytes], ...] | None] = {}


def _fields(cls: type) -> tuple[tuple[str, type[BaseModel], bytes], ...] | None:
    """The fields of state class ``cls`` whose items' texts are kept: (name, item model,
    the key's text as the serializer writes it with an empty list); None when the class's
    own serialization could differ from its fields' (a model serializer, computed fields,
    extra values allowed, a core schema of its own)."""
    if cls in _FIELDS:
        return _FIELDS[cls]
    found: tuple[tuple[str, type[BaseModel], bytes], ...] | None = None
    if (
        issubclass(cls, BaseModel)
        and not cls.model_computed_fields  # computed from the lists: not in the pieces
        and cls.model_config.get("extra") != "allow"  # extra values: not in the pieces
        and "__get_pydantic_core_schema__" not in cls.__dict__
    ):
        decorators = cls.__pydantic_decorators__
        if not decorators.model_serializers:
            own = {d.info.fields for d in decorators.field_serializers.values()}
            serialized = {name for names in own for name in names}
            fields: list[tuple[str, type[BaseModel], bytes]] = []
            for name, info in cls.model_fields.items():
                item = _list_item(info.annotation)
                if (
                    item is None
                    or name in serialized
                    or info.metadata
                    or info.alias is not None
                    or info.serialization_alias is not None
                    or info.exclude
                    or getattr(info, "exclude_if", None) is not None
                    or item.__pydantic_decorators__.model_serializers
                ):
                    continue
                fields.append((name, item, pydantic_core.to_json({name: []})[1:-1]))
            found = tuple(fields)
    _FIELDS[cls] = found
    return found


_ALIASED: dict[type, bool] = {}


def aliased(cls: type) -> bool:
    """Whether a field of model ``cls``, or of a model any of its fields holds, has an alias
    (or ``cls`` is no model): then the state's JSON text (:func:`state_text`, which
    pydantic-core writes with the aliases) is not what its ``model_dump(mode="json")`` gives
    (without them), and a view of the dump cannot be made from the text."""
    found = _ALIASED.get(cls)
    if found is None:
        _ALIASED[cls] = False  # a model that holds itself: asked again, no alias so far
        found = _ALIASED[cls] = _has_alias(cls)
    return found


def _has_alias(cls: type) -> bool:
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
        return True
    for info in cls.model_fields.values():
        if info.alias is not None or info.serialization_alias is not None:
            return True
        if any(aliased(model) for model in _models_in(info.annotation)):
            return True
    return any(c.alias is not None for c in cls.model_computed_fields.values())


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation names, at any depth (``list[Unit]``,
    ``dict[str, Weather | None]``...)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in typing.get_args(annotation) for model in _models_in(arg)]


def _list_item(annotation: Any) -> type[BaseModel] | None:
    """``Model`` for an annotation ``list[Model]`` (a pydantic model), else None."""
    if typing.get_origin(annotation) is not list:
        return None
    args = typing.get_args(annotation)
    if len(args) != 1 or not isinstance(args[0], type) or isinstance(args[0], types.GenericAlias):
        return None
    item = args[0]
    return item if issubclass(item, BaseModel) else None


WHOLE_BELOW = 16
"""A state with fewer items than this in its model lists is encoded whole: that costs less than
putting its text together (the seed example's 5 units, 1 KB: about 5 us
against 10-20 us; the two meet at about 20 items, docs/PERFORMANCE.md, issue 28, session
17)."""


def _items(state: Any, fields: tuple[tuple[str, type[BaseModel], bytes], ...]) -> int:
    """How many items ``state``'s model lists hold (:data:`WHOLE_BELOW` when one is not a
    list: the text is then put together the long way, which encodes it whole)."""
    count = 0
    for name, _model, _key in fields:
        items = getattr(state, name)
        if type(items) is not list:
            return WHOLE_BELOW
        count += len(items)
    return count


def state_text(state: Any, before: Any = None) -> bytes:
    """:func:`app.service.jsonsafe.encode_state` of ``state`` (a small one: encoded whole,
    :data:`WHOLE_BELOW`), the items' texts of
    ``before`` (the state it was made from, or None) reused where ``state`` shares the item
    with it, and the text of its other fields too where it shares all of their values; what
    the text was put together from is then kept for ``state``. Raises as ``encode_state``
    does (a value that is not JSON)."""
    fields = _fields(type(state))
    if not fields or _items(state, fields) < WHOLE_BELOW:
        return encode_state(state)
    own = _KEPT.peek(state)
    if own is not None:  # put together before (the write that made it, an earlier view)
        return _joined(own)
    earlier = _KEPT.peek(before) if before is not None and type(before) is type(state) else None
    texts: list[list[bytes]] = []
    for i, (name, model, _key) in enumerate(fields):
        items: Sequence[Any] = getattr(state, name)
        if type(items) is not list:
            return encode_state(state)
        if earlier is not None:
            made = _reused(items, getattr(before, name), earlier.texts[i], model)
        else:
            made = _fresh(items, model)
        if made is None:
            return encode_state(state)
        texts.append(made)
    listed = {name for name, _m, _k in fields}
    values = state.__dict__
    others = tuple(value for name, value in values.items() if name not in listed)
    if (
        earlier is not None
        and len(others) == len(earlier.others)
        and all(map(operator.is_, others, earlier.others))
    ):
        pieces, slots = earlier.pieces, earlier.slots
    else:
        cut = _cut(encode_state(replaced(state, {name: [] for name in listed})), fields)
        if cut is None:
            return encode_state(state)
        pieces, slots = cut
    kept = _Kept(tuple(texts), pieces, slots, others)
    _KEPT.put(state, kept)
    return _joined(kept)


def _joined(kept: _Kept) -> bytes:
    """The state's text: the pieces with each list's items' texts between them."""
    pieces, texts = kept.pieces, kept.texts
    out = [pieces[0]]
    for slot, piece in zip(kept.slots, pieces[1:], strict=True):
        out.append(b",".join(texts[slot]))
        out.append(piece)
    return b"".join(out)


def _cut(
    skeleton: bytes, fields: tuple[tuple[str, type[BaseModel], bytes], ...]
) -> tuple[tuple[bytes, ...], tuple[int, ...]] | None:
    """``skeleton`` (the state's text with its lists empty) cut between each list's
    brackets, and which field's items go in each cut (in order); None when a list's key is
    not found exactly once (a nested object with a key of the same name)."""
    at: list[tuple[int, int]] = []
    for i, (_name, _model, key) in enumerate(fields):
        found = skeleton.find(key)
        if found < 0 or skeleton.find(key, found + 1) >= 0:
            return None
        at.append((found + len(key) - 1, i))  # the index of the list's "]"
    at.sort()
    pieces: list[bytes] = []
    start = 0
    for end, _i in at:
        pieces.append(skeleton[start:end])
        start = end
    pieces.append(skeleton[start:])
    return tuple(pieces), tuple(i for _end, i in at)


def _fresh(items: Sequence[Any], model: type[BaseModel]) -> list[bytes] | None:
    if any(type(item) is not model for item in items):
        return None
    return [encode_state(item) for item in items]


def _reused(
    items: Sequence[Any], old: Sequence[Any], old_texts: list[bytes], model: type[BaseModel]
) -> list[bytes] | None:
    """The items' texts, each item ``old`` holds (by identity) given the text kept for it."""
    if items is old:
        return old_texts
    if len(items) == len(old):
        made = old_texts.copy()
        changed: Iterable[int] = compress(count(), map(operator.is_not, items, old))
    else:
        by_id = {id(item): text for item, text in zip(old, old_texts, strict=True)}
        made = [by_id.get(id(item), b"") for item in items]
        changed = [j for j, text in enumerate(made) if not text]
    for j in changed:
        item = items[j]
        if type(item) is not model:
            return None
        made[j] = encode_state(item)
    return made
