"""The scenario check every ruleset's setup makes of its units and sides, written once.

A scenario lists its sides and its units; each unit names an id of its own and one of the
sides. :class:`UnitRefs` answers the two questions every setup asks of them -- is this unit id
already taken, is this side one the scenario lists -- and whether the side list itself repeats
an id. Each ruleset still words, codes and cites the refusal itself (those are part of its
recorded rulings) and decides where in its own checks the questions come.

Pure: no I/O, clock or randomness.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def repeats(ids: Sequence[str]) -> bool:
    """Does an id stand twice in ``ids`` (e.g. the scenario's side ids)?"""
    return len(set(ids)) != len(ids)


class UnitRefs:
    """Unit ids and sides of one scenario, checked unit by unit in the scenario's order."""

    def __init__(self, side_ids: Iterable[str]) -> None:
        self.sides = frozenset(side_ids)
        self.seen: set[str] = set()

    def duplicate(self, unit_id: str) -> bool:
        """Was ``unit_id`` named by an earlier unit? (Each call records it as seen.)"""
        if unit_id in self.seen:
            return True
        self.seen.add(unit_id)
        return False

    def unknown_side(self, side: str) -> bool:
        """Is ``side`` none of the scenario's sides?"""
        return side not in self.sides
