"""Match flow helpers shared by the use cases: match options, the sequence of play, dice and
the correspondence clock.

Nothing here opens a transaction: the use cases (:mod:`app.service.actions`,
:mod:`app.service.flow`, :mod:`app.service.sealed`…) call these inside their own unit of work.

* **Sequence of play** -- a ruleset that returns a :class:`SequenceOfPlay` and a
  :class:`Position` says who may act: the phasing side, the non-phasing side(s), both, or only
  the umpire. A ruleset that returns None enforces nothing (any seat acts, subject to
  ``actor_side``).
* **Dice** -- rolls are derived from the game's secret seed with :mod:`app.match.dice`
  (``referee-dice-v1``), numbered by ``games.dice_counter``; with the ``physical_dice`` match
  option the umpire enters them instead.
* **Clock** -- :mod:`app.match.clock` with ``now`` from an injected time source.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.db.models import EventRow, GameFields
from app.match import clock as clk
from app.match import dice as dicelib
from app.rules.base import UMPIRE, Ruleset
from app.rules.play import Turn as Turn  # where play stands: the rules core's, used from here
from app.rules.play import acting_side as acting_side
from app.rules.play import die_sizes
from app.rules.play import may_act as may_act
from app.rules.play import where as where
from app.service.errors import Conflict, FieldError, Forbidden, InvalidInput
from app.service.policies import cite
from app.service.results import ClockView, DiceView, PhaseInfo, PositionView

AnyRuleset = Ruleset[Any, Any, Any, Any]

CLIENT_SEED_HEADER = "Referee-Client-Seed"
DICE_HEADER = "Referee-Dice"
_CLIENT_SEED = re.compile(r"^[\x21-\x7e]{1,64}$")
APPEAL_WINDOW_EVENTS = 5
"""The default of match option ``appeal_window_events``."""


class MatchOptions(BaseModel):
    """Per-game match options (``match`` in ``POST /games``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    clock: clk.TimeControl | None = Field(
        default=None, description="Correspondence time control; null = untimed."
    )
    physical_dice: bool = Field(
        default=False,
        description="The umpire enters physical dice (header Referee-Dice) instead of the "
        "service deriving them from its committed seed.",
    )
    takeback: bool = Field(
        default=False,
        description="A player may take back their last action while the opponent has not "
        "acted since and it used no dice and revealed nothing.",
    )
    enforce_sequence: bool = Field(
        default=True,
        description="Only the side whose phase it is may act (when the ruleset declares a "
        "sequence of play).",
    )
    appeal_window_events: int = Field(
        default=APPEAL_WINDOW_EVENTS,
        ge=0,
        le=1000,
        description="A side may appeal the ruling of an action event while at most this many "
        "events followed it (0: only the latest event).",
    )
    spectators_read_chat: bool = Field(
        default=True,
        description="Spectators (and anonymous readers of a public game) read the table talk "
        "written to `all`; false: they read no message. Private messages never reach them.",
    )


_kept_options: tuple[Any, MatchOptions] | None = None
"""The match document (or its text) last validated and its options: a write asks for the
options of its game row seven times (the dice, the clock, the sequence), each the same
document object."""
_BY_TEXT: dict[str, MatchOptions] = {}
"""Match options by their stored JSON text (a game row read straight on the driver hands it
on undecoded: :attr:`app.db.repository.GameRecord.match_text`): the same text validates to
the same options, so a request neither decodes nor validates them again."""
_BY_TEXT_MOST = 256


def options_of(row: GameFields) -> MatchOptions:
    """The game's match options (frozen: one validation per row's document, or per text,
    shared)."""
    global _kept_options
    text: str | None = getattr(row, "match_text", None)
    key = text if text is not None else row.match
    kept = _kept_options
    if kept is not None and kept[0] is key:
        return kept[1]
    if text is None:
        options = MatchOptions.model_validate(key or {})
    else:
        found = _BY_TEXT.get(text)
        if found is None:
            found = MatchOptions.model_validate(row.match or {})
            if len(_BY_TEXT) >= _BY_TEXT_MOST:
                _BY_TEXT.clear()
            _BY_TEXT[text] = found
        options = found
    _kept_options = (key, options)  # the document held: its id is not reused meanwhile
    return options


# -- sequence of play ----------------------------------------------------------------------


def phase_name(title: str) -> str:
    """A phase in a sentence: "the Move phase", but "the Combat Phase" (never "Phase phase")."""
    return title if title.rstrip().lower().endswith("phase") else f"{title} phase"


def position_view(turn: Turn | None) -> PositionView | None:
    if turn is None:
        return None
    return PositionView(
        turn=turn.position.turn,
        phase=turn.position.phase,
        phase_title=turn.phase.title,
        phasing_side=turn.position.phasing_side,
        acts=turn.phase.acts,
        phases=[PhaseInfo(id=p.id, title=p.title, acts=p.acts) for p in turn.sequence.phases],
        sides=list(turn.sides),
    )


_POSITION_TEXTS: dict[tuple[Any, ...], tuple[tuple[Any, ...], str]] = {}
"""What :func:`position_text` made, by what it depends on (a few dozen entries a game: one per
turn and phase; cleared past :data:`_POSITION_TEXTS_KEPT`)."""
_POSITION_TEXTS_KEPT = 512


def position_text(turn: Turn | None) -> str:
    """``position_view(turn)``'s JSON text (``null`` for None), made once for each position of
    a sequence of play: every answer to a submission carries it, and the model and its six
    sub-models cost more to make than to find (docs/PERFORMANCE.md, issue 28, session 17).
    Keyed by the position, the phase's title and who acts, the sides and the sequence's
    phases (by identity, the tuple held in the entry: rulesets hand the same one on)."""
    if turn is None:
        return "null"
    position, phase, phases = turn.position, turn.phase, turn.sequence.phases
    key = (
        position.turn,
        position.phase,
        position.phasing_side,
        phase.title,
        phase.acts,
        turn.sides,
        id(phases),
    )
    found = _POSITION_TEXTS.get(key)
    if found is not None and found[0] is phases:
        return found[1]
    view = position_view(turn)
    assert view is not None
    text = view.model_dump_json()
    if len(_POSITION_TEXTS) >= _POSITION_TEXTS_KEPT:
        _POSITION_TEXTS.clear()
    _POSITION_TEXTS[key] = (phases, text)
    return text


def position_json(turn: Turn | None) -> dict[str, Any] | None:
    if turn is None:
        return None
    return {
        "turn": turn.position.turn,
        "phase": turn.position.phase,
        "phasing_side": turn.position.phasing_side,
    }


def may_end_phase(turn: Turn, seat: str) -> bool:
    """The umpire may always end a phase; otherwise the side(s) acting in it: the phasing side
    in ``phasing`` and ``both`` phases, a non-phasing side in ``non_phasing`` phases."""
    if seat == UMPIRE:
        return True
    acts = turn.phase.acts
    phasing = turn.position.phasing_side
    if acts in ("phasing", "both"):
        return seat == phasing
    if acts == "non_phasing":
        return seat != phasing
    return False


def expected_side(
    turn: Turn | None, sides: Sequence[str], last: str | None, current: str | None
) -> str | None:
    """The side whose clock runs: who is expected to act next.

    With a sequence of play: the phasing side in ``phasing`` and ``both`` phases, the single
    other side in ``non_phasing`` phases (nobody when several could answer), nobody in
    ``umpire`` phases. Without one, sides alternate: the side after ``last`` (the side that
    just acted); ``current`` stays when nobody's side acted (the umpire).
    """
    if turn is not None:
        acts = turn.phase.acts
        phasing = turn.position.phasing_side
        if acts in ("phasing", "both"):
            return phasing
        if acts == "non_phasing":
            others = [s for s in sides if s != phasing]
            return others[0] if len(others) == 1 else None
        return None
    if last is None or last not in sides:
        return current
    return sides[(list(sides).index(last) + 1) % len(sides)]


# -- dice ----------------------------------------------------------------------------------


def new_seed() -> tuple[str, str]:
    """A fresh secret seed (hex) and its public commitment."""
    seed = secrets.token_bytes(dicelib.SEED_BYTES)
    return seed.hex(), dicelib.commitment(seed)


def parse_client_seed(value: str | None) -> str:
    """The ``Referee-Client-Seed`` header: 1-64 visible ASCII characters, or absent."""
    if value is None:
        return ""
    if not _CLIENT_SEED.match(value):
        raise InvalidInput(
            "Referee-Client-Seed must be 1 to 64 visible ASCII characters",
            [
                FieldError(
                    "/Referee-Client-Seed", "invalid client seed", "dice.client_seed", "header"
                )
            ],
            code="dice.invalid_client_seed",
            citations=cite("dice-seed"),
        )
    return value


def parse_entered_dice(value: str | None) -> list[int] | None:
    """The ``Referee-Dice`` header (``4,2``): physical dice entered by the umpire."""
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",")]
    if not parts or not all(p.isascii() and p.isdigit() and len(p) <= 4 for p in parts):
        raise InvalidInput(
            "Referee-Dice is a comma-separated list of die values, e.g. `4,2`",
            [FieldError("/Referee-Dice", "not a list of die values", "dice.invalid", "header")],
            code="dice.invalid",
            citations=cite("physical-dice"),
        )
    return [int(p) for p in parts]


def roll(
    row: GameFields,
    sizes: Sequence[int],
    *,
    seat: str,
    client_seed: str = "",
    entered: Sequence[int] | None = None,
) -> list[dicelib.Roll]:
    """The rolls for dice of ``sizes``, numbered from ``row.dice_counter``.

    Derived from the game's seed, or -- with the ``physical_dice`` match option -- the values
    the umpire entered. The caller stores ``row.dice_counter + len(rolls)`` with the same
    conditional update that bumps the version, so no number is ever used twice.
    """
    sizes = list(die_sizes(sizes))
    physical = options_of(row).physical_dice
    if entered is not None and not physical:
        raise Conflict(
            "this game's dice are derived from its committed seed; physical dice may not be "
            "entered (match option physical_dice is off)",
            code="dice.not_physical",
            citations=cite("physical-dice"),
        )
    if not sizes:
        if entered:
            raise InvalidInput(
                "this action needs no dice",
                [FieldError("/Referee-Dice", "no dice needed", "dice.unexpected", "header")],
                code="dice.invalid",
                citations=cite("physical-dice"),
            )
        return []
    first = row.dice_counter
    if physical:
        if seat != UMPIRE:
            raise Forbidden(
                "physical dice are entered by the umpire: ask the umpire to submit this action",
                code="dice.umpire_enters",
                citations=cite("physical-dice"),
                dice_needed=list(sizes),
            )
        if entered is None:
            raise InvalidInput(
                f"this action needs dice {list(sizes)}: send them in Referee-Dice",
                [FieldError("/Referee-Dice", "missing", "missing", "header")],
                code="dice.required",
                citations=cite("physical-dice"),
            )
        # a d10's face reads 0 for ten: entered as 0, it is recorded as the value 10
        entered = [
            10 if v == 0 and i < len(sizes) and sizes[i] == 10 else v for i, v in enumerate(entered)
        ]
        if len(entered) != len(sizes) or any(
            not 1 <= v <= s for v, s in zip(entered, sizes, strict=False)
        ):
            raise InvalidInput(
                f"expected {len(sizes)} dice of sizes {list(sizes)}, got {list(entered)}",
                [
                    FieldError(
                        "/Referee-Dice", "wrong count or out of range", "dice.invalid", "header"
                    )
                ],
                code="dice.invalid",
                citations=cite("physical-dice"),
            )
        return [
            dicelib.Roll(first + i, s, v, entered_by=seat)
            for i, (s, v) in enumerate(zip(sizes, entered, strict=True))
        ]
    if row.dice_seed is None:
        raise Conflict(
            "this game has no dice seed", code="dice.unavailable", citations=cite("dice-seed")
        )
    return dicelib.roll_dice(bytes.fromhex(row.dice_seed), row.id, first, sizes, client_seed)


def rolls_json(rolls: Sequence[dicelib.Roll]) -> list[dict[str, object]]:
    return [r.to_json() for r in rolls]


def load_rolls(data: Sequence[Any]) -> list[dicelib.Roll]:
    """Rolls stored with an event (``Roll.to_json()`` dicts)."""
    out: list[dicelib.Roll] = []
    for item in data:
        if isinstance(item, dict):
            out.append(
                dicelib.Roll(
                    n=int(item["n"]),
                    sides=int(item["sides"]),
                    value=int(item["value"]),
                    client_seed=str(item.get("client_seed") or ""),
                    entered_by=item.get("entered_by"),
                )
            )
    return out


def seed_visible(row: GameFields, seat: str | None) -> bool:
    """Everyone may see the seed once the game is over; the umpire once it was revealed."""
    return row.status == "finished" or (seat == UMPIRE and row.seed_revealed)


def dice_view(row: GameFields) -> DiceView:
    return DiceView(
        recipe=dicelib.RECIPE,
        commitment=row.dice_commitment,
        rolled=row.dice_counter,
        physical=options_of(row).physical_dice,
        seed_revealed=row.seed_revealed or row.status == "finished",
    )


def event_visible(event: EventRow, seat: str | None) -> bool:
    """An event's ``visible_to`` lists the seats that may read it (None = every reader);
    the umpire reads every event."""
    return event.visible_to is None or seat == UMPIRE or (seat in event.visible_to)


# -- clock ---------------------------------------------------------------------------------


def clock_state(row: GameFields) -> clk.ClockState | None:
    control = options_of(row).clock
    if control is None or row.clock is None:
        return None
    return clk.ClockState.model_validate(row.clock)


def start_clock(
    options: MatchOptions, sides: Sequence[str], running: str | None, now: float
) -> dict[str, Any] | None:
    if options.clock is None:
        return None
    return clk.start(options.clock, list(sides), running, now).model_dump(mode="json")


def clock_view(
    row: GameFields, now: float, clock_json: dict[str, Any] | None = None
) -> ClockView | None:
    """The clock as of ``now`` (from ``clock_json`` when given, else the row's)."""
    control = options_of(row).clock
    data = clock_json if clock_json is not None else row.clock
    if control is None or data is None:
        return None
    state = clk.ClockState.model_validate(data)
    return ClockView(
        budget_seconds=control.budget_seconds,
        increment_seconds=control.increment_seconds,
        cap_seconds=control.cap_seconds,
        on_expiry=control.on_expiry,
        remaining=clk.remaining(state, now),
        running=state.running,
        expired=list(state.expired),
        as_of=now,
    )


def clock_after(
    row: GameFields, actor: str | None, now: float, next_running: str | None
) -> dict[str, Any] | None:
    """The clock after an accepted move by ``actor``: the mover is charged (and gets the
    increment) when its own time was running; otherwise the clock just switches."""
    control = options_of(row).clock
    state = clock_state(row)
    if control is None or state is None:
        return row.clock
    if actor is not None and actor == state.running:
        new = clk.charge(control, state, actor, now, next_running)
    else:
        new = clk.switch(state, now, next_running)
    return new.model_dump(mode="json")


def clock_switched(row: GameFields, now: float, running: str | None) -> dict[str, Any] | None:
    state = clock_state(row)
    if state is None:
        return row.clock
    return clk.switch(state, now, running).model_dump(mode="json")


def clock_stopped(row: GameFields, now: float) -> dict[str, Any] | None:
    return clock_switched(row, now, None)


def newly_expired(row: GameFields, now: float) -> list[str]:
    """Sides whose time ran out and whose expiry has not been handled yet."""
    state = clock_state(row)
    if state is None or row.status != "active":
        return []
    return [s for s in clk.expired_sides(state, now) if s not in state.expired]
