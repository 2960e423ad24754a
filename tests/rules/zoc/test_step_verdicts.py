"""A step verdict of the ``reachable`` search (``search._judge_step``) is kept with the state's
index and handed on to the states after it, where it is replayed alone, without the verdicts
judged before it in its first context: so it must carry every citation its step made, however
much the context had already asked. In particular the no-ZOC notes of the hex entered (8 and
8.1's clauses: a projection blocked, an enemy unit that projects nothing) are cited again by
every verdict on a step into that hex (``Context.forget_no_zoc``).

Issue 27: a verdict that lost them changed answers only on a handed-on index, which the
property test of ``test_index_handoff.py`` found only under the long Hypothesis profile."""

from __future__ import annotations

from typing import Any

from app import native
from app.rules.zoc.context import Context
from app.rules.zoc.movement import Mover
from app.rules.zoc.topology import topology
from tests.rules.rule_cases import _setup, load_cases

_judge_step = native.selected("app.rules.zoc.search")._judge_step  # the build in use


def _steps_with_notes() -> list[tuple[str, Any, Any, Any, str, str, str]]:
    """Every step of every zoc rule case's position (each unit on the map, each neighbour
    of its hex) into a hex with no-ZOC notes for the unit's side, as (case, ...)."""
    found = []
    for case in load_cases("zoc"):
        if case.data.get("kind") in ("invalid_scenario", "sealed"):
            continue
        try:
            _rs, options, board, state = _setup(case)
        except Exception:  # a case about a refused scenario or setup step
            continue
        topo = topology(board)
        ctx = Context(board, state, options)
        for unit in state.units:
            if unit.hex is None:
                continue
            for nbr, _ in topo.neighbors[unit.hex]:
                if ctx.zones.no_zoc(nbr, unit.side):
                    found.append((case.id, options, board, state, unit.id, unit.hex, nbr))
    return found


def test_a_verdict_cites_the_notes_of_the_hex_entered_whatever_was_asked_before() -> None:
    steps = _steps_with_notes()
    assert len(steps) >= 5, steps  # the cases place enemy units whose zones are blocked
    noted = 0
    for case_id, options, board, state, unit_id, cur, nxt in steps:
        unit = next(u for u in state.units if u.id == unit_id)
        fresh = Context(board, state, options)
        alone = _judge_step(fresh, Mover(fresh, unit), cur, nxt, True)
        ctx = Context(board, state, options)
        mover = Mover(ctx, unit)
        ctx.no_zoc_notes(nxt, unit.side)  # the notes already asked for in this context
        first = _judge_step(ctx, mover, cur, nxt, True)
        again = _judge_step(ctx, mover, cur, nxt, True)  # the same step judged again
        sections = {s for _u, _r, s in ctx.zones.no_zoc(nxt, unit.side)}
        cited = {s for is_cite, args in alone.events if is_cite for s in args}
        if sections <= cited:
            noted += 1
        where = (case_id, unit_id, cur, nxt)
        assert first.events == alone.events, where
        assert again.events == alone.events, where
    assert noted >= 5  # steps whose verdict cites the notes at all (8.2 judged them)
