"""Export a game to one portable file and verify such a file anywhere (issue 26).

**Export** (``GET /games/{id}/export``): one JSON document (:class:`ExportFile`, format
``referee-export-1``, schema in ``docs/export.schema.json`` and ``docs/EXPORT.md``) holding the
ruleset id and the versions that judged the log, the scenario, options and match settings, the
initial state, every event with its ruling, dice, state snapshot and ruleset version, the dice
commitment (and the seed once the reader may see it) and the sealed commitments and reveals.
A reader gets only what its seat may see, through the same filters as every read path: events
hidden from it are redacted (:func:`app.service.events.event_view`), the seed is there only
when :func:`app.service.match.seed_visible`, a state snapshot only when the ruleset's view of it
for that seat is the whole state, and no sealed order's content appears before its reveal (no
event holds one). The umpire's file is *complete*: every event and every snapshot.

**Verify** (``POST /verify``, ``referee verify FILE``): re-adjudicate the file with the rulesets
of this instance from the scenario's setup -- the one replay of :mod:`app.service.audit` over a
neutral input -- check every derived roll against the commitment (when the seed is in the file)
and every sealed reveal against its receipt's commitment, and report the first difference by
event. Events judged by another ruleset version than this instance runs are reported as a
version change, not as a difference in the file. What a partial file withholds (hidden events,
an unrevealed seed) is listed as not checked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.db.models import EventRow
from app.db.uow import AbstractUnitOfWork
from app.match import dice as dicelib
from app.rules import registry
from app.rules.base import UMPIRE, Ruleset
from app.service import match as mt
from app.service import messages as msgs
from app.service.audit import (
    IMPORTED,
    DiceKey,
    LogEntry,
    ReplayInput,
    dice_key_for,
    dice_keys,
    replay_log,
)
from app.service.boards import BoardCache
from app.service.errors import INT4_MAX, InvalidInput, field_errors
from app.service.events import all_events, event_view
from app.service.pipeline import aware_utc, full_view, load_game, reader_seat, utc_now
from app.service.results import AuditDifference, AuditStretch

AnyRuleset = Ruleset[Any, Any, Any, Any]

FORMAT: Literal["referee-export-1"] = "referee-export-1"
SEALED_RECIPE = "referee-sealed-v1"


class _Doc(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


Name = Annotated[str, Field(min_length=1, max_length=64)]


class ExportGame(_Doc):
    id: str = Field(max_length=64, description="The game's id on the instance that exported it.")
    status: Literal["active", "finished"]
    public: bool
    version: int = Field(ge=1, le=INT4_MAX, description="The game version when exported.")
    winner: str | None = None
    created_at: datetime


class ExportRuleset(_Doc):
    id: Name
    version: str = Field(
        min_length=1, max_length=32, description="The ruleset version the game is pinned to."
    )
    created_version: str | None = Field(
        default=None, max_length=32, description="The version the game was created with."
    )
    versions: list[str] = Field(
        default_factory=list,
        description="Every ruleset version recorded as having judged an event of the file.",
    )


class ExportDice(_Doc):
    recipe: str = Field(default=dicelib.RECIPE)
    commitment: str | None = Field(max_length=64, description="SHA-256 of the secret seed (hex).")
    seed: str | None = Field(
        default=None,
        description="The seed (hex), only when the reader may see it: every reader once the "
        "game is over, the umpire once it had it revealed. Null otherwise.",
    )
    rolled: int = Field(ge=0, le=INT4_MAX, description="How many rolls the game has used.")
    physical: bool = Field(default=False, description="The umpire entered the dice.")


class ExportSealedOrder(_Doc):
    commitment: str
    nonce: str | None = Field(default=None, description="Null until the reveal.")
    canonical: str | None = Field(default=None, description="Null until the reveal.")


class ExportSealed(_Doc):
    """One instance of a sealed decision: its receipts' commitments and, once revealed, the
    orders (the same facts as its `sealed_received` / `sealed_revealed` events, gathered)."""

    decision: str
    instance: str
    received: dict[str, int] = Field(description="Side -> seq of its latest receipt.")
    commitments: dict[str, str] = Field(description="Side -> commitment of that receipt.")
    revealed: int | None = Field(default=None, description="Seq of the reveal; null: sealed.")
    orders: dict[str, ExportSealedOrder] = Field(
        default_factory=dict, description="Side -> revealed order (empty before the reveal)."
    )


class ExportEvent(_Doc):
    """One event of the log, as in `GET /games/{id}/events`, with its state snapshot."""

    seq: int = Field(ge=1, le=INT4_MAX)
    version: int = Field(ge=2, le=INT4_MAX)
    kind: Name = Field(description="An action kind, a match-flow event kind, or `redacted`.")
    seat: Name | None = None
    action: dict[str, Any] = Field(default_factory=dict)
    ruling: dict[str, Any] | None = Field(default=None, description="The Ruling, as recorded.")
    dice: list[dict[str, Any]] = Field(default_factory=list)
    payload: dict[str, Any] | None = None
    visible_to: list[Name] | None = None
    redacted: bool = False
    ruleset_version: str | None = Field(default=None, max_length=32)
    created_at: datetime
    state_after: dict[str, Any] | None = Field(
        default=None,
        description="The state this event left; null when hidden from the reader (a "
        "redacted event, or a ruleset that shows this seat only part of the state).",
    )


class ExportMessage(_Doc):
    """One table-talk message the reader may read (as in `GET /games/{id}/messages`).
    Verify ignores messages: no ruling reads them."""

    seq: int = Field(ge=1, le=INT4_MAX)
    sender: Name
    to: Name
    private: bool = False
    text: str = Field(max_length=2000)
    created_at: datetime


class ExportWithheld(_Doc):
    """What this reader's file leaves out."""

    events: list[int] = Field(default_factory=list, description="Seqs of redacted events.")
    states: list[int] = Field(
        default_factory=list, description="Seqs of visible events without a state snapshot."
    )
    initial_state: bool = False
    seed: bool = Field(default=False, description="The seed is not (yet) revealed to it.")


class ExportFile(_Doc):
    """A game exported by `GET /games/{id}/export` (format `referee-export-1`)."""

    format: Literal["referee-export-1"] = FORMAT
    exported_at: datetime
    reader: Name | None = Field(description="The seat the file was exported for; null: public.")
    complete: bool = Field(description="True for the umpire's file: nothing withheld.")
    game: ExportGame
    ruleset: ExportRuleset
    scenario: dict[str, Any]
    options: dict[str, Any]
    match: dict[str, Any]
    initial_state: dict[str, Any] | None = Field(
        description="The state the scenario set up (null when not kept or not visible)."
    )
    dice: ExportDice
    sealed: list[ExportSealed] = Field(default_factory=list)
    events: list[ExportEvent]
    messages: list[ExportMessage] = Field(
        default_factory=list,
        description="The table talk the reader may read (issue 26); not checked by verify.",
    )
    withheld: ExportWithheld = Field(default_factory=ExportWithheld)


def export_schema() -> dict[str, Any]:
    """The JSON Schema of the export file (published as ``docs/export.schema.json``)."""
    schema = ExportFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://referee.example/schemas/referee-export-1.json"
    return schema


# -- export ---------------------------------------------------------------------------------


def _sealed(events: Sequence[ExportEvent]) -> list[ExportSealed]:
    """The sealed instances of a log, from its receipts and reveals (withdrawn receipts are
    superseded by the side's later receipt)."""
    found: dict[str, dict[str, Any]] = {}
    for e in events:
        if e.redacted or e.payload is None:
            continue
        if e.kind == "sealed_received":
            inst = found.setdefault(
                str(e.payload.get("instance")),
                {"decision": str(e.payload.get("decision")), "received": {}, "commitments": {}},
            )
            side = str(e.payload.get("side"))
            inst["received"][side] = e.seq
            inst["commitments"][side] = str(e.payload.get("commitment"))
        elif e.kind == "sealed_revealed":
            inst = found.setdefault(
                str(e.payload.get("instance")),
                {"decision": str(e.payload.get("decision")), "received": {}, "commitments": {}},
            )
            inst["revealed"] = e.seq
            inst["orders"] = {
                side: {
                    "commitment": str(o.get("commitment")),
                    "nonce": o.get("nonce"),
                    "canonical": o.get("canonical"),
                }
                for side, o in (e.payload.get("orders") or {}).items()
            }
    return [ExportSealed.model_validate({"instance": k, **v}) for k, v in found.items()]


def _event(
    row: EventRow, state: dict[str, Any] | None, seat: str | None, ruleset: AnyRuleset, board: Any
) -> ExportEvent:
    """One event of the file; ``state`` the state it left (snapshot or rebuilt)."""
    view = event_view(row, seat)
    if view.redacted:
        return ExportEvent(
            seq=row.seq,
            version=row.version,
            kind="redacted",
            redacted=True,
            created_at=view.created_at,
        )
    if state is not None and seat != UMPIRE and not full_view(ruleset):
        shown = ruleset.view(board, ruleset.load_state(state), seat)
        state = state if shown == state else None
    return ExportEvent(
        seq=row.seq,
        version=row.version,
        kind=row.kind,
        seat=row.seat,
        action=dict(row.action),
        ruling=row.ruling,
        dice=[dict(d) for d in row.dice],
        payload=row.payload,
        visible_to=row.visible_to,
        ruleset_version=row.ruleset_version,
        created_at=view.created_at,
        state_after=state,
    )


def export_game(
    uow: AbstractUnitOfWork, game_id: str, *, token: str | None, boards: BoardCache
) -> ExportFile:
    """The game as one portable file, as the bearer's seat may see it."""
    with uow.begin():
        game = load_game(uow, game_id, boards)
        row = game.row
        seat = reader_seat(uow, row, token)
        scenario = uow.games.scenario(row.scenario_id).scenario
        rows = all_events(uow, game_id)
        initial = row.initial_state
        states = uow.games.states_after(game_id, rows, initial)
        events = [
            _event(r, s, seat, game.ruleset, game.board) for r, s in zip(rows, states, strict=True)
        ]
        initial_hidden = False
        if initial is not None and seat != UMPIRE and not full_view(game.ruleset):
            shown = game.ruleset.view(game.board, game.ruleset.load_state(initial), seat)
            initial_hidden = shown != initial
            initial = None if initial_hidden else initial
        seed_shown = mt.seed_visible(row, seat)
        versions = sorted({e.ruleset_version for e in events if e.ruleset_version})
        talk = [
            ExportMessage(**m.model_dump())
            for m in msgs.read_stream_batch(uow, row, seat, after=0, limit=None)
        ]
        return ExportFile(
            exported_at=utc_now(),
            reader=seat,
            complete=seat == UMPIRE,
            game=ExportGame(
                id=row.id,
                status=row.status,
                public=row.public,
                version=row.version,
                winner=row.winner,
                created_at=aware_utc(row.created_at),
            ),
            ruleset=ExportRuleset(
                id=row.ruleset_id,
                version=row.ruleset_version,
                created_version=row.created_version,
                versions=versions,
            ),
            scenario=scenario,
            options=row.options,
            match=mt.options_of(row).model_dump(mode="json"),
            initial_state=initial,
            dice=ExportDice(
                commitment=row.dice_commitment,
                seed=row.dice_seed if seed_shown else None,
                rolled=row.dice_counter,
                physical=mt.options_of(row).physical_dice,
            ),
            sealed=_sealed(events),
            events=events,
            messages=talk,
            withheld=ExportWithheld(
                events=[e.seq for e in events if e.redacted],
                states=[e.seq for e in events if not e.redacted and e.state_after is None],
                initial_state=initial_hidden,
                seed=not seed_shown,
            ),
        )


# -- verify ---------------------------------------------------------------------------------


class Unchecked(BaseModel):
    model_config = ConfigDict(frozen=True)

    seq: int | None = Field(description="The event; null for the file as a whole.")
    kind: str
    reason: str


class VerifyReport(BaseModel):
    """What re-adjudicating an export file with this instance's rulesets found."""

    model_config = ConfigDict(frozen=True)

    format: str
    game: str = Field(description="The exported game's id.")
    ruleset: str
    file_versions: list[str] = Field(
        description="The ruleset versions the file's events were judged by."
    )
    running_version: str = Field(description="The version of the ruleset this instance runs.")
    version_changed: bool = Field(
        description="The file was judged by another ruleset version than this instance runs: "
        "differences that follow are labelled as such (a rules change, not an edited file)."
    )
    version_note: str | None = None
    reader: str | None
    complete: bool = Field(description="The file is the umpire's (nothing withheld).")
    ok: bool = Field(description="No difference in anything that could be checked.")
    verified_all: bool = Field(description="`ok`, and nothing was left unchecked.")
    events: int
    first_difference: AuditDifference | None
    differences: list[AuditDifference]
    stretches: list[AuditStretch]
    unchecked: list[Unchecked] = Field(
        description="What the file withholds from its reader, so could not be checked."
    )
    rolls_checked: int
    orders_checked: int
    seed: Literal["verified", "mismatch", "absent"]
    summary: str


def parse_file(document: Any) -> ExportFile:
    """An export file from its JSON document (422 ``export.invalid`` naming bad fields)."""
    try:
        return ExportFile.model_validate(document)
    except ValidationError as exc:
        raise InvalidInput(
            "this is not a Referee export file (format referee-export-1)",
            field_errors(exc, []),
            code="export.invalid",
        ) from None


def _diff(
    seq: int, version: int, kind: str, field: str, message: str, recorded: Any, replayed: Any
) -> AuditDifference:
    return AuditDifference(
        seq=seq,
        version=version,
        kind=kind,
        field=field,
        message=message,
        recorded=recorded,
        replayed=replayed,
    )


def _entry(e: ExportEvent) -> LogEntry:
    return LogEntry(
        seq=e.seq,
        version=e.version,
        kind=e.kind,
        seat=e.seat,
        action=e.action,
        ruling=e.ruling,
        dice=e.dice,
        payload=e.payload,
        state_after=e.state_after,
        ruleset_version=e.ruleset_version,
        redacted=e.redacted,
    )


def _check_sealed(
    events: Sequence[ExportEvent],
) -> tuple[list[AuditDifference], list[Unchecked], int]:
    """Every revealed order against the commitment its side's receipt published earlier."""
    differences: list[AuditDifference] = []
    unchecked: list[Unchecked] = []
    checked = 0
    receipts: dict[tuple[str, str], ExportEvent] = {}
    hidden_before = False
    for e in events:
        if e.redacted:
            hidden_before = True
            continue
        if e.payload is None:
            continue
        if e.kind == "sealed_received":
            key = (str(e.payload.get("instance")), str(e.payload.get("side")))
            receipts[key] = e
            continue
        if e.kind != "sealed_revealed":
            continue
        instance = str(e.payload.get("instance"))
        for side, order in (e.payload.get("orders") or {}).items():
            receipt = receipts.get((instance, side))
            if receipt is None or receipt.payload is None:
                if hidden_before:
                    unchecked.append(
                        Unchecked(seq=e.seq, kind=e.kind, reason=f"{side}'s receipt is hidden")
                    )
                else:
                    differences.append(
                        _diff(
                            e.seq,
                            e.version,
                            e.kind,
                            "commitment",
                            f"{side}'s revealed order has no receipt before the reveal",
                            None,
                            order.get("commitment"),
                        )
                    )
                continue
            checked += 1
            published = str(receipt.payload.get("commitment"))
            nonce, canonical = str(order.get("nonce")), str(order.get("canonical"))
            recomputed = _commitment(nonce, canonical)
            problem = None
            if recomputed != published:
                problem = (
                    f"{side}'s revealed order does not match the commitment of its receipt "
                    f"(event {receipt.seq})",
                    published,
                    recomputed,
                )
            elif str(order.get("commitment")) != published:
                problem = (
                    f"{side}'s reveal shows another commitment than its receipt "
                    f"(event {receipt.seq})",
                    published,
                    order.get("commitment"),
                )
            else:
                try:
                    same = json.loads(canonical) == order.get("order")
                except ValueError:
                    same = False
                if not same:
                    problem = (
                        f"{side}'s revealed order is not the canonical text it committed to",
                        canonical,
                        order.get("order"),
                    )
            if problem is not None:
                message, recorded, replayed = problem
                differences.append(
                    _diff(e.seq, e.version, e.kind, "commitment", message, recorded, replayed)
                )
    return differences, unchecked, checked


def _commitment(nonce: str, canonical: str) -> str:
    from app.service.sealed import commitment

    return commitment(nonce, canonical)


def verify_file(document: Any) -> VerifyReport:
    """Re-adjudicate an export file with this instance's rulesets (see the module doc)."""
    file = document if isinstance(document, ExportFile) else parse_file(document)
    try:
        ruleset = registry.get(file.ruleset.id)
    except registry.UnknownRuleset:
        raise InvalidInput(
            f"this instance has no ruleset {file.ruleset.id!r}: the file cannot be verified here",
            [],
            code="verify.ruleset_unavailable",
        ) from None
    differences: list[AuditDifference] = []
    unchecked: list[Unchecked] = []
    try:
        options = ruleset.parse_options(dict(file.options))
        board, state = ruleset.setup(ruleset.parse_scenario(file.scenario), options)
    except Exception as exc:  # the scenario does not set up here: nothing can be replayed
        raise InvalidInput(
            f"the file's scenario does not set up with {ruleset.id} {ruleset.version}: {exc}",
            [],
            code="verify.scenario_invalid",
        ) from None
    initial = state.model_dump(mode="json")
    if file.initial_state is not None and file.initial_state != initial:
        differences.append(
            _diff(
                0,
                1,
                "setup",
                "state",
                "the initial state is not what the scenario sets up",
                file.initial_state,
                initial,
            )
        )
    seed: bytes | None = None
    seed_status: Literal["verified", "mismatch", "absent"] = "absent"
    if file.dice.seed is not None:
        try:
            seed = bytes.fromhex(file.dice.seed)
        except ValueError:
            seed = b""
        if dicelib.commitment(seed) == (file.dice.commitment or ""):
            seed_status = "verified"
        else:
            seed_status = "mismatch"
            differences.append(
                _diff(
                    0,
                    1,
                    "dice",
                    "dice",
                    "the seed does not match the dice commitment",
                    file.dice.commitment,
                    dicelib.commitment(seed),
                )
            )
            seed = None
    for n, e in enumerate(file.events, start=1):
        if e.seq != n or e.version != n + 1:
            differences.append(
                _diff(
                    e.seq,
                    e.version,
                    e.kind,
                    "seq",
                    f"the log is not gap-free: event {n} should have seq {n} and version {n + 1}",
                    [e.seq, e.version],
                    [n, n + 1],
                )
            )
            break
    entries = [_entry(e) for e in file.events]
    keys: list[DiceKey] = dice_keys(file.game.id, seed, entries)
    outcome = replay_log(
        ReplayInput(
            game_id=file.game.id,
            ruleset=ruleset,
            board=board,
            options=options,
            initial_state=initial,
            recorded_version=file.ruleset.version,
            entries=entries,
            dice=keys,
        )
    )
    report = outcome.report
    differences += report.differences
    unchecked += [Unchecked(seq=s, kind=k, reason=why) for s, k, why in outcome.unchecked]
    sealed_diffs, sealed_unchecked, orders_checked = _check_sealed(file.events)
    differences += sealed_diffs
    unchecked += sealed_unchecked
    derived = any(
        d.get("entered_by") is None
        for e in file.events
        if not e.redacted and (k := dice_key_for(keys, e.seq)) is not None and k.seed is None
        for d in e.dice
    )
    if derived:
        unchecked.append(
            Unchecked(
                seq=None,
                kind="dice",
                reason="the dice seed is not in the file (not yet revealed to its reader): "
                "derived rolls could not be checked",
            )
        )
    differences.sort(key=lambda d: d.seq)
    if file.sealed != _sealed(file.events):  # a gathering of the events: after what they show
        differences.append(
            _diff(
                0,
                1,
                "sealed",
                "sealed",
                "the file's `sealed` summary does not match its sealed events",
                None,
                None,
            )
        )
    versions = sorted({e.ruleset_version for e in file.events if e.ruleset_version})
    note = None
    if report.version_changed:
        judged = ", ".join(versions) or file.ruleset.version
        note = (
            f"the file's events were judged by {ruleset.id} {judged}; this instance runs "
            f"{ruleset.version}: a difference below may follow from that rules change"
        )
    first = differences[0] if differences else None
    ok = not differences
    if first is not None:
        summary = f"event {first.seq} ({first.kind}) differs: {first.field}: {first.message}"
    elif unchecked:
        summary = f"verified what the file shows; {len(unchecked)} item(s) could not be checked"
    else:
        summary = "verified: every ruling, state, roll and sealed reveal replays identically"
    if note is not None:
        summary += f" ({note})"
    return VerifyReport(
        format=file.format,
        game=file.game.id,
        ruleset=ruleset.id,
        file_versions=versions,
        running_version=ruleset.version,
        version_changed=report.version_changed,
        version_note=note,
        reader=file.reader,
        complete=file.complete,
        ok=ok,
        verified_all=ok and not unchecked,
        events=len(file.events),
        first_difference=first,
        differences=differences,
        stretches=report.stretches,
        unchecked=unchecked,
        rolls_checked=outcome.rolls_checked,
        orders_checked=orders_checked,
        seed=seed_status,
        summary=summary,
    )


def imported_origin(file: ExportFile) -> Mapping[str, Any]:
    """What an imported game records of where it came from (its ``imported`` event)."""
    return {
        "format": file.format,
        "game": file.game.id,
        "exported_at": file.exported_at.isoformat(),
        "ruleset": file.ruleset.id,
        "ruleset_version": file.ruleset.version,
        "events": len(file.events),
        "dice": {
            "game": file.game.id,
            "commitment": file.dice.commitment,
            "seed": file.dice.seed,
        },
    }


__all__ = ["IMPORTED", "ExportFile", "VerifyReport", "export_game", "verify_file"]
