"""What a seat may do now (``Ruleset.available_actions``), built the same way for every ruleset.

A ruleset says only what is its own: which of its units act for the seat (:func:`seat_sides`),
which action kinds are open to each unit with the sections that open them (an
:data:`Opening`), its own notes, and the kinds only the umpire has. :func:`offer` builds the
answer from that:

* a unit with no open kind is left out; a unit lists each open kind once, in the order given,
  and cites ``unit_lead`` then the sections of its openings, each once;
* the answer's kinds are the units' kinds, sorted, then ``extra_kinds`` (e.g. the umpire's
  own commands);
* the answer cites ``lead``, every listed unit's sections and ``more``, each once, in that
  order -- or exactly ``citations`` when the ruleset's answer does not depend on the units.

Pure: no I/O, clock or randomness.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from app.rules.base import UMPIRE, AvailableActions, UnitActions
from app.rules.ruling import Citation

Opening = tuple[str, Sequence[str]]
"""One action kind open to a unit, and the sections that open it."""


def seat_sides(sides: Iterable[str], seat: str) -> set[str]:
    """The sides whose units ``seat`` acts for: its own, or every side for the umpire."""
    return set(sides) if seat == UMPIRE else {seat}


def offer(
    cite: Callable[[str], Citation],
    units: Iterable[tuple[str, Sequence[Opening]]],
    *,
    unit_lead: Sequence[str] = (),
    lead: Sequence[str] = (),
    more: Sequence[str] = (),
    citations: Sequence[str] | None = None,
    extra_kinds: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> AvailableActions:
    """The answer to "what may this seat do now" (see the module docstring)."""
    listed: list[UnitActions] = []
    cited = list(lead)
    for unit, openings in units:
        if not openings:
            continue
        sections = list(dict.fromkeys([*unit_lead, *(s for _, opened in openings for s in opened)]))
        cited += sections
        listed.append(
            UnitActions(
                unit=unit,
                kinds=tuple(dict.fromkeys(kind for kind, _ in openings)),
                citations=tuple(cite(s) for s in sections),
            )
        )
    cited += more
    return AvailableActions(
        kinds=(*sorted({k for u in listed for k in u.kinds}), *extra_kinds),
        units=tuple(listed),
        citations=tuple(cite(s) for s in dict.fromkeys(cited if citations is None else citations)),
        notes=tuple(notes),
    )
