"""The errors a rules core raises for input it cannot judge (pure: no I/O).

Here rather than in :mod:`app.rules.base` so that the judgement kit, which raises
:class:`InvalidScenario`, and the base, which uses the kit, import each other in one direction
only; :mod:`app.rules.base` re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class RulesError(Exception):
    """Base class of errors raised by a rules core for input it cannot judge."""

    code = "rules.error"


class InvalidScenario(RulesError):
    """The scenario is well-formed JSON but inconsistent (unknown hex, duplicate unit…)."""

    code = "scenario.invalid"

    def __init__(self, message: str, errors: Sequence[Mapping[str, Any]] = ()) -> None:
        super().__init__(message)
        self.errors: list[dict[str, Any]] = [dict(e) for e in errors]
        """Every problem, as the judgement kit writes them (:meth:`Judgement.problems`):
        ``code``, ``message``, ``location`` (RFC 6901 pointer in the scenario), ``citations``."""


class InvalidQuery(RulesError):
    """A query names something the game does not have (unknown unit, unknown side…)."""

    code = "query.invalid"
