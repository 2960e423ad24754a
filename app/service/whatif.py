"""Interpretation what-if (issue 26 item 3): the game's log replayed under other readings.

Every ruleset documents its ambiguous clauses as interpretations, each with a per-game option
selecting the other reading. ``POST /games/{id}/what-if`` takes a set of option values,
replays the game's log from its initial state under the game's options with those values
changed -- pure, nothing is written -- and lists every event whose ruling comes out
different: legality, violations, effects, citations, the readings relied on (by clause),
details or summary, with the recorded ruling and the ruling under the other options side by
side. The game under the other options goes its own way: a legal action whose ruling
differs is applied as now ruled, so later events are judged on the position the other
reading would have made.

The replay stops at the first event the other options make impossible, and says so ("from
event N on the game could not have gone this way"):

* ``illegal``: an action (or a sealed reveal) the log records as legal is illegal now;
* ``dice``: the action now needs other dice than the log recorded, so its rolls are unknown;
* ``error``: the action cannot even be judged on the position reached (a unit gone, say).

Events are replayed as the audit replays them (:mod:`app.service.audit`): actions judged with
their recorded dice and applied, ``phase`` advances, ``rollback``/``takeback`` restore the
what-if state of the version they name, sealed reveals re-resolved
(:func:`app.service.sealed.resolve_revealed`), other events leave the state alone.

Who may ask (order of checks): a token (401 ``auth.required``) -> game (404) -> a seat (401;
a spectator token 403 ``token.read_only``) -> the umpire at any time, a player once the game
is over (403 ``whatif.not_yet`` before) -> the options (422 ``whatif.invalid_options``, each
bad field named by its pointer ``/options/<name>``) -> an initial state to start from (409
``audit.unavailable``). A player's answer keeps hidden information hidden: an event that
player may not read is replayed but not shown -- its changes are only counted
(``hidden_changes``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.db.models import EventRow
from app.db.uow import AbstractUnitOfWork
from app.rules.base import UMPIRE
from app.rules.play import step
from app.rules.ruling import Ruling
from app.service import match as mt
from app.service.audit import corrected_action, restores
from app.service.boards import BoardCache
from app.service.errors import (
    Conflict,
    FieldError,
    Forbidden,
    InvalidInput,
    Unauthenticated,
    field_errors,
    pointer,
)
from app.service.events import all_events
from app.service.pipeline import Game, load_game, require_storable, seat_of
from app.service.policies import cite

ASPECTS = ("legal", "violations", "effects", "citations", "interpretations", "details", "summary")
"""The parts of a ruling compared, in the order a change lists them."""


class WhatIfRequest(BaseModel):
    """The option values to replay the game under (the game's other options are kept)."""

    model_config = ConfigDict(extra="forbid")

    options: dict[str, Any] = Field(
        min_length=1,
        description="Per-game options of the game's ruleset (`GET /rulesets/{id}`: each "
        "interpretation names the option selecting its other reading) and the values to "
        "replay the log under.",
        examples=[{"non_ground_negates": False}],
    )


class WhatIfChange(BaseModel):
    """One event whose ruling differs under the other options."""

    model_config = ConfigDict(frozen=True)

    seq: int
    version: int
    kind: str
    differs: list[str] = Field(
        description="What differs, in this order: `legal`, `violations`, `effects`, "
        "`citations`, `interpretations` (the clauses relied on), `details`, `summary`."
    )
    recorded: Ruling = Field(description="The ruling the log records.")
    replayed: Ruling = Field(description="The ruling under the other options.")
    ruleset_version: str | None = Field(
        default=None, description="The ruleset version that judged the recorded ruling."
    )
    version_changed: bool = Field(
        default=False,
        description="That version is not the one replaying it: part of the difference may "
        "come from the rules change rather than from the options.",
    )


class WhatIfStop(BaseModel):
    """Where the game could not have gone on as it did under the other options."""

    model_config = ConfigDict(frozen=True)

    seq: int = Field(description="The event the other options make impossible.")
    reason: Literal["illegal", "dice", "error"] = Field(
        description="`illegal`: the recorded action is illegal under them; `dice`: it needs "
        "other dice than were rolled; `error`: it cannot be judged on the position reached."
    )
    message: str


class WhatIfReport(BaseModel):
    """The game's log replayed under other option values; nothing is written."""

    model_config = ConfigDict(frozen=True)

    game: str
    ruleset: str
    ruleset_version: str = Field(description="The ruleset version that replayed the log.")
    seat: str = Field(description="Who asked: what is shown is what this seat may read.")
    options: dict[str, Any] = Field(description="Every option value the replay used.")
    changed_options: dict[str, Any] = Field(
        description="The options whose values differ from the game's, with the new values."
    )
    events: int = Field(description="Events in the log.")
    replayed: int = Field(description="Events replayed (up to the stop, when there is one).")
    changed: list[WhatIfChange] = Field(
        description="The events whose ruling differs, that the asking seat may read."
    )
    hidden_changes: int = Field(
        description="Events whose ruling differs but that the asking seat may not read: "
        "counted, not shown."
    )
    same_under_other_reading: list[int] = Field(
        description="Events (seq) whose ruling relied on a changed option and comes out the "
        "same under the other value, that the asking seat may read."
    )
    stopped: WhatIfStop | None = Field(
        description="The first event the other options make impossible; null when the whole "
        "log replays."
    )
    summary: str


# -- the replay -------------------------------------------------------------------------------


def differing(recorded: Mapping[str, Any], replayed: Mapping[str, Any]) -> list[str]:
    """The aspects of two rulings (JSON) that differ. Interpretations compare by clause id:
    the value of a changed option is different in every ruling that relied on it."""
    out: list[str] = []
    for aspect in ASPECTS:
        a, b = recorded.get(aspect), replayed.get(aspect)
        if aspect == "interpretations":
            a = sorted({i.get("id") for i in a or []})
            b = sorted({i.get("id") for i in b or []})
        elif aspect in ("violations", "effects", "citations"):
            a, b = list(a or []), list(b or [])
        elif aspect == "details":
            a, b = dict(a or {}), dict(b or {})
        if a != b:
            out.append(aspect)
    return out


def _relied_on(ruling: Mapping[str, Any], changed: Mapping[str, Any]) -> bool:
    return any(i.get("option") in changed for i in ruling.get("interpretations") or [])


@dataclasses.dataclass
class _Step:
    """One replayed event: the new state, and the ruling under the other options (or why
    the game stops here)."""

    state: Any
    ruling: Ruling | None = None
    stop: tuple[Literal["illegal", "dice", "error"], str] | None = None


def _replay_event(game: Game, row: EventRow, state: Any, states: Mapping[int, Any]) -> _Step:
    ruleset = game.ruleset
    rolls = mt.load_rolls(row.dice)
    values = tuple(r.value for r in rolls)
    if row.payload is None or corrected_action(row.kind, row.payload):
        action = ruleset.parse_action(row.action)
        done = step(ruleset, game.board, state, game.options, None, action, rolls)
        if done.refusal is not None:  # the recorded rolls are not the dice it would need
            need = list(done.dice_needed)
            return _Step(
                state,
                stop=("dice", f"the action would need dice {need}, not the {len(rolls)} rolled"),
            )
        if done.state is None:
            return _Step(state, done.ruling, ("illegal", "the action would have been illegal"))
        return _Step(done.state, done.ruling)
    if row.kind == "phase":
        return _Step(ruleset.advance_phase(game.board, state))
    if restores(row.kind, row.payload):
        return _Step(states[int(row.payload["to_version"])])
    if row.kind == "sealed_revealed":
        from app.service.sealed import resolve_revealed

        orders = {
            side: dict(doc.get("order") or {})
            for side, doc in (row.payload.get("orders") or {}).items()
        }
        decision = str(row.payload["decision"])
        resolution = resolve_revealed(
            ruleset, game.board, state, game.options, decision, orders, values
        )
        if not resolution.ruling.legal:
            return _Step(
                state, resolution.ruling, ("illegal", "the revealed orders would be illegal")
            )
        return _Step(resolution.state, resolution.ruling)
    return _Step(state)


def replay_under(
    game: Game, rows: list[EventRow], options: Any, changed_options: Mapping[str, Any], seat: str
) -> WhatIfReport:
    """Replay ``rows`` (the whole log, in order) from the game's initial state under
    ``options``, as ``seat`` may see the outcome."""
    ruleset = game.ruleset
    initial = game.row.initial_state
    if initial is None:
        raise Conflict(
            "this game kept no initial state: it cannot be replayed", code="audit.unavailable"
        )
    under = dataclasses.replace(game, options=options)
    state = ruleset.load_state(initial)
    states: dict[int, Any] = {1: state}
    changed: list[WhatIfChange] = []
    same: list[int] = []
    hidden = 0
    stopped: WhatIfStop | None = None
    replayed = 0
    for row in rows:
        replayed += 1
        visible = mt.event_visible(row, seat)
        try:
            step = _replay_event(under, row, state, states)
        except Exception as exc:  # the position reached cannot even judge the action
            step = _Step(state, stop=("error", f"it could not be judged ({type(exc).__name__})"))
        if step.ruling is not None and row.ruling is not None:
            replayed_json = step.ruling.model_dump(mode="json")
            differs = differing(row.ruling, replayed_json)
            if differs and not visible:
                hidden += 1
            elif differs:
                changed.append(
                    WhatIfChange(
                        seq=row.seq,
                        version=row.version,
                        kind=row.kind,
                        differs=differs,
                        recorded=Ruling.model_validate(row.ruling),
                        replayed=step.ruling,
                        ruleset_version=row.ruleset_version,
                        version_changed=row.ruleset_version != ruleset.version,
                    )
                )
            elif visible and _relied_on(row.ruling, changed_options):
                same.append(row.seq)
        if step.stop is not None:
            reason, why = step.stop
            what = f": {why}" if visible else ""
            stopped = WhatIfStop(
                seq=row.seq,
                reason=reason,
                message=f"from event {row.seq} on the game could not have gone this way{what}",
            )
            break
        state = step.state
        states[row.version] = state
    return WhatIfReport(
        game=game.row.id,
        ruleset=ruleset.id,
        ruleset_version=ruleset.version,
        seat=seat,
        options=options.model_dump(mode="json"),
        changed_options=dict(changed_options),
        events=len(rows),
        replayed=replayed,
        changed=changed,
        hidden_changes=hidden,
        same_under_other_reading=same,
        stopped=stopped,
        summary=_summary(len(rows), len(changed) + hidden, stopped),
    )


def _summary(events: int, n: int, stopped: WhatIfStop | None) -> str:
    head = (
        "No ruling of the log comes out differently under these options"
        if n == 0
        else f"{n} ruling{'' if n == 1 else 's'} of the log come{'s' if n == 1 else ''} out "
        "differently under these options"
    )
    if stopped is not None:
        return f"{head}; {stopped.message}."
    return f"{head}; all {events} events replay."


# -- the use case ------------------------------------------------------------------------------


def _options_under(game: Game, values: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The game's options with ``values`` set, validated by the ruleset's options model in
    strict mode (422 naming each bad field), and the values that differ from the game's."""
    require_storable(dict(values), ("options",), code="whatif.invalid_options")
    model = game.ruleset.options_model
    known = set(model.model_fields) | {
        f.alias for f in model.model_fields.values() if f.alias is not None
    }
    errors = [
        FieldError(
            pointer(["options", name]),
            f"{game.ruleset.id} has no option {name!r}",
            type="whatif.unknown_option",
            code="whatif.unknown_option",
        )
        for name in values
        if name not in known
    ]
    current = game.options.model_dump(mode="json")
    if not errors:
        try:
            # strictly, as JSON: "yes" is not a boolean here (the game's own options are
            # its stored JSON, which the model wrote)
            merged = json.dumps({**current, **values}, allow_nan=False)
            options = model.model_validate_json(merged, strict=True)
        except ValidationError as exc:
            errors = field_errors(exc, ["options"])
    if errors:
        raise InvalidInput(
            "the what-if options are not options of this game's ruleset",
            errors,
            code="whatif.invalid_options",
        )
    replayed = options.model_dump(mode="json")
    return options, {k: v for k, v in replayed.items() if current.get(k) != v}


def what_if(
    uow: AbstractUnitOfWork,
    game_id: str,
    values: Mapping[str, Any],
    *,
    token: str | None,
    boards: BoardCache,
) -> WhatIfReport:
    """Replay the game's log under the game's options with ``values`` set; nothing written.
    The umpire at any time; a player once the game is over (403 ``whatif.not_yet``)."""
    if token is None:
        raise Unauthenticated("a what-if needs a seat token", code="auth.required")
    with uow.begin():
        game = load_game(uow, game_id, boards)
        seat = seat_of(uow, game.row, token)
        if seat is None:  # pragma: no cover - a token always names a seat or is refused
            raise Unauthenticated("a what-if needs a seat token", code="auth.required")
        if seat != UMPIRE and game.row.status != "finished":
            raise Forbidden(
                "a player may ask what the other reading would have changed once the game is "
                "over; the umpire may at any time",
                code="whatif.not_yet",
                citations=cite("what-if"),
            )
        options, changed_options = _options_under(game, values)
        rows = all_events(uow, game.row.id)
        return replay_under(game, rows, options, changed_options, seat)
