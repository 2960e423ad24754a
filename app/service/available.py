"""What can I do now: ``GET /games/{id}/actions/available`` for the reader's seat.

Combines what the service knows -- the game's status, its position in the sequence of play
(may this seat act, may it end the phase), the open sealed decisions and who has submitted
-- with the ruleset's own answer (``Ruleset.available_actions``: the action kinds open to
the seat and the units that may act, with the sections that decide it). Everything is
cited: the sequence of play when it gates the answer, the sections the ruleset names, and
each sealed decision's section. A hint for front ends: a ruling remains the authority.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.db.sealed import sealed_orders
from app.db.uow import AbstractUnitOfWork
from app.rules.base import UMPIRE, AvailableActions, UnitActions
from app.rules.ruling import Citation
from app.service import match as mt
from app.service.boards import BoardCache
from app.service.errors import Unauthenticated
from app.service.identity import identify, require_seat
from app.service.pipeline import clock_now, guard, load_game, settle_clock, turn_of
from app.service.policies import citation
from app.service.results import PositionView
from app.service.sealed import current_instance


class SealedChoice(BaseModel):
    decision: str
    title: str
    sides: list[str]
    submitted: bool = Field(description="This seat's order is in.")
    waiting: list[str] = Field(description="Sides whose order is not in yet.")
    may_open: bool = Field(description="The umpire may open it early.")
    citation: Citation | None = None


class AvailableView(BaseModel):
    game: str
    version: int
    seat: str
    status: str
    position: PositionView | None = None
    may_act: bool = Field(description="The sequence of play lets this seat submit actions.")
    may_end_phase: bool = Field(description="This seat may POST /games/{id}/phase/end now.")
    kinds: list[str] = Field(description="Action kinds open to this seat now.")
    units: list[UnitActions] = Field(description="Units that may act now and their kinds.")
    sealed: list[SealedChoice] = Field(description="Open sealed decisions for this seat.")
    citations: list[Citation] = Field(description="Every section the answer depends on.")
    notes: list[str] = Field(default_factory=list)


def available(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str | None,
    boards: BoardCache,
    now: float | None = None,
) -> AvailableView:
    """What the seat of ``token`` may do now (401 without a seat token, 403 for a
    spectator: it does nothing)."""
    if token is None:
        raise Unauthenticated("this answer is per seat: present a seat token", code="auth.required")
    settle_clock(uow, game_id, now=clock_now(now), boards=boards)
    with uow.begin():
        game = load_game(uow, game_id, boards)
        seat = require_seat(identify(uow, game.row, token))
        active = game.row.status == "active"
        # a game pinned to another ruleset version than the one running: nothing is judged
        # until the umpire upgrades it (app.service.upgrade)
        pinned = game.row.ruleset_version != game.ruleset.version
        playable = active and not pinned
        turn = turn_of(game, game.state)
        enforce = mt.options_of(game.row).enforce_sequence
        may_act = playable and (turn is None or not enforce or mt.may_act(turn, seat, None))
        citations: list[Citation] = [turn.sequence.citation] if turn is not None else []
        answer = AvailableActions()
        with guard("state"):
            if may_act:
                answer = game.ruleset.available_actions(game.board, game.state, game.options, seat)
            decisions = game.ruleset.sealed_decisions(game.board, game.state) if playable else {}
        sealed: list[SealedChoice] = []
        for decision in decisions.values():
            if seat not in decision.sides and seat != UMPIRE:
                continue
            _, rows = current_instance(sealed_orders(uow), game.row.id, decision.id)
            done = {r.seat for r in rows}
            sealed.append(
                SealedChoice(
                    decision=decision.id,
                    title=decision.title,
                    sides=list(decision.sides),
                    submitted=seat in done,
                    waiting=[s for s in decision.sides if s not in done],
                    may_open=seat == UMPIRE,
                    citation=decision.citation,
                )
            )
            if decision.citation is not None:
                citations.append(decision.citation)
        notes = list(answer.notes)
        if not active:
            notes.insert(0, f"The game is {game.row.status}: nothing more may be played.")
        elif pinned:
            notes.insert(
                0,
                f"The game is played under {game.ruleset.id} {game.row.ruleset_version} and "
                f"this server runs {game.ruleset.version}: nothing can be played until the "
                "umpire upgrades it (POST /games/{id}/upgrade).",
            )
            citations.append(citation("ruleset-version"))
        elif not may_act and turn is not None:
            notes.insert(
                0,
                f"Turn {turn.position.turn}, {turn.phase.title}: the sequence of play does not "
                f"let {seat} act now.",
            )
        return AvailableView(
            game=game.row.id,
            version=game.row.version,
            seat=seat,
            status=game.row.status,
            position=mt.position_view(turn),
            may_act=may_act,
            may_end_phase=playable and turn is not None and mt.may_end_phase(turn, seat),
            kinds=list(answer.kinds),
            units=list(answer.units),
            sealed=sealed,
            citations=list(dict.fromkeys([*citations, *answer.citations])),
            notes=notes,
        )
