"""A database made by an older release (issue 22 item 10): migrated to revision 0005 only, with
a tiny game written into it row by row as that release's code wrote games and events --
no ``events.ruleset_version``, no ``games.created_version`` -- under an older ruleset version.

The game's first step is recorded with the ruling "the old version" gave (its summary words
differ), so replaying the log under the version the suite runs finds one difference; the
other events replay identically.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import MetaData, insert

from app.db.engine import make_engine
from app.db.migrate import upgrade
from app.service import match as mt
from app.service.boards import canonical_json
from app.service.tokens import hash_token, new_token
from tests.support.tiny import TINY

OLD_VERSION = "0.9"
"""The tiny ruleset's version 'the older release' ran (the suite runs TINY.version)."""

OLD_SUMMARY = "Moved (as version 0.9 worded it)."
"""The recorded summary of event 1: what the old version said, which the running one does not."""

STEPS: tuple[tuple[str, str, int], ...] = (("red", "r1", 2), ("blue", "b1", -1), ("red", "r1", 1))


@dataclass(frozen=True)
class OldGame:
    id: str
    seats: dict[str, str]
    events: int


def old_release_game(url: str, *, upgrade_after: bool = True) -> OldGame:
    """Migrate ``url`` (an empty database) to 0005, write a game as that release did, then
    (``upgrade_after``) run the migrations up to head like an operator upgrading Referee."""
    upgrade(url, "0005")
    engine = make_engine(url)
    try:
        meta = MetaData()
        meta.reflect(engine, only=["scenarios", "games", "seats", "events"])
        tables = meta.tables
        assert "ruleset_version" not in tables["events"].c  # really the old schema
        scenario = TINY.parse_scenario({**(TINY.example_scenario() or {}), "length": 30})
        options = TINY.parse_options({})
        board, state = TINY.setup(scenario, options)
        initial = state.model_dump(mode="json")
        board_json = board.model_dump(mode="json")
        created = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
        game_id, scenario_id = str(uuid.uuid4()), str(uuid.uuid4())
        seed, commitment = mt.new_seed()
        tokens = {name: new_token() for name in ("red", "blue", "umpire")}
        events: list[dict[str, Any]] = []
        for n, (seat, pawn, steps) in enumerate(STEPS, start=1):
            action = TINY.parse_action({"kind": "step", "pawn": pawn, "n": steps})
            ruling = TINY.adjudicate(board, state, action, options, ())
            state = TINY.apply(board, state, action, ruling)
            recorded = ruling.model_dump(mode="json")
            if n == 1:
                recorded["summary"] = OLD_SUMMARY
            events.append(
                {
                    "game_id": game_id,
                    "seq": n,
                    "seat": seat,
                    "kind": "step",
                    "action": action.model_dump(mode="json"),
                    "ruling": recorded,
                    "dice": [],
                    "version": n + 1,
                    "idempotency_key": None,
                    "request_digest": None,
                    "response": None,
                    "created_at": created + timedelta(minutes=n),
                    "payload": None,
                    "state_after": state.model_dump(mode="json"),
                    "visible_to": None,
                }
            )
        with engine.begin() as conn:
            conn.execute(
                insert(tables["scenarios"]).values(
                    id=scenario_id,
                    ruleset_id=TINY.id,
                    ruleset_version=OLD_VERSION,
                    digest=hashlib.sha256(canonical_json(board_json)).hexdigest(),
                    scenario=scenario.model_dump(mode="json"),
                    board=board_json,
                    created_at=created,
                )
            )
            conn.execute(
                insert(tables["games"]).values(
                    id=game_id,
                    ruleset_id=TINY.id,
                    ruleset_version=OLD_VERSION,
                    scenario_id=scenario_id,
                    options=options.model_dump(mode="json"),
                    state=state.model_dump(mode="json"),
                    version=len(STEPS) + 1,
                    status="active",
                    public=True,
                    created_at=created,
                    updated_at=created + timedelta(minutes=len(STEPS)),
                    dice_seed=seed,
                    dice_commitment=commitment,
                    dice_counter=0,
                    seed_revealed=False,
                    match=mt.MatchOptions().model_dump(mode="json"),
                    clock=None,
                    initial_state=initial,
                    winner=None,
                )
            )
            conn.execute(
                insert(tables["seats"]),
                [
                    {
                        "game_id": game_id,
                        "seat": name,
                        "token_hash": hash_token(token),
                        "created_at": created,
                    }
                    for name, token in tokens.items()
                ],
            )
            conn.execute(insert(tables["events"]), events)
    finally:
        engine.dispose()
    if upgrade_after:
        upgrade(url)
    return OldGame(id=game_id, seats=tokens, events=len(STEPS))
