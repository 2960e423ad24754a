"""What the use cases return: plain pydantic models (also the API's response schemas)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.rules.catalog import Interpretation
from app.rules.ruling import Ruling


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class RulesetSummary(_Out):
    id: str = Field(examples=["zoc"])
    version: str = Field(examples=["1.0"])
    title: str
    description: str = ""
    source: str = ""


class SectionInfo(_Out):
    id: str = Field(examples=["8.2"])
    title: str
    summary: str


class QueryInfo(_Out):
    name: str
    description: str
    params: dict[str, Any] = Field(description="JSON schema of the query-string parameters.")


class RulesetSchemas(_Out):
    scenario: dict[str, Any]
    options: dict[str, Any]
    actions: dict[str, dict[str, Any]] = Field(description="Action kind -> JSON schema.")


class RulesetInfo(RulesetSummary):
    catalog: list[SectionInfo]
    interpretations: list[Interpretation]
    schemas: RulesetSchemas
    queries: list[QueryInfo]
    example_scenario: dict[str, Any] | None = None


class GameLinks(_Out):
    """Links to a game, under the public URL (``REFEREE_PUBLIC_URL``; unset: the address the
    request came to)."""

    console: str = Field(
        description="The console opened on the game (read-only unless a token is held).",
        examples=["https://referee.example.org/#game=3f1c..."],
    )
    api: str = Field(
        description="The game's resource in the pinned API version.",
        examples=["https://referee.example.org/v1/games/3f1c..."],
    )
    invitations: dict[str, str] | None = Field(
        default=None,
        description="Seat -> its invitation link: the console with the seat token in the "
        "fragment (browsers never send it to a server). Only in the answer that issues the "
        "tokens.",
    )
    spectators: str | None = Field(
        default=None, description="The read-only link of a public game (`null`: private)."
    )


class CreatedGame(_Out):
    id: str
    ruleset: str
    ruleset_version: str
    version: int
    public: bool
    seats: dict[str, str] = Field(
        description="Seat name (each side, and `umpire`) -> bearer token. Shown only once."
    )
    links: GameLinks | None = Field(
        default=None,
        description="The game's console and API addresses and each seat's invitation link, "
        "under the public URL.",
    )


class SideInfo(_Out):
    name: str
    label: str


class PhaseInfo(_Out):
    id: str = Field(examples=["movement"])
    title: str
    acts: str = Field(
        description="Who may act in this phase: `phasing`, `non_phasing`, `both` or `umpire`."
    )


class PositionView(_Out):
    """Where the game stands in its ruleset's sequence of play."""

    turn: int = Field(examples=[1])
    phase: str = Field(examples=["movement"])
    phase_title: str
    phasing_side: str | None
    acts: str = Field(description="Who may act now (see PhaseInfo.acts).")
    phases: list[PhaseInfo] = Field(description="Every phase of a player turn, in order.")
    sides: list[str] = Field(description="The order in which sides take player turns.")


class ClockView(_Out):
    """The correspondence clock as of ``as_of`` (seconds since the epoch, server time)."""

    budget_seconds: float
    increment_seconds: float
    cap_seconds: float | None
    on_expiry: str = Field(description="`forfeit` or `notify_umpire`.")
    remaining: dict[str, float] = Field(description="Side -> seconds left at `as_of`.")
    running: str | None = Field(description="The side whose time is running, if any.")
    expired: list[str] = Field(description="Sides whose time has run out.")
    as_of: float


class DiceView(_Out):
    """The dice commitment of a game (the seed itself is never part of a game view)."""

    recipe: str = Field(examples=["referee-dice-v1"])
    commitment: str | None = Field(description="SHA-256 (hex) of the secret seed.")
    rolled: int = Field(description="Dice rolled so far (the next roll's number `n`).")
    physical: bool = Field(description="True when the umpire enters physical dice.")
    seed_revealed: bool = Field(
        description="True once the umpire has had the seed revealed (or the game is over)."
    )


class GameView(_Out):
    id: str
    ruleset: str
    ruleset_version: str = Field(
        description="The ruleset version the game is played under (pinned at creation; "
        "moved only by the umpire's upgrade, `POST /games/{id}/upgrade`)."
    )
    ruleset_running_version: str | None = Field(
        default=None, description="The version of the ruleset this server runs."
    )
    ruleset_created_version: str | None = Field(
        default=None, description="The ruleset version the game was created with."
    )
    upgrade_available: bool = Field(
        default=False,
        description="True when the game is active and pinned to another version than the "
        "one running: every write is refused (409 `ruleset.upgrade_required`) until the "
        "umpire upgrades it.",
    )
    version: int
    status: str
    public: bool
    sides: list[SideInfo]
    seat: str | None = Field(description="The seat of the bearer token, null if anonymous.")
    state: dict[str, Any] = Field(description="The state as the ruleset lets this seat see it.")
    created_at: datetime
    updated_at: datetime
    match: dict[str, Any] = Field(
        default_factory=dict,
        description="Match options: clock, physical_dice, takeback, enforce_sequence.",
    )
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="The ruleset options the game was created with: each interpretation of "
        "`GET /rulesets/{id}` names the option that selects its other reading.",
    )
    position: PositionView | None = Field(
        default=None, description="Turn, phase and phasing side; null without a sequence."
    )
    clock: ClockView | None = Field(default=None, description="Null when the game is untimed.")
    dice: DiceView | None = None
    winner: str | None = Field(default=None, description="The winning side, once known.")


class GameJson(_Out):
    """A :class:`GameView` as the JSON bytes sent (``games.read_game``) and its version."""

    version: int
    body: bytes


class GameAtVersion(_Out):
    """The game as it stood at an earlier (or the current) version, as the reader's seat may
    see it: ``GET /games/{id}/positions/{version}``. The state goes through the ruleset's
    per-seat view exactly as ``GET /games/{id}`` did at that version, so nothing a seat may
    not see is shown, whichever events led there (hidden ones stay redacted in the log)."""

    game: str
    version: int = Field(description="The version shown (1 = the game as set up).")
    event: int | None = Field(
        description="The sequence number of the event that produced this version "
        "(version - 1); null for version 1."
    )
    current_version: int = Field(description="The game's version now.")
    seat: str | None = Field(description="The seat of the bearer token, null if anonymous.")
    state: dict[str, Any] = Field(description="The state as the ruleset lets this seat see it.")
    position: PositionView | None = Field(
        default=None, description="Turn, phase and phasing side then; null without a sequence."
    )


class ScenarioView(_Out):
    game: str
    ruleset: str
    ruleset_version: str
    digest: str = Field(description="SHA-256 of the board's canonical JSON.")
    scenario: dict[str, Any]
    board: dict[str, Any]


class RollView(_Out):
    """One die roll recorded with an event."""

    n: int = Field(description="The roll's number in the game (the recipe's counter).")
    sides: int = Field(examples=[6])
    value: int
    client_seed: str | None = Field(default=None, description="Referee-Client-Seed, if sent.")
    entered_by: str | None = Field(
        default=None, description="Seat that entered a physical die; null when derived."
    )


class EventView(_Out):
    """One event of the log as a reader may see it.

    Events a reader may not see (``visible_to`` names other seats) are *redacted*, never
    dropped, so every reader sees the same gap-free sequence numbers: a redacted event keeps
    only ``seq``, ``version`` and ``created_at``, with ``kind`` = ``"redacted"``,
    ``redacted`` = true and every other field empty.
    """

    seq: int
    seat: str | None = Field(description="The seat that caused the event; null if redacted.")
    kind: str = Field(
        examples=["step", "sealed_received", "sealed_revealed", "redacted"],
        description="An action kind, a match-flow event kind, or `redacted`.",
    )
    action: dict[str, Any] = Field(description="The action document; `{}` for other events.")
    ruling: Ruling | None = Field(description="The ruling; null for a redacted event.")
    dice: list[RollView] = Field(description="The rolls this event's ruling used.")
    version: int = Field(description="The game version this event produced.")
    created_at: datetime
    payload: dict[str, Any] | None = Field(
        default=None,
        description="Details of a match-flow event (e.g. a sealed order's commitment).",
    )
    visible_to: list[str] | None = Field(
        default=None, description="The seats that may read this event; null = every reader."
    )
    redacted: bool = Field(
        default=False, description="True when this reader may not see the event's content."
    )
    ruleset_version: str | None = Field(
        default=None,
        description="The ruleset version that judged this event; null when not recorded "
        "(events written before Referee recorded it) or redacted.",
    )


class EventPage(_Out):
    items: list[EventView]
    next: int | None = Field(
        description="Pass as `after` to get the next page; null when this page is the last."
    )


class ActionResult(_Out):
    event: int = Field(description="Sequence number of the appended event.")
    version: int = Field(description="The game version after the action (the new ETag).")
    ruling: Ruling
    state: dict[str, Any]
    position: PositionView | None = None
    clock: ClockView | None = None


class ActionChange(_Out):
    """What an accepted write changed, without the new state (``Prefer: return=minimal``):
    the event, the new version, the ruling (its effects are the change), position and clock.
    The state follows from ``GET /games/{id}`` or the ruling's effects."""

    event: int = Field(description="Sequence number of the appended event.")
    version: int = Field(description="The game version after the action (the new ETag).")
    ruling: Ruling
    position: PositionView | None = None
    clock: ClockView | None = None


class DryRun(_Out):
    version: int
    ruling: Ruling
    dice_needed: list[int] = Field(
        default_factory=list,
        description="Die sizes the action needs; a dry run never rolls them.",
    )


class QueryResult(_Out):
    query: str
    version: int
    result: Any


class ActionOutcome(_Out):
    """An accepted action's outcome, or the stored one on a retry (``body`` is JSON text,
    identical byte for byte on every replay)."""

    status: int
    body: str
    event: int
    version: int
    replayed: bool = False
    minimal: str | None = None
    """The :class:`ActionChange` JSON of a write just accepted (None on a replay, which
    answers the stored ``body``): what ``Prefer: return=minimal`` is answered."""


# -- match flow (dice, audit) ---------------------------------------------------------------


class EventRoll(_Out):
    """A recorded roll and the event whose ruling used it."""

    event: int = Field(description="Sequence number of the event.")
    kind: str
    n: int
    sides: int
    value: int
    client_seed: str | None = None
    entered_by: str | None = None


class DiceInfo(_Out):
    """A game's dice: the commitment, every roll the reader may see, and the seed once it may
    be revealed to this reader (game over: everyone; the umpire after POST .../dice/reveal)."""

    recipe: str = Field(examples=["referee-dice-v1"])
    commitment: str | None = Field(description="SHA-256 (hex) of the seed, fixed at creation.")
    rolled: int = Field(description="Dice rolled so far.")
    physical: bool
    seed: str | None = Field(description="The seed (hex) when revealed to this reader.")
    rolls: list[EventRoll]


class RollMismatch(_Out):
    event: int
    n: int
    recorded: int
    derived: int


class DiceVerification(_Out):
    """Every derived roll the reader may see, re-derived from the revealed seed."""

    recipe: str
    commitment: str | None
    seed: str
    commitment_ok: bool = Field(description="sha256(seed) equals the published commitment.")
    checked: int = Field(description="Derived rolls re-derived.")
    entered: int = Field(description="Physical dice entered by the umpire (not derivable).")
    mismatches: list[RollMismatch]
    ok: bool


class AuditDifference(_Out):
    """One event whose replay does not match the log."""

    seq: int
    version: int
    kind: str
    field: str = Field(description="`ruling`, `state`, `dice` or `error`.")
    message: str
    recorded: Any = None
    replayed: Any = None
    ruleset_version: str | None = Field(
        default=None,
        description="The ruleset version recorded as having judged this event; null when "
        "not recorded.",
    )
    version_changed: bool = Field(
        default=False,
        description="The event was judged by another ruleset version than the one that "
        "replayed it: the difference follows from a rules change (the message says so).",
    )


class AuditStretch(_Out):
    """Consecutive events of the log judged by the same recorded ruleset version."""

    from_seq: int = Field(description="The first event of the stretch.")
    to_seq: int = Field(description="The last event of the stretch.")
    version: str | None = Field(
        description="The ruleset version that judged these events; null: not recorded "
        "(events written before Referee recorded it)."
    )
    replayed_version: str = Field(description="The ruleset version that replayed them.")
    same_version: bool = Field(
        description="True when the stretch was replayed by the version recorded as having "
        "judged it (false when that version differs or was not recorded)."
    )
    differences: int = Field(description="Differences found in the stretch (listed ones).")


class AuditReport(_Out):
    """The result of re-adjudicating a game's whole log from its initial state."""

    game: str
    ruleset: str
    recorded_version: str = Field(
        description="Ruleset version the game is played under (pinned; the umpire's upgrade "
        "moves it)."
    )
    replayed_version: str = Field(description="Ruleset version used for the replay.")
    version_changed: bool = Field(
        default=False,
        description="The ruleset's version changed since (part of) the game was recorded: "
        "differences in a stretch judged by another version are then expected consequences "
        "of a rules change (each says so), not a corrupt log.",
    )
    stretches: list[AuditStretch] = Field(
        default_factory=list,
        description="The log cut into stretches of events judged by one recorded ruleset "
        "version, each replayed by the running version.",
    )
    events: int = Field(description="Events replayed.")
    ok: bool
    first_difference: AuditDifference | None = Field(
        description="The first event whose ruling, state or dice differ; null when none."
    )
    differences: list[AuditDifference] = Field(
        description="Every differing event (after a difference, replay continues from the "
        "recorded state, so each entry is independent)."
    )


# -- ruleset upgrade --------------------------------------------------------------------------


class UpgradePreview(_Out):
    """What upgrading a game to the ruleset version this server runs would change
    (``GET /games/{id}/upgrade``, umpire): the log replayed under the running version, and
    every event it judges differently (as the audit's differences)."""

    game: str
    ruleset: str
    from_version: str = Field(description="The version the game is played under (pinned).")
    to_version: str = Field(description="The version this server runs.")
    upgrade_available: bool = Field(
        description="True when the game is active and pinned to another version: "
        "`POST /games/{id}/upgrade` would upgrade it."
    )
    events: int = Field(description="Events replayed (0 when there is nothing to upgrade).")
    changed: list[AuditDifference] = Field(
        description="The events of the log the running version judges differently: seq, "
        "kind, the recorded ruling (or state, dice) and the replayed one."
    )
    truncated: bool = Field(description="True when more differences exist than are listed.")


class AppealDecision(_Out):
    """The umpire's decision on an appeal (its ``appeal_decided`` event)."""

    event: int = Field(description="The sequence number of the `appeal_decided` event.")
    outcome: str = Field(description="`upheld` (the ruling stands) or `overridden`.")
    note: str = Field(description="The umpire's note.")
    override: str | None = Field(
        default=None,
        description="How an override undid the ruling: `rollback` or `action` (null: upheld).",
    )
    to_version: int | None = Field(
        default=None, description="The version an override by rollback restored."
    )
    created_at: datetime


class AppealView(_Out):
    """One appeal of a ruling, as a reader may see it (``GET /games/{id}/appeals``)."""

    appeal: int = Field(description="The sequence number of the `appeal` event: its id.")
    event: int = Field(description="The appealed event (an action event).")
    event_kind: str = Field(description="The appealed action's kind.")
    appellant: str = Field(description="The side that appealed.")
    note: str = Field(description="The appellant's note.")
    status: str = Field(description="`open` or `decided`.")
    created_at: datetime
    decision: AppealDecision | None = Field(
        default=None, description="The decision; null while open (or hidden from the reader)."
    )


class AppealList(_Out):
    """The appeals of a game the reader may see, oldest first."""

    items: list[AppealView]
