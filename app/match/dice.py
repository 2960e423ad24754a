"""Verifiable dice: commit to a secret seed, derive every roll from it, reveal and verify.

The recipe (``referee-dice-v1``), which anyone can re-run from the published values:

1. At game creation the service draws a secret 32-byte ``seed`` and publishes
   ``commitment = sha256(seed)`` (hex).
2. Roll number ``n`` (0, 1, 2, … counted over the whole game) of a die with ``sides`` faces,
   with an optional client-supplied string ``client_seed`` (empty when none), is::

       attempt = 0
       loop:
           msg   = "referee-dice-v1|{game_id}|{n}|{sides}|{client_seed}|{attempt}"  (UTF-8)
           x     = int.from_bytes(HMAC-SHA256(key=seed, msg)[:8], "big")
           limit = 2**64 - (2**64 % sides)
           if x < limit: return x % sides + 1
           attempt += 1

   (rejection sampling keeps every face exactly equally likely).
3. When the game ends (or for the umpire at any time) the seed is revealed; a verifier checks
   ``sha256(seed) == commitment`` and re-derives every recorded roll.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

RECIPE = "referee-dice-v1"
SEED_BYTES = 32


def commitment(seed: bytes) -> str:
    """The public commitment to a secret seed: its SHA-256, hex."""
    return hashlib.sha256(seed).hexdigest()


def derive_roll(seed: bytes, game_id: str, n: int, sides: int, client_seed: str = "") -> int:
    """Roll ``n`` of a ``sides``-faced die, derived from the seed (values 1..sides)."""
    if sides < 2:
        raise ValueError("a die has at least two sides")
    if n < 0:
        raise ValueError("roll counter is non-negative")
    limit = 2**64 - (2**64 % sides)
    attempt = 0
    while True:
        msg = f"{RECIPE}|{game_id}|{n}|{sides}|{client_seed}|{attempt}".encode()
        x = int.from_bytes(hmac.new(seed, msg, hashlib.sha256).digest()[:8], "big")
        if x < limit:
            return x % sides + 1
        attempt += 1  # pragma: no cover - probability below 2**-60 per roll


@dataclass(frozen=True)
class Roll:
    """One recorded die roll."""

    n: int
    sides: int
    value: int
    client_seed: str = ""
    entered_by: str | None = None
    """Seat that entered a physical die (umpire option); None for derived rolls."""

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"n": self.n, "sides": self.sides, "value": self.value}
        if self.client_seed:
            out["client_seed"] = self.client_seed
        if self.entered_by is not None:
            out["entered_by"] = self.entered_by
        return out


def roll_dice(
    seed: bytes, game_id: str, first_n: int, sides: Sequence[int], client_seed: str = ""
) -> list[Roll]:
    """Derive consecutive rolls ``first_n, first_n + 1, …`` for the given dice."""
    return [
        Roll(first_n + i, s, derive_roll(seed, game_id, first_n + i, s, client_seed), client_seed)
        for i, s in enumerate(sides)
    ]


@dataclass(frozen=True)
class Mismatch:
    n: int
    recorded: int
    derived: int


def verify(
    seed: bytes, published_commitment: str, game_id: str, rolls: Iterable[Roll]
) -> tuple[bool, list[Mismatch]]:
    """Check the seed against its commitment and re-derive every non-entered roll."""
    if not hmac.compare_digest(commitment(seed), published_commitment):
        return False, []
    bad = []
    for roll in rolls:
        if roll.entered_by is not None:
            continue
        derived = derive_roll(seed, game_id, roll.n, roll.sides, roll.client_seed)
        if derived != roll.value:
            bad.append(Mismatch(roll.n, roll.value, derived))
    return not bad, bad
