"""Composing rulings: one judgement of the battlefield ruleset gathers the rulings of the
``terrain`` and ``objective-zones`` parts it asks, plus its own problems and effects.

Citations keep the ruleset that defines each section; the battlefield's own sections are
cited as ``battlefield``. The result is one :class:`Ruling` with every citation, violation,
effect and interpretation of every part, in the order they were judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.rules.battlefield.catalog import INTERPRETATION_BY_ID, OWN
from app.rules.battlefield.models import Board, Options, State
from app.rules.objective_zones.catalog import CATALOG as OZ_CATALOG
from app.rules.ruling import Citation, Effect, InterpretationRef, Ruling, Violation
from app.rules.terrain.catalog import CATALOG as TERRAIN_CATALOG


def cite(section: str) -> Citation:
    """A citation to a section of whichever catalog defines it."""
    for catalog in (OWN, OZ_CATALOG, TERRAIN_CATALOG):
        if section in catalog:
            return catalog.cite(section)
    raise KeyError(section)


class Judgement:
    """Collects the parts of one ruling."""

    def __init__(self, board: Board, state: State, options: Options) -> None:
        self.board = board
        self.state = state
        self.options = options
        self.citations: list[Citation] = []
        self.violations: list[Violation] = []
        self.effects: list[Effect] = []
        self.interpretations: list[InterpretationRef] = []
        self.details: dict[str, Any] = {}
        self.dice: Sequence[int] = ()

    def cite(self, *sections: str) -> tuple[Citation, ...]:
        out = tuple(cite(s) for s in sections)
        for c in out:
            if c not in self.citations:
                self.citations.append(c)
        return out

    def rely(self, interpretation: str) -> None:
        interp = INTERPRETATION_BY_ID[interpretation]
        value = getattr(self.options, interp.option) if interp.option else None
        ref = InterpretationRef(
            id=interp.id, text=interp.reading, option=interp.option, value=value
        )
        if all(r.id != ref.id for r in self.interpretations):
            self.interpretations.append(ref)

    def violate(
        self,
        code: str,
        message: str,
        sections: Sequence[str],
        *,
        unit: str | None = None,
        **details: Any,
    ) -> None:
        self.violations.append(
            Violation(
                code=code,
                message=message,
                unit=unit,
                citations=self.cite(*sections),
                details=details,
            )
        )

    def effect(
        self,
        kind: str,
        message: str,
        sections: Sequence[str],
        *,
        unit: str | None = None,
        by: Sequence[str] = (),
        **details: Any,
    ) -> None:
        self.effects.append(
            Effect(
                kind=kind,
                message=message,
                unit=unit,
                by=tuple(by),
                citations=self.cite(*sections),
                details=details,
            )
        )

    def take(self, ruling: Ruling, part: str | None = None) -> Ruling:
        """Fold a part's ruling into this one (its details under ``part`` when given)."""
        for c in ruling.citations:
            if c not in self.citations:
                self.citations.append(c)
        self.violations.extend(ruling.violations)
        self.effects.extend(ruling.effects)
        for ref in ruling.interpretations:
            if all(r.id != ref.id for r in self.interpretations):
                self.interpretations.append(ref)
        if part is not None:
            self.details[part] = ruling.details
        return ruling

    @property
    def legal(self) -> bool:
        return not self.violations

    def ruling(self, ok_summary: str) -> Ruling:
        summary = ok_summary if self.legal else "; ".join(v.message for v in self.violations)
        return Ruling(
            legal=self.legal,
            summary=summary,
            violations=tuple(self.violations),
            effects=tuple(self.effects),
            citations=tuple(self.citations),
            interpretations=tuple(self.interpretations),
            details=self.details,
        )
