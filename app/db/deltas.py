"""Event states stored as deltas, with a snapshot every N events (issue 28 item 3).

Each accepted event used to store the whole state it left (``events.state_after``). Since
migration 0012 an event stores either

* a **snapshot**: the whole state in ``state_after`` (every N-th event, ``seq % N == 0``, N
  ``REFEREE_SNAPSHOT_EVERY`` or by default by weight, :func:`snapshot_by_weight`; every event
  written before the migration; every imported event; and any event whose delta could not
  be made or would not be small), or
* a **delta**: ``state_delta``, the change from the state of the event before it (for
  ``seq`` 1 the game's initial state) to its own, and ``state_after`` null,

or neither: the state was not kept (events written before migration 0002). The state of an
event is rebuilt from the nearest snapshot at or before it plus the deltas after that
snapshot (:func:`rebuild`); a chain that meets an event with neither is broken, and the
states after the break up to the next snapshot are "not kept" (None), as before.

A delta is a JSON object of the changed top-level entries of the state document and, for a
list or object entry, of its changed items (a unit of ``units``, a key of
``start_positions``)::

    {"set": {"turn": 3},                       # top-level entries replaced whole
     "items": {"units": [[12, {...}]]},        # list entries: [index, item], same length
     "keys": {"start_positions": {"put": {"u1": "0304"}, "del": ["u7"]}}}

:func:`make_delta` builds it from the two states' models (pydantic), without encoding or
parsing either state: an entry shared between the two models (the rulesets share what an
action did not change, ``app/rules/zoc/index.py`` ``moved_to``) is skipped by identity, the
others compared by value, and only the changed parts dumped. Nothing here knows any rule.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import compress
from operator import is_not
from typing import Any

import pydantic_core
from pydantic import BaseModel

from app.runtime import env

SNAPSHOT_EVERY_MIN = 32
"""By weight (the default of ``REFEREE_SNAPSHOT_EVERY``): the chain of deltas since the last
snapshot is weighed at every 32nd event only (a *checkpoint*), so a snapshot is at least 32
events after the one before -- a small state is stored whole every 32 events, as with a
fixed 32."""

SNAPSHOT_EVERY_MAX = 512
"""By weight: event 512 and each multiple store a snapshot whatever the weights, so reading
one old position applies at most 511 deltas."""

SNAPSHOT_WEIGHT = 1.0
"""By weight: a checkpoint stores a snapshot once the deltas since the last one, with its
own, weigh at least this share of that snapshot's JSON text."""

DELTA_SHARE = 0.5
"""A delta larger than this share of the state's JSON text is not kept: the event stores a
snapshot instead (a set-up that moves every unit gains nothing from a delta)."""


def snapshot_every() -> int | None:
    """``REFEREE_SNAPSHOT_EVERY``: a number N stores the state whole every N-th event (1 =
    every event, as before migration 0012); unset, ``auto`` or not a number: by weight
    (:func:`snapshot_by_weight`). Read on every write, so a change needs no restart of the
    database, only of the setting's process."""
    raw = env("REFEREE_SNAPSHOT_EVERY")
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        return None
    return max(1, value)


def wants_snapshot(seq: int, every: int | None = None) -> bool:
    """True when event ``seq`` stores its whole state whatever its delta would be, with a
    snapshot every ``every`` events (default: ``REFEREE_SNAPSHOT_EVERY``; by weight, the
    decision waits for the chain's weight: :func:`snapshot_by_weight`)."""
    n = snapshot_every() if every is None else every
    if n is None:
        return False
    return n <= 1 or seq % n == 0


def weighed_at(seq: int) -> bool:
    """By weight: whether event ``seq`` is a checkpoint, where the chain is weighed."""
    return seq % SNAPSHOT_EVERY_MIN == 0


def snapshot_by_weight(seq: int, chain: int, delta: int, snapshot: int) -> bool:
    """By weight, at a checkpoint (:func:`weighed_at`): True when event ``seq`` stores its
    whole state instead of its delta -- at every multiple of :data:`SNAPSHOT_EVERY_MAX`, and
    once the deltas written since the last snapshot (``chain``: the sum of their JSON texts'
    lengths) with this one (``delta``) weigh at least :data:`SNAPSHOT_WEIGHT` of that
    snapshot's text (``snapshot``).

    A snapshot costs the whole state (encoded, and written in the event and the game row);
    taken once the deltas since the last one weigh about as much, its cost per event is
    about a delta's whatever the state's size (a one-unit move on the 100x100 board with 501
    units stores a snapshot every 512 events, where the seed example's stays at 32), and a
    rebuild reads at most the state's weight again in deltas, plus the 31 events after a
    checkpoint (each delta below :data:`DELTA_SHARE` of the state, as with a fixed 32)."""
    return seq % SNAPSHOT_EVERY_MAX == 0 or chain + delta >= SNAPSHOT_WEIGHT * snapshot


def steady_gap(snapshot: int, delta: int) -> int:
    """By weight: the events from one snapshot to the next when every delta between weighs
    ``delta`` and the snapshot ``snapshot`` (what :func:`snapshot_by_weight` decides at each
    checkpoint in turn): 32 on the seed example (a 1 KB state, 183-byte deltas), 512 for a
    one-unit move on the 100x100 board with 501 units (83 KB, 165 bytes)."""
    seq = SNAPSHOT_EVERY_MIN
    while not snapshot_by_weight(seq, (seq - 1) * delta, delta, snapshot):
        seq += SNAPSHOT_EVERY_MIN
    return seq


# -- making a delta ---------------------------------------------------------------------------


_PLAIN: dict[type, bool] = {}


def _plain(cls: type[BaseModel]) -> bool:
    """True when a model of ``cls`` dumps each field under its own name and nothing else (no
    computed fields, aliases or serializers of its own): what :func:`make_delta` relies on."""
    known = _PLAIN.get(cls)
    if known is None:
        decorators = cls.__pydantic_decorators__
        known = (
            not cls.model_computed_fields
            and not decorators.model_serializers
            and not decorators.field_serializers
        ) and all(
            (info.serialization_alias or info.alias or name) == name and not info.exclude
            for name, info in cls.model_fields.items()
        )
        _PLAIN[cls] = known
    return known


def _same(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def make_delta(old: Any, new: Any) -> dict[str, Any] | None:
    """The delta from state model ``old`` to ``new`` (see the module docstring), or None when
    none can be made from the models alone (not pydantic models of one class, extra or
    computed fields); an empty dict when nothing changed."""
    cls = type(new)
    if (
        type(old) is not cls
        or not isinstance(new, BaseModel)
        or not _plain(cls)
        or new.__pydantic_extra__
        or old.__pydantic_extra__
    ):
        return None
    whole: set[str] = set()
    items: dict[str, list[int]] = {}
    keys: dict[str, tuple[list[Any], list[Any]]] = {}
    old_values, new_values = old.__dict__, new.__dict__
    for name in cls.model_fields:
        a, b = old_values.get(name), new_values.get(name)
        if a is b:
            continue
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            # the items not shared, found in C (a move replaces one of 501 units), then compared
            changed = [
                i for i in compress(range(len(b)), map(is_not, a, b)) if not _same(a[i], b[i])
            ]
            if changed:
                if len(changed) * 2 > len(b):
                    whole.add(name)
                else:
                    items[name] = changed
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            gone = [k for k in a if k not in b]
            put = [k for k in b if k not in a or not _same(a[k], b[k])]
            if not gone and not put:
                if list(a) != list(b):
                    whole.add(name)  # the same entries in another order
                continue
            kept = [k for k in a if k in b]
            added = [k for k in b if k not in a]
            if list(b) != kept + added or (len(put) + len(gone)) * 2 > len(b) + 1:
                whole.add(name)  # the order changed, or most of it did: set it whole
            else:
                keys[name] = (put, gone)
            continue
        if not _same(a, b):
            whole.add(name)
    if not whole and not items and not keys:
        return {}
    include: dict[str, Any] = {name: True for name in whole}
    for name, indexes in items.items():
        include[name] = dict.fromkeys(indexes, True)
    for name, (put, _gone) in keys.items():
        if put:
            include[name] = dict.fromkeys(put, True)
    dumped = new.model_dump(mode="json", include=include) if include else {}
    delta: dict[str, Any] = {}
    if whole:
        delta["set"] = {name: dumped[name] for name in cls.model_fields if name in whole}
    if items:
        delta["items"] = {
            name: [[i, v] for i, v in zip(indexes, dumped[name], strict=True)]
            for name, indexes in items.items()
        }
    if keys:
        delta["keys"] = {
            name: {
                **({"put": {k: dumped[name][k] for k in put}} if put else {}),
                **({"del": gone} if gone else {}),
            }
            for name, (put, gone) in keys.items()
        }
    return delta


# -- applying deltas --------------------------------------------------------------------------


def apply_delta(doc: Mapping[str, Any], delta: Mapping[str, Any]) -> dict[str, Any]:
    """The state document ``delta`` makes of ``doc`` (a new document; ``doc`` is unchanged,
    and shares with the result the entries the delta does not touch)."""
    out = dict(doc)
    _apply(out, delta, set())
    return out


def _apply(out: dict[str, Any], delta: Mapping[str, Any], owned: set[str]) -> None:
    """Apply ``delta`` to ``out`` in place: an entry whose items or keys change is copied
    first unless it is in ``owned`` (copied for ``out`` already, by an earlier delta of the
    same chain), then counts as owned; an entry the delta sets is the delta's own document
    (never changed: copied again before a later change)."""
    for name, value in (delta.get("set") or {}).items():
        out[name] = value
        owned.discard(name)
    for name, changes in (delta.get("items") or {}).items():
        if name not in owned:
            out[name] = list(out[name])
            owned.add(name)
        items = out[name]
        for index, value in changes:
            items[index] = value
    for name, change in (delta.get("keys") or {}).items():
        if name not in owned:
            out[name] = dict(out[name])
            owned.add(name)
        entry = out[name]
        for key in change.get("del") or ():
            entry.pop(key, None)
        entry.update(change.get("put") or {})


@dataclass(frozen=True)
class StoredChain:
    """A state as stored between snapshots: the JSON text of the state the game row holds
    (its last snapshot's) and the deltas of the events after it, oldest first."""

    text: str
    deltas: tuple[Mapping[str, Any], ...]

    def document(self) -> dict[str, Any]:
        """The state's document: the text decoded (as the JSON column's reader decodes it)
        and the deltas applied."""
        state = rebuild(json.loads(self.text), [(None, d) for d in self.deltas])[-1]
        assert state is not None
        return state

    def size(self) -> int:
        """What a cache weighs the state by: the text's length and the deltas'."""
        return len(self.text) + sum(len(pydantic_core.to_json(d)) for d in self.deltas)


def apply_to_model(model: BaseModel, chain: Iterable[Mapping[str, Any]]) -> BaseModel | None:
    """The state the deltas of ``chain`` (oldest first) make of the state model ``model``,
    validated by its class from ``model``'s field values with the entries the deltas change
    replaced by their documents -- not from a whole document: a state rebuilt on a cache
    miss is its snapshot validated from its stored text and the changed units validated from
    theirs, the others kept as the snapshot's objects (nested models pass validation as they
    are; other values are validated again). Only for a state model whose validators give
    the same state from its own field values as from its document (the ruleset says so:
    ``Ruleset.state_revalidates``, tested for every built-in ruleset's rule cases). None when
    the class is not a plain model (:func:`_plain`) or keeps extra fields; then rebuild the
    document (:func:`apply_delta`) and validate that. Validation errors are raised as the
    class raises them."""
    cls = type(model)
    if not _plain(cls) or cls.model_config.get("extra") == "allow" or model.__pydantic_extra__:
        return None
    values = dict(model.__dict__)  # as a document's: the field values are its top-level entries
    owned: set[str] = set()  # each entry copied once for the whole chain, not once a delta
    for delta in chain:
        _apply(values, delta, owned)
    return cls.model_validate(values)


def rebuild(
    base: Mapping[str, Any] | None,
    stored: Iterable[tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]],
) -> list[dict[str, Any] | None]:
    """The states a run of consecutive events left, oldest first: ``base`` is the state
    before the first of them (None: not known), ``stored`` each event's ``(state_after,
    state_delta)``. A snapshot is its own state; a delta applies to the state before it (None
    when that is not known); an event with neither left a state that was not kept."""
    out: list[dict[str, Any] | None] = []
    state: dict[str, Any] | None = dict(base) if base is not None else None
    for snapshot, delta in stored:
        if snapshot is not None:
            state = dict(snapshot)
        elif delta is not None and state is not None:
            state = apply_delta(state, delta)
        else:
            state = None
        out.append(state)
    return out
