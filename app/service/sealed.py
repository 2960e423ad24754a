"""Sealed orders: simultaneous secret decisions, committed, revealed at once, adjudicated.

A ruleset opens a sealed decision through its ``sealed_decisions(board, state)`` hook (e.g.
``bid.r1`` of the blind test ruleset, the objective-zone troop allocation). Then:

1. **Submit.** A seat of a side the decision lists submits its order. The service validates it
   with the decision's ``order_model`` -- passing the pydantic validation context
   ``{"board", "state", "side", "options"}`` so a ruleset can refuse an order the side cannot
   afford *now*, never after the reveal -- draws a secret 32-byte ``nonce`` and stores the
   order with its **commitment**::

       canonical  = JSON of the order, keys sorted, no spaces, UTF-8 (non-ASCII unescaped)
       commitment = hex(SHA-256(UTF-8(nonce_hex + canonical)))

   It appends a ``sealed_received`` event visible to every reader that holds only the
   decision, the side and the commitment. The submitter's own answer (and ``GET .../sealed``
   for that seat) also shows its order, nonce and canonical text; nobody else -- not the
   other sides, not spectators, not the umpire -- can read the order before the reveal.
   An order is final once received: a second order from the same side is refused (409
   ``sealed.already_submitted``), because a commitment that could be replaced would commit to
   nothing. Only an umpire rollback to a version before the order withdraws it (unrevealed;
   see ``flow.rollback``); the side then submits again.
2. **Reveal.** When every listed side has submitted -- or when the umpire opens the decision
   early (missing sides are named; the ruleset decides what a missing order means) -- all
   orders are revealed in the same transaction: the dice the resolution needs
   (``sealed_dice_needed``) are rolled with the game's verifiable dice, the ruleset judges the
   orders (``resolve_sealed``) and, if the ruling is legal, applies them (``apply_sealed``).
   One ``sealed_revealed`` event carries every order with its nonce, canonical text and
   commitment, the missing sides, the ruling and the rolls, so anyone can check each
   commitment published earlier. With physical dice a reveal that needs dice waits for the
   umpire, who opens it and enters the dice (header ``Referee-Dice``).
3. **Illegal resolution.** If the ruling is illegal (the orders conflict in a way no single
   order showed), the orders stay revealed, the state is unchanged and, if the ruleset still
   lists the decision, a fresh *instance* of it opens (stored as ``<id>#2``, ``#3``…).

Every event bumps the game version by one, like an action. :func:`resolve_revealed` is the
pure part of a reveal, for audit replays.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from app.db.models import EventRow, SealedOrderRow
from app.db.sealed import SealedOrderRepository, sealed_orders
from app.db.uow import AbstractUnitOfWork
from app.rules.base import UMPIRE, RulesError, Ruleset, SealedDecision
from app.rules.play import die_sizes
from app.rules.ruling import Citation, Ruling
from app.service import match as mt
from app.service.boards import BoardCache, digest
from app.service.errors import (
    Conflict,
    Forbidden,
    IdempotencyKeyReused,
    IllegalOrder,
    InvalidInput,
    NotFound,
    RulesRejected,
    field_errors,
)
from app.service.pipeline import (
    Game,
    IfMatch,
    Write,
    WriteRequest,
    append_event,
    aware_utc,
    clock_now,
    guard,
    load_game,
    reader_seat,
    require_active,
    require_running_version,
    require_storable,
    run_write,
    settle_clock,
    utc_now,
)
from app.service.policies import cite

AnyRuleset = Ruleset[Any, Any, Any, Any]

log = logging.getLogger("referee.sealed")

RECIPE = "referee-sealed-v1"
"""Name of the commitment recipe (see the module docstring and docs/match-flow.md)."""

NONCE_BYTES = 32
RECEIVED = "sealed_received"
REVEALED = "sealed_revealed"
ANY_VERSION = " (or `*`)"
"""Ends the 428 message: orders of different sides never conflict, so `If-Match: *` is fine."""


# -- the commitment recipe -----------------------------------------------------------------


def canonical_json(order: Any) -> str:
    """The exact text a commitment covers: sorted keys, no whitespace, non-ASCII kept."""
    return json.dumps(order, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def commitment(nonce_hex: str, canonical: str) -> str:
    """``hex(SHA-256(UTF-8(nonce_hex + canonical)))``."""
    return hashlib.sha256((nonce_hex + canonical).encode("utf-8")).hexdigest()


def verify(published: str, nonce_hex: str, canonical: str) -> bool:
    """Whether a revealed order (nonce and canonical text) matches its commitment."""
    return hmac.compare_digest(commitment(nonce_hex, canonical), published)


# -- response models -----------------------------------------------------------------------


class _Out(BaseModel):
    model_config = {"frozen": True}


class RevealedOrder(_Out):
    order: dict[str, Any]
    nonce: str = Field(description="64 hex digits drawn by the service at submission.")
    canonical: str = Field(description="The exact text the commitment covers.")
    commitment: str = Field(description="hex(SHA-256(UTF-8(nonce + canonical))).")
    received_at: datetime


class Receipt(_Out):
    """What one side's submission published: never the order itself."""

    side: str
    commitment: str
    received_at: datetime


class RevealView(_Out):
    decision: str
    instance: str = Field(description="`<decision>` or `<decision>#<n>` for a re-opened one.")
    event: int = Field(description="Sequence number of the `sealed_revealed` event.")
    version: int
    opened_by: str | None = Field(description="`umpire` when opened early; null when complete.")
    orders: dict[str, RevealedOrder] = Field(description="Side -> revealed order.")
    missing: list[str] = Field(description="Listed sides that had not submitted.")
    ruling: Ruling
    applied: bool = Field(description="False when the ruling was illegal (state unchanged).")
    revealed_at: datetime


class SubmitResult(_Out):
    """The answer to the submitting seat (the only one that ever sees its order early)."""

    decision: str
    instance: str
    side: str
    commitment: str
    nonce: str
    canonical: str
    order: dict[str, Any]
    recipe: str = RECIPE
    event: int = Field(description="Sequence number of the `sealed_received` event.")
    version: int = Field(description="The game version after this request (the new ETag).")
    reveal: RevealView | None = Field(
        default=None, description="Present when this order completed the set and all revealed."
    )
    awaiting_umpire: bool = Field(
        default=False,
        description="True when every order is in but the umpire must open the decision and "
        "enter physical dice.",
    )


class OpenDecision(_Out):
    id: str
    instance: str
    title: str
    sides: list[str]
    citation: Citation | None
    order_schema: dict[str, Any] = Field(description="JSON schema of an order.")
    received: list[Receipt]
    waiting: list[str] = Field(description="Sides that have not submitted yet.")
    awaiting_umpire: bool
    own: RevealedOrder | None = Field(
        default=None, description="The reader's own order (only for the seat that sent it)."
    )


class OrderCheck(_Out):
    """A dry run of one side's sealed order: the ruling it would get; nothing is stored."""

    decision: str
    side: str
    version: int = Field(description="The game version the order was judged against.")
    ruling: Ruling


class SealedListing(_Out):
    recipe: str = RECIPE
    version: int
    open: list[OpenDecision]
    revealed: list[RevealView]


@dataclass(frozen=True)
class SealedOutcome:
    """A submission's outcome: ``body`` is the JSON text answered (replayed byte for byte)."""

    body: str
    event: int
    version: int
    replayed: bool = False


@dataclass(frozen=True)
class Resolution:
    ruling: Ruling
    state: Any
    applied: bool


# -- the pure part of a reveal (also used by audit replays) --------------------------------


def parse_orders(
    decision: SealedDecision, orders: Mapping[str, Mapping[str, Any]]
) -> dict[str, BaseModel]:
    """Stored order documents -> the decision's order models (structure only)."""
    return {side: decision.order_model.model_validate(doc) for side, doc in orders.items()}


def resolve_revealed(
    ruleset: AnyRuleset,
    board: Any,
    state: Any,
    options: Any,
    decision_id: str,
    orders: Mapping[str, Mapping[str, Any]],
    dice: Sequence[int],
) -> Resolution:
    """Judge revealed orders and, when the ruling is legal, apply them. Deterministic.

    ``orders`` maps side -> stored order document; ``dice`` are the values rolled for the
    reveal (``sealed_dice_needed`` sizes, in order).
    """
    decision = ruleset.sealed_decisions(board, state).get(decision_id)
    if decision is None:
        raise LookupError(f"sealed decision {decision_id!r} is not open in this state")
    parsed = parse_orders(decision, orders)
    ruling = ruleset.resolve_sealed(board, state, decision_id, parsed, options, tuple(dice))
    if not ruling.legal:
        return Resolution(ruling, state, applied=False)
    new_state = ruleset.apply_sealed(board, state, decision_id, parsed, ruling)
    return Resolution(ruling, new_state, applied=True)


# -- helpers -------------------------------------------------------------------------------


@contextmanager
def _sealed_guard(decision_id: str) -> Iterator[None]:
    """Ruleset calls that see every side's order: a failure is reported without its message,
    which could quote another side's order (nothing is written; the umpire can investigate)."""
    try:
        yield
    except (ValidationError, RulesError, ValueError, LookupError, NotImplementedError) as exc:
        log.exception("sealed decision %s could not be resolved", decision_id)
        raise RulesRejected(
            f"the ruleset could not resolve the orders of {decision_id!r}; nothing was written",
            code="sealed.unresolvable",
            decision=decision_id,
        ) from exc


def _instances(rows: Sequence[SealedOrderRow]) -> dict[str, list[SealedOrderRow]]:
    out: dict[str, list[SealedOrderRow]] = {}
    for row in rows:
        out.setdefault(row.decision, []).append(row)
    return out


def current_instance(
    repo: SealedOrderRepository, game_id: str, decision_id: str
) -> tuple[str, list[SealedOrderRow]]:
    """The instance key now open for a decision and its orders so far.

    All orders of an instance are revealed together, so the open instance is the one with
    unrevealed orders; with none, a fresh key: the id itself, then ``id#2``, ``id#3``…
    """
    groups = _instances(repo.for_decision(game_id, decision_id))
    for key, rows in groups.items():
        if all(r.revealed_at is None for r in rows):
            return key, rows
    if not groups:
        return decision_id, []
    return f"{decision_id}#{len(groups) + 1}", []


def _open_decisions(game: Game) -> Mapping[str, SealedDecision]:
    with guard("state"):
        return dict(game.ruleset.sealed_decisions(game.board, game.state))


def _decision(game: Game, decision_id: str) -> SealedDecision:
    decision = _open_decisions(game).get(decision_id)
    if decision is None:
        raise NotFound(
            f"no sealed decision {decision_id!r} is open in this game",
            code="sealed.decision_not_found",
            decision=decision_id,
        )
    return decision


def _revealed(row: SealedOrderRow) -> RevealedOrder:
    canonical = canonical_json(row.order)
    return RevealedOrder(
        order=row.order,
        nonce=row.nonce,
        canonical=canonical,
        commitment=row.commitment,
        received_at=aware_utc(row.received_at),
    )


def _reveal(
    uow: AbstractUnitOfWork,
    game: Game,
    expected: int,
    decision: SealedDecision,
    key: str,
    rows: Sequence[SealedOrderRow],
    *,
    opened_by: str | None,
    seat: str,
    client_seed: str = "",
    entered: Sequence[int] | None = None,
    now: float,
) -> RevealView:
    """Reveal every order of one instance, roll, judge, apply and log, in the open
    transaction."""
    by_side = {r.seat: r for r in rows}
    documents = {side: by_side[side].order for side in decision.sides if side in by_side}
    missing = [side for side in decision.sides if side not in by_side]
    with _sealed_guard(decision.id):
        parsed = parse_orders(decision, documents)
        sizes = list(game.ruleset.sealed_dice_needed(game.board, game.state, decision.id, parsed))
    rolls = mt.roll(game.row, sizes, seat=seat, client_seed=client_seed, entered=entered)
    with _sealed_guard(decision.id):
        resolution = resolve_revealed(
            game.ruleset,
            game.board,
            game.state,
            game.options,
            decision.id,
            documents,
            [r.value for r in rolls],
        )
    with _sealed_guard(decision.id):
        over = resolution.applied and game.ruleset.is_over(game.board, resolution.state)
    columns: dict[str, Any] = {}
    if over:  # a reveal that ends the game finishes it (its dice seed becomes public)
        columns["clock"] = mt.clock_stopped(game.row, now)
    if rolls:
        columns["dice_counter"] = max(r.n for r in rolls) + 1
    when = utc_now()
    sealed_orders(uow).mark_revealed(game.row.id, key, when)
    orders = {side: _revealed(by_side[side]) for side in documents}
    payload = {
        "decision": decision.id,
        "instance": key,
        "recipe": RECIPE,
        "opened_by": opened_by,
        "orders": {side: o.model_dump(mode="json") for side, o in orders.items()},
        "missing": missing,
        "applied": resolution.applied,
    }
    event = append_event(
        uow,
        game,
        expected=expected,
        seat=seat,
        kind=REVEALED,
        new_state=resolution.state,
        ruling=resolution.ruling,
        payload=payload,
        rolls=rolls,
        status="finished" if over else None,
        columns=columns,
    )
    return RevealView(
        decision=decision.id,
        instance=key,
        event=event.seq,
        version=event.version,
        opened_by=opened_by,
        orders=orders,
        missing=missing,
        ruling=resolution.ruling,
        applied=resolution.applied,
        revealed_at=when,
    )


def _needs_umpire_dice(
    game: Game, decision: SealedDecision, rows: Sequence[SealedOrderRow]
) -> bool:
    """With physical dice, a reveal whose resolution needs dice waits for the umpire."""
    if not mt.options_of(game.row).physical_dice:
        return False
    documents = {r.seat: r.order for r in rows}
    with _sealed_guard(decision.id):
        parsed = parse_orders(decision, documents)
        sizes = game.ruleset.sealed_dice_needed(game.board, game.state, decision.id, parsed)
    return bool(die_sizes(sizes))


def _request_digest(seat: str, decision_id: str, order: Any) -> str:
    return digest({"seat": seat, "sealed": decision_id, "order": order})


def _replay(uow: AbstractUnitOfWork, prior: EventRow, request_digest: str) -> SealedOutcome:
    """The stored answer of an earlier submission with this key -- unless a rollback has
    withdrawn that order since (409 ``sealed.withdrawn``: it will never be revealed, and the
    side may submit again under a new key)."""
    if prior.kind != RECEIVED or prior.request_digest != request_digest or not prior.response:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was used for another request", event=prior.seq
        )
    payload = prior.payload or {}
    instance, commit = str(payload.get("instance")), payload.get("commitment")
    kept = any(
        r.decision == instance and r.commitment == commit
        for r in sealed_orders(uow).for_game(prior.game_id)
        if r.seat == prior.seat
    )
    if not kept:
        raise Conflict(
            f"the order this Idempotency-Key submitted (event {prior.seq}) was withdrawn by a "
            "rollback and will never be revealed; submit the order again with a new key",
            code="sealed.withdrawn",
            decision=payload.get("decision"),
            order_instance=instance,
            event=prior.seq,
        )
    body = json.loads(prior.response)
    return SealedOutcome(
        body=prior.response, event=prior.seq, version=int(body["version"]), replayed=True
    )


# -- use cases -----------------------------------------------------------------------------


def submit_order(
    req: WriteRequest, decision_id: str, order: Any, *, client_seed: str | None = None
) -> SealedOutcome:
    """Submit one side's sealed order; reveal and adjudicate all when it completes the set.

    Checks, in order: token present -> game -> seat -> If-Match present -> idempotent replay
    -> game active -> decision open -> seat is a listed side -> not already submitted ->
    order valid -> version current. Nothing is written unless all pass. Error answers name
    the decision and the seat's own side only, never another side's order.
    """
    require_storable(order, code="sealed.order_invalid")
    seed = mt.parse_client_seed(client_seed)

    def body(w: Write) -> SealedOutcome:
        return _submit(w, decision_id, order, seed)

    return run_write(
        req,
        what="submitting a sealed order",
        request_digest=lambda seat: _request_digest(seat, decision_id, order),
        body=body,
        replay=lambda prior, digest_: _replay(req.uow, prior, digest_),
        hint=ANY_VERSION,
    )


def _judge_order(
    game: Game, decision: SealedDecision, side: str, order: Any
) -> tuple[BaseModel, Ruling]:
    """The order, well-formed (else 422 ``sealed.order_invalid`` naming every bad field),
    and the ruleset's ruling on it for ``side`` now (:meth:`Ruleset.judge_order`)."""
    with guard("order"):  # a validator's own crash is a client error, not a 500
        try:
            parsed = decision.order_model.model_validate(order)
        except ValidationError as exc:
            raise InvalidInput(
                f"invalid order for {decision.id!r}",
                field_errors(exc),
                code="sealed.order_invalid",
            ) from exc
        ruling = game.ruleset.judge_order(
            game.board, game.state, decision, side, parsed, game.options
        )
    return parsed, ruling


def check_order(
    uow: AbstractUnitOfWork,
    game_id: str,
    decision_id: str,
    order: Any,
    *,
    token: str | None,
    boards: BoardCache,
    now: float | None = None,
) -> OrderCheck:
    """Judge the reader's own side's order for an open decision without submitting it:
    the ruling a submission would get now (refusals cited). Nothing is written or
    published, so nothing about the order leaves the asking seat."""
    require_storable(order, code="sealed.order_invalid")
    settle_clock(uow, game_id, now=clock_now(now), boards=boards)
    with uow.begin():
        game = load_game(uow, game_id, boards)
        seat = reader_seat(uow, game.row, token)
        require_active(game.row)
        require_running_version(game)  # judged only under the version the game is pinned to
        decision = _decision(game, decision_id)
        if seat is None or seat not in decision.sides:
            raise Forbidden(
                f"only the sides {list(decision.sides)} check orders for {decision_id!r}",
                code="sealed.not_a_party",
                citations=cite("sealed-orders"),
                decision=decision_id,
            )
        _, ruling = _judge_order(game, decision, seat, order)
        return OrderCheck(decision=decision_id, side=seat, version=game.row.version, ruling=ruling)


def _submit(w: Write, decision_id: str, order: Any, client_seed: str) -> SealedOutcome:
    uow, game, seat, now = w.uow, w.game, w.seat, w.now
    require_active(game.row)
    decision = _decision(game, decision_id)
    if seat not in decision.sides:
        raise Forbidden(
            f"only the sides {list(decision.sides)} submit orders for {decision_id!r}"
            + ("; the umpire may open it early instead" if seat == UMPIRE else ""),
            code="sealed.not_a_party",
            citations=cite("sealed-orders"),
            decision=decision_id,
            seat=seat,
        )
    repo = sealed_orders(uow)
    key, rows = current_instance(repo, game.row.id, decision_id)
    if any(r.seat == seat for r in rows):
        raise Conflict(
            f"{seat} has already submitted its order for {decision_id!r}; orders are final",
            code="sealed.already_submitted",
            citations=cite("sealed-orders"),
            decision=decision_id,
            side=seat,
        )
    parsed, ruling = _judge_order(game, decision, seat, order)
    if not ruling.legal:
        raise IllegalOrder(ruling, version=game.row.version)
    w.require_current()

    document = parsed.model_dump(mode="json")
    canonical = canonical_json(document)
    nonce = secrets.token_hex(NONCE_BYTES)
    commit = commitment(nonce, canonical)
    received = utc_now()
    row = SealedOrderRow(
        game_id=game.row.id,
        decision=key,
        seat=seat,
        commitment=commit,
        nonce=nonce,
        order=document,
        received_at=received,
    )
    repo.add(row)
    rows = [*rows, row]
    complete = all(any(r.seat == side for r in rows) for side in decision.sides)
    waits = complete and _needs_umpire_dice(game, decision, rows)
    receipt_ruling = Ruling(
        legal=True,
        summary=f"Sealed order of {seat} for {decision.title} received.",
        citations=(decision.citation,) if decision.citation else (),
    )
    receipt_payload = {
        "decision": decision_id,
        "instance": key,
        "side": seat,
        "commitment": commit,
        "recipe": RECIPE,
    }
    received_event = append_event(
        uow,
        game,
        expected=game.row.version,
        seat=seat,
        kind=RECEIVED,
        new_state=game.state,
        ruling=receipt_ruling,
        payload=receipt_payload,
        idempotency_key=w.idempotency_key,
        request_digest=w.request_digest,
    )
    reveal: RevealView | None = None
    if complete and not waits:
        reveal = _reveal(
            uow,
            game,
            received_event.version,
            decision,
            key,
            rows,
            opened_by=None,
            seat=seat,
            client_seed=client_seed,
            now=now,
        )
    version = reveal.version if reveal is not None else received_event.version
    result = SubmitResult(
        decision=decision_id,
        instance=key,
        side=seat,
        commitment=commit,
        nonce=nonce,
        canonical=canonical,
        order=document,
        event=received_event.seq,
        version=version,
        reveal=reveal,
        awaiting_umpire=waits,
    )
    body = result.model_dump_json()
    # Replayed only to a retry with the same key whose digest (seat + order) matches.
    uow.games.set_response(received_event, body)
    return SealedOutcome(body=body, event=received_event.seq, version=version)


def open_decision(
    uow: AbstractUnitOfWork,
    game_id: str,
    decision_id: str,
    *,
    token: str | None,
    if_match: IfMatch | None,
    client_seed: str | None = None,
    entered_dice: Sequence[int] | None = None,
    boards: BoardCache,
    now: float | None = None,
) -> RevealView:
    """The umpire reveals a decision's orders now, whoever has submitted (missing sides are
    named in the reveal); the orders are judged as in a complete reveal."""
    seed = mt.parse_client_seed(client_seed)

    def body(w: Write) -> RevealView:
        if w.seat != UMPIRE:
            raise Forbidden(
                "only the umpire may open sealed orders early",
                code="sealed.umpire_only",
                citations=cite("sealed-orders"),
                seat=w.seat,
            )
        require_active(w.game.row)
        decision = _decision(w.game, decision_id)
        key, rows = current_instance(sealed_orders(w.uow), w.game.row.id, decision_id)
        w.require_current()
        return _reveal(
            w.uow,
            w.game,
            w.game.row.version,
            decision,
            key,
            rows,
            opened_by=UMPIRE,
            seat=UMPIRE,
            client_seed=seed,
            entered=entered_dice,
            now=w.now,
        )

    def no_replay(prior: EventRow, _: str) -> RevealView:
        raise AssertionError("opening sealed orders takes no Idempotency-Key")

    return run_write(
        WriteRequest(uow, game_id, token, if_match, None, boards, now),
        what="opening sealed orders",
        request_digest=lambda seat: "",
        body=body,
        replay=no_replay,
        hint=ANY_VERSION,
    )


def list_sealed(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str | None,
    boards: BoardCache,
    now: float | None = None,
) -> SealedListing:
    """Open decisions with their receipts (commitments only) and every past reveal.

    A seat that has submitted also sees its own order; nobody sees another side's order
    before the reveal.
    """
    settle_clock(uow, game_id, now=clock_now(now), boards=boards)
    with uow.begin():
        game = load_game(uow, game_id, boards)
        seat = reader_seat(uow, game.row, token)
        repo = sealed_orders(uow)
        opened: list[OpenDecision] = []
        decisions = _open_decisions(game) if game.row.status == "active" else {}
        for decision in decisions.values():
            key, rows = current_instance(repo, game.row.id, decision.id)
            submitted = {r.seat for r in rows}
            own = next((r for r in rows if seat is not None and r.seat == seat), None)
            complete = all(side in submitted for side in decision.sides)
            opened.append(
                OpenDecision(
                    id=decision.id,
                    instance=key,
                    title=decision.title,
                    sides=list(decision.sides),
                    citation=decision.citation,
                    order_schema=decision.order_model.model_json_schema(),
                    received=[
                        Receipt(
                            side=r.seat,
                            commitment=r.commitment,
                            received_at=aware_utc(r.received_at),
                        )
                        for r in rows
                    ],
                    waiting=[s for s in decision.sides if s not in submitted],
                    awaiting_umpire=complete and _needs_umpire_dice(game, decision, rows),
                    own=_revealed(own) if own is not None else None,
                )
            )
        return SealedListing(
            version=game.row.version,
            open=opened,
            revealed=_past_reveals(uow, game.row.id),
        )


def _past_reveals(uow: AbstractUnitOfWork, game_id: str) -> list[RevealView]:
    """Every reveal, from the ``sealed_revealed`` events (the log is the record)."""
    out: list[RevealView] = []
    after = 0
    while True:
        rows = uow.games.events(game_id, after=after, limit=500)
        if not rows:
            return out
        for row in rows:
            if row.kind == REVEALED and row.payload is not None and row.visible_to is None:
                out.append(_reveal_view(row))
        after = rows[-1].seq


def _reveal_view(row: EventRow) -> RevealView:
    payload = row.payload or {}
    return RevealView(
        decision=str(payload.get("decision")),
        instance=str(payload.get("instance")),
        event=row.seq,
        version=row.version,
        opened_by=payload.get("opened_by"),
        orders={
            side: RevealedOrder.model_validate(doc)
            for side, doc in dict(payload.get("orders") or {}).items()
        },
        missing=list(payload.get("missing") or []),
        ruling=Ruling.model_validate(row.ruling),
        applied=bool(payload.get("applied")),
        revealed_at=aware_utc(row.created_at),
    )
