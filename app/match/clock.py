"""Correspondence clocks: a time budget per side plus an increment per move, with a cap.

The clock never reads the time itself: every call takes ``now`` (seconds, float) from an
injected time source, so tests and audits run without waiting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

TimeSource = Callable[[], float]

MAX_SECONDS = 366 * 24 * 3600
"""The longest budget, increment or cap (a year): clock fields are finite and bounded, and a
side's remaining time never grows past it (issue 9: a 1e308 budget overflowed to Infinity)."""


class TimeControl(BaseModel):
    """Per-game time control (game option ``clock``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    budget_seconds: float = Field(
        gt=0, le=MAX_SECONDS, description="Initial time budget of each side (at most a year)."
    )
    increment_seconds: float = Field(
        default=0, ge=0, le=MAX_SECONDS, description="Added after each action."
    )
    cap_seconds: float | None = Field(
        default=None,
        gt=0,
        le=MAX_SECONDS,
        description="A side's remaining time never exceeds this (nor a year in any case).",
    )
    on_expiry: Literal["forfeit", "notify_umpire"] = "notify_umpire"


class ClockState(BaseModel):
    """Remaining time per side and which side's time is running since when."""

    model_config = ConfigDict(extra="forbid")

    remaining: dict[str, float]
    running: str | None = None
    since: float | None = None
    expired: list[str] = Field(default_factory=list)


def start(control: TimeControl, sides: list[str], running: str | None, now: float) -> ClockState:
    return ClockState(
        remaining={s: control.budget_seconds for s in sides},
        running=running,
        since=now if running is not None else None,
    )


def remaining(state: ClockState, now: float) -> dict[str, float]:
    """Remaining seconds per side at ``now`` (the running side's time keeps falling)."""
    out = dict(state.remaining)
    if state.running is not None and state.since is not None:
        out[state.running] = max(0.0, out[state.running] - max(0.0, now - state.since))
    return out


def expired_sides(state: ClockState, now: float) -> list[str]:
    return [side for side, left in remaining(state, now).items() if left <= 0.0]


def charge(
    control: TimeControl, state: ClockState, side: str, now: float, next_running: str | None
) -> ClockState:
    """Charge ``side`` for the time since its clock started, add the increment (capped) and
    start ``next_running``'s clock."""
    left = remaining(state, now)
    if side in left and left[side] > 0:
        left[side] = left[side] + control.increment_seconds
        left[side] = min(left[side], control.cap_seconds or MAX_SECONDS)
    return ClockState(
        remaining=left,
        running=next_running,
        since=now if next_running is not None else None,
        expired=sorted(set(state.expired) | {s for s, v in left.items() if v <= 0}),
    )


def switch(state: ClockState, now: float, running: str | None) -> ClockState:
    """Stop the running clock (no increment) and start another (phase change by the umpire)."""
    left = remaining(state, now)
    return ClockState(
        remaining=left,
        running=running,
        since=now if running is not None else None,
        expired=state.expired,
    )
