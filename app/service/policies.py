"""The service's own policies: what a refusal cites when no rule of the ruleset forbids it.

A refusal by the rules cites sections of the ruleset's catalog. Some refusals come from the
service's match flow instead -- who may run an umpire command, when a takeback is allowed,
how physical dice are entered. Those cite one of the policies below, as a citation whose
``ruleset`` is :data:`SERVICE` (``referee``) and whose ``section`` is the policy id; each is
documented in docs/API.md ("Service policies"), which a test checks. A refusal a rule also
forbids (a seat acting out of its phase) cites the ruleset's sequence of play instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.rules.ruling import Citation

SERVICE = "referee"
"""The ``ruleset`` of a policy citation: the service's policy catalog, not a ruleset."""


@dataclass(frozen=True)
class Policy:
    id: str
    title: str


POLICIES: dict[str, Policy] = {
    p.id: p
    for p in (
        Policy("seats", "A seat acts for its own side; the umpire may act for any"),
        Policy("umpire-commands", "Umpire commands: advance, finish, rollback, seed reveal"),
        Policy("finished-game", "A finished game takes no more actions or commands"),
        Policy("sequence-of-play", "Phases exist only where the ruleset declares them"),
        Policy("rollback", "Rollback restores the stored state of an earlier version"),
        Policy("takeback", "Takeback of a player's own last action, when the game allows it"),
        Policy("physical-dice", "Physical dice: the umpire enters each die the action needs"),
        Policy("dice-seed", "Committed dice seed: sealed until the game ends or is revealed"),
        Policy("sealed-orders", "Sealed orders: one per listed side, opened by the umpire"),
        Policy(
            "ruleset-version",
            "A game is judged under the ruleset version it is pinned to; the umpire upgrades it",
        ),
        Policy(
            "appeals",
            "Appeals: a side appeals a ruling it can read within the game's window; the "
            "umpire decides",
        ),
        Policy(
            "messages",
            "Table talk: a seat writes plain text to everyone or to one other seat, within "
            "the server's rate",
        ),
        Policy(
            "email",
            "Email notifications: a seat registers plain addresses of its own, within the "
            "server's caps; the umpire emails invitations",
        ),
        Policy(
            "what-if",
            "What-if replays: the umpire at any time, players once the game is over",
        ),
    )
}


def citation(policy_id: str) -> Citation:
    """The citation of one service policy (KeyError for an unknown id: a bug, not input)."""
    policy = POLICIES[policy_id]
    return Citation(ruleset=SERVICE, section=policy.id, title=policy.title)


def cite(policy_id: str) -> list[dict[str, Any]]:
    """A refusal's ``citations`` (problem+json) naming one service policy."""
    return [citation(policy_id).model_dump(mode="json")]
