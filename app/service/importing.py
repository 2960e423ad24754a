"""Import a game from a verified, complete export file and continue it (issue 26).

``POST /games/import`` takes the umpire's export file (:mod:`app.service.export`), verifies it
with this instance's rulesets -- refusing it (422) with the first difference named when it does
not verify, or when something in it could not be checked -- and creates a game holding the
same scenario, options, match settings and log, then issues new seat tokens, shown once as
``POST /games`` does. The log is copied event by event (same seq, version, rulings, dice,
snapshots and ruleset versions) and one ``imported`` event is appended: it records where the
game came from (the exported game's id, when it was exported, its ruleset version and dice
commitment and seed) and starts the new game's own history. The new game draws a fresh dice
seed -- a seed that was revealed would make later rolls predictable -- and the audit checks
the imported rolls against the exported game's seed (:func:`app.service.audit.dice_keys`).

Sealed orders still sealed in the file cannot come along (nobody, not even the umpire, could
export their content): a file with an order received and neither revealed nor withdrawn is
refused (``import.sealed_pending``); open or reveal the decision first.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from app.db.models import EventRow, GameRow, ScenarioRow, SealedOrderRow, SeatRow
from app.db.sealed import sealed_orders
from app.db.uow import AbstractUnitOfWork
from app.rules import registry
from app.rules.base import UMPIRE
from app.rules.ruling import Ruling
from app.service import match as mt
from app.service.audit import IMPORTED
from app.service.boards import canonical_json
from app.service.errors import InvalidInput, field_errors
from app.service.export import ExportFile, imported_origin, parse_file, verify_file
from app.service.pipeline import INITIAL_VERSION, clock_now, require_storable, utc_now
from app.service.results import CreatedGame
from app.service.tokens import hash_token, new_token


def _refuse(detail: str, *, code: str, **extra: Any) -> InvalidInput:
    return InvalidInput(detail, [], code=code, **extra)


def _when(value: Any, default: datetime) -> datetime:
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return default
    return default


def _pending_sealed(file: ExportFile) -> list[str]:
    """Instances with an order received, not revealed and not withdrawn by a rollback."""
    withdrawn = {
        int(w.get("event", -1))
        for e in file.events
        if e.kind == "rollback" and e.payload is not None
        for w in e.payload.get("withdrawn") or ()
    }
    return [
        f"{s.instance} ({side})"
        for s in file.sealed
        if s.revealed is None
        for side, seq in s.received.items()
        if seq not in withdrawn
    ]


def import_game(uow: AbstractUnitOfWork, document: Any, *, now: float | None = None) -> CreatedGame:
    """Verify the umpire's export file and create a game continuing it (see the module)."""
    file = parse_file(document)
    if not file.complete or file.reader != UMPIRE:
        raise _refuse(
            "only the umpire's export file (complete: true) can be imported: a seat's file "
            "withholds what the seat may not see",
            code="import.incomplete",
        )
    report = verify_file(file)
    if report.first_difference is not None:
        d = report.first_difference
        raise _refuse(
            f"the file does not verify: event {d.seq} ({d.kind}) differs: {d.field}: {d.message}",
            code="import.unverified",
            difference=d.model_dump(mode="json"),
        )
    if report.unchecked:
        gap = report.unchecked[0]
        where = f"event {gap.seq} ({gap.kind})" if gap.seq is not None else gap.kind
        raise _refuse(
            f"the file could not be verified in full: {where}: {gap.reason}"
            + (
                "; have the seed revealed (POST /games/{id}/dice/reveal) before exporting"
                if gap.kind == "dice"
                else ""
            ),
            code="import.unverifiable",
        )
    pending = _pending_sealed(file)
    if pending:
        raise _refuse(
            "the file holds sealed orders not yet revealed, which cannot be carried over: "
            + ", ".join(pending)
            + "; open or reveal the decision before exporting",
            code="import.sealed_pending",
        )
    require_storable(
        {"scenario": file.scenario, "options": file.options, "match": file.match},
        code="export.invalid",
    )
    for e in file.events:
        require_storable(e.model_dump(mode="json"), ("events", e.seq - 1), code="export.invalid")
    try:
        match = mt.MatchOptions.model_validate(file.match)
    except ValidationError as exc:
        raise InvalidInput(
            "the file's match settings are not valid here",
            field_errors(exc, ["match"]),
            code="export.invalid",
        ) from None
    ruleset = registry.get(file.ruleset.id)  # verify_file found it
    options = ruleset.parse_options(dict(file.options))
    scenario = ruleset.parse_scenario(file.scenario)
    board, initial = ruleset.setup(scenario, options)
    sides = ruleset.sides(board)
    events = list(file.events)
    last_state = next(
        (e.state_after for e in reversed(events) if e.state_after is not None),
        initial.model_dump(mode="json"),
    )
    state = ruleset.load_state(last_state)
    board_json = board.model_dump(mode="json")
    created = utc_now()
    seed, commitment = mt.new_seed()
    finished = file.game.status == "finished"
    first = mt.expected_side(mt.where(ruleset, board, state), sides.names, None, sides.names[0])
    clock = None if finished else mt.start_clock(match, sides.names, first, clock_now(now))
    seq = len(events) + 1
    scenario_row = ScenarioRow(
        id=str(uuid.uuid4()),
        ruleset_id=ruleset.id,
        ruleset_version=file.ruleset.version,
        digest=hashlib.sha256(canonical_json(board_json)).hexdigest(),
        scenario=scenario.model_dump(mode="json"),
        board=board_json,
        created_at=created,
    )
    game = GameRow(
        id=str(uuid.uuid4()),
        ruleset_id=ruleset.id,
        ruleset_version=file.ruleset.version,
        created_version=file.ruleset.created_version,
        scenario_id=scenario_row.id,
        options=options.model_dump(mode="json"),
        state=last_state,
        version=seq + INITIAL_VERSION,
        status=file.game.status,
        public=file.game.public,
        created_at=created,
        updated_at=created,
        dice_seed=seed,
        dice_commitment=commitment,
        dice_counter=file.dice.rolled,
        seed_revealed=False,
        match=match.model_dump(mode="json"),
        clock=clock,
        initial_state=initial.model_dump(mode="json"),
        winner=file.game.winner,
    )
    tokens = {name: new_token() for name in (*sides.names, UMPIRE)}
    seats = [
        SeatRow(game_id=game.id, seat=name, token_hash=hash_token(token), created_at=created)
        for name, token in tokens.items()
    ]
    origin = dict(imported_origin(file))
    marker = EventRow(
        game_id=game.id,
        seq=seq,
        seat=UMPIRE,
        kind=IMPORTED,
        action={},
        ruling=Ruling(
            legal=True,
            summary=f"Imported from game {file.game.id} (exported {file.exported_at.isoformat()})"
            f": {len(events)} events verified with {ruleset.id} {ruleset.version}.",
        ).model_dump(mode="json"),
        dice=[],
        version=seq + INITIAL_VERSION,
        created_at=created,
        payload={**origin, "commitment": commitment},
        state_after=last_state,
        visible_to=None,
        ruleset_version=ruleset.version,
    )
    with uow.begin(write=True):
        uow.games.add(scenario_row, game, seats)
        for e in events:
            uow.games.append_event(
                EventRow(
                    game_id=game.id,
                    seq=e.seq,
                    seat=e.seat or UMPIRE,
                    kind=e.kind,
                    action=dict(e.action),
                    ruling=e.ruling or {},
                    dice=list(e.dice),
                    version=e.version,
                    created_at=e.created_at,
                    payload=e.payload,
                    state_after=e.state_after,
                    visible_to=e.visible_to,
                    ruleset_version=e.ruleset_version,
                )
            )
        uow.games.append_event(marker)
        repo = sealed_orders(uow)
        for e in events:
            if e.kind != "sealed_revealed" or e.payload is None:
                continue
            for side, o in (e.payload.get("orders") or {}).items():
                repo.add(
                    SealedOrderRow(
                        game_id=game.id,
                        decision=str(e.payload.get("instance")),
                        seat=side,
                        commitment=str(o.get("commitment")),
                        nonce=str(o.get("nonce")),
                        order=dict(o.get("order") or {}),
                        received_at=_when(o.get("received_at"), e.created_at),
                        revealed_at=e.created_at,
                    )
                )
        uow.commit()
    return CreatedGame(
        id=game.id,
        ruleset=ruleset.id,
        ruleset_version=game.ruleset_version,
        version=game.version,
        public=game.public,
        seats=tokens,
    )
