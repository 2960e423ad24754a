"""The ``reachable`` query's search: section 8.2 over integer hexes.

The search is the cheapest-path search the move judge's rules imply (a node is a hex and
whether the unit must stop there), run over hexes numbered once per board:

* :class:`BoardGraph` (once per board): the hex ids numbered, each hex's neighbours with the
  entry cost across the hexside (terrain, hexside features), filled in as the search reaches
  a hex -- so a search pays for the area it reaches, not for the map;
* :class:`SideFacts` (once per state and side, kept with the state's index): the hexes that
  hold enemy ground units, whether a hex is in EZOC, the no-ZOC notes of a hex -- found from
  the units in the six neighbours when first asked for, never from every unit of the game;
* a step with no EZOC at either end outside Reserve Movement is answered by 8.2's silence
  (the no-ZOC notes are cited, nothing else); any other step is judged once by
  :meth:`Mover.zoc_step` itself, and its verdict is kept per state, unit and options with the
  sections it cited and the readings it relied on, in order (:class:`StepVerdict`), so a
  later search of the same game version replays them instead of judging again;
* citations are recorded once per group of sections (a group already recorded is skipped);
* a whole search is kept too, per state, unit, options and whether the unit started the phase
  in EZOC (the last :data:`SEARCHES_KEPT`), with what it cited and relied on, and the rows of
  its answer (:meth:`Found.reached_order`, :meth:`Found.frontier`): the same query again at
  the same game version replays the citations and copies the rows into a fresh answer.

It answers exactly what the search it replaced answered (the test reference in
``tests/rules/zoc/test_zoc_search.py``): the same nodes are expanded in the same order with the
same tie-break, every refused step gives the same reason, and the sections and readings are
recorded in the same first-cited order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any, Final, NamedTuple, final

from app.rules import layers
from app.rules.judgement import Problem
from app.rules.layers import Layered, layered
from app.rules.memo import ByIdentity
from app.rules.zoc.context import Context, Event, section_ids_of
from app.rules.zoc.models import Board, Unit, ZocOptions
from app.rules.zoc.paths import names
from app.rules.zoc.steps import EzocSteps
from app.rules.zoc.topology import board_costs, topology

# Final: the compiled build (app/native.py) reads these as constants, not from the
# module's dict
TERRAIN: Final = ("basic.terrain",)
ENEMY_HEX: Final = ("basic.enemy-hex",)
MOVEMENT_POINTS: Final = ("basic.movement-points",)
INSUFFICIENT_MP: Final = "zoc.insufficient_mp"
MUST_STOP: Final = "zoc.must_stop"
TERRAIN_CODE: Final = "zoc.prohibited_terrain"
ENEMY_CODE: Final = "zoc.enemy_occupied"


@final
class Step:
    """One step out of a hex, for a unit of one side in one state (:meth:`SideFacts.steps_from`):
    the neighbour entered, its node for a step that does not stop there (neighbour * 2), the
    entry cost, the kind (:data:`PLAIN` ...), then for IMPASSABLE and ENEMY the refusal's
    message, else the 1-tuple of the neighbour's hex id (what a path through the step ends
    with: added to the path as it is, no tuple made for it at every step).

    The neighbour and the node are ints, typed ``Any`` so that the compiled search keeps the
    very int objects the search's tables hold (an ``int`` would be unboxed and boxed again for
    every table it is looked up in: a new object, compared by value) -- the board's own
    (:meth:`BoardGraph.node_of`): every step into a hex holds the same two objects. (A class,
    not a tuple: the compiled build reads the fields a step needs, where it unpacked a
    tuple's five at every step.)"""

    __slots__ = ("cost", "kind", "last", "nbr", "node")

    def __init__(self, nbr: Any, node: Any, cost: int, kind: int, last: Any) -> None:
        self.nbr = nbr
        self.node = node
        self.cost = cost
        self.kind = kind
        self.last = last


class BoardGraph:
    """One board's hexes as integers, and each hex's neighbours with their entry costs."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.topo = topology(board)
        self.ids: list[str] = list(self.topo.neighbors)
        self.index: dict[str, int] = {h: i for i, h in enumerate(self.ids)}
        self.hexes: list[Any] = list(self.index.values())
        """Hex ``i``'s int object (``index``'s, the one the rows and steps hold), at ``i``:
        what the compiled build finds a hex by from a node (``hexes[node >> 1]``) instead of
        making a new int, which a table would then compare by value (Any: as for Step)."""
        self.in_order = self.ids == sorted(self.ids)
        """Whether the hexes are numbered in hex id order (then sorting the numbers sorts by
        hex id)."""
        self._rows: dict[int, tuple[tuple[int, int | None, str, bool], ...]] = {}
        self._layout = board.layout.layout()
        self._axial: dict[int, tuple[int, int]] = {}
        self._step_keys: dict[int, frozenset[tuple[int, int, bool]]] = {}
        self._around: dict[int, tuple[int, ...]] = {}
        self._nodes: dict[int, tuple[Any, Any, tuple[str]]] = {}
        self._near: list[tuple[str, ...] | None] = [None] * len(self.ids)

    def distance(self, a: int, b: int) -> int:
        """Hex distance between two hexes of the same map prefix."""
        qa, ra = self.axial(a)
        qb, rb = self.axial(b)
        dq, dr = qa - qb, ra - rb
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def axial(self, i: int) -> tuple[int, int]:
        found = self._axial.get(i)
        if found is None:
            layout = self._layout
            found = layout.to_axial(layout.parse(self.ids[i]))
            key: Any = self.hexes[i]  # the hex's own int (Any: as for Step)
            self._axial[key] = found
        return found

    def node_of(self, i: int) -> tuple[Any, Any, tuple[str]]:
        """Hex ``i``'s own int object, its node's (``2 * i``: one object for every step into
        the hex, so that the search's tables find it by identity) and the 1-tuple of its hex
        id (:class:`Step`), made once per hex."""
        found = self._nodes.get(i)
        if found is None:
            node: Any = i * 2  # boxed once: the one object every step into the hex holds
            found = self._nodes[i] = (self.hexes[i], node, (self.ids[i],))
        return found

    def near(self, i: int) -> tuple[str, ...]:
        """The ids of the hexes next to hex ``i``, in direction order (made once per hex; a
        list by hex number: found without boxing ``i``)."""
        found = self._near[i]
        if found is None:
            found = self._near[i] = tuple([n for n, _side in self.topo.neighbors[self.ids[i]]])
        return found

    def neighbours(self, i: int) -> list[int]:
        """The hexes next to hex ``i``."""
        index = self.index
        return [index[n] for n, _side in self.topo.neighbors[self.ids[i]]]

    def around(self, i: int) -> tuple[int, ...]:
        """The hexes next to hex ``i``, in direction order (made once per hex; each hex's own
        int object, :attr:`hexes`)."""
        found = self._around.get(i)
        if found is None:
            hexes = self.hexes
            found = self._around[i] = tuple([hexes[n] for n in self.neighbours(i)])
        return found

    def step_keys(self, i: int) -> frozenset[tuple[int, int, bool]]:
        """The keys of the verdicts on every step out of or into hex ``i`` (``(hex,
        neighbour, first step)``: :data:`VerdictTable`), made once per hex."""
        found = self._step_keys.get(i)
        if found is None:
            found = self._step_keys[i] = frozenset(
                key
                for n in self.neighbours(i)
                for key in ((i, n, True), (i, n, False), (n, i, True), (n, i, False))
            )
        return found

    def row(self, i: int) -> tuple[tuple[int, int | None, str, bool], ...]:
        """``(neighbour, entry cost or None, why impassable, across All-Sea)`` in direction
        order; the cost before any Beachhead exception (a state's markers may lift one)."""
        found = self._rows.get(i)
        if found is None:
            costs = board_costs(self.board)
            src = self.ids[i]
            out = []
            for nbr, _side in self.topo.neighbors[src]:
                entry = costs.entry(src, nbr)
                out.append((self.index[nbr], entry.cost, entry.why, entry.across_all_sea))
            found = self._rows[i] = tuple(out)
        return found


_GRAPH_OF = ByIdentity(BoardGraph)


@final
class StepVerdict:
    """8.2's verdict on one step, and what judging it cited and relied on (in order); for a
    step that ends the move, the stop's sections and the ``zoc.must_stop`` reason the search
    notes for the hexes next to the stop (written once per verdict, not once per search).

    (A plain class, never changed once made, not a frozen dataclass: the compiled build made
    a frozen dataclass through its Python-level ``__init__``, once per judged step -- some
    25 for a search on a state parsed afresh; nothing compares two verdicts but by identity.)"""

    __slots__ = ("around", "ending", "events", "problem", "stop", "stop_sections")

    def __init__(
        self,
        problem: Problem | None,
        stop: Any,
        events: tuple[Event, ...],
        stop_sections: tuple[str, ...] = (),
        ending: Written | None = None,
        around: tuple[int, ...] = (),
    ) -> None:
        self.problem = problem
        self.stop = stop
        """movement.Stop | None (not imported: movement imports this module)"""
        self.events = events
        self.stop_sections = stop_sections
        self.ending = ending
        """(``zoc.must_stop``, "Paths through <stop hex> end there: <the stop's message>.",
        the stop's sections as citing them gives them), or None without a stop."""
        self.around = around
        """The hexes next to the stop hex (:meth:`BoardGraph.around`), where the search
        notes :attr:`ending`; empty without a stop."""


SEARCHES_KEPT = 4
"""Searches kept per state and side (:attr:`SideFacts.searches`): one on a 200x200 map with
an allowance of 40 holds about a megabyte; the verdicts behind an evicted one stay kept. (A
state's index is dropped once the state is gone: :class:`app.rules.memo.ByIdentity`.)"""

PLAIN: Final = 0
NOTES: Final = 1
EZOC: Final = 2
IMPASSABLE: Final = 3
ENEMY: Final = 4
"""What a step into a hex meets, for a unit of one side: nothing of 8.2 (PLAIN), nothing but
enemy units that project no ZOC into it (NOTES, cited), an EZOC (EZOC: 8.2 judges the step);
or it is refused: terrain or hexside (IMPASSABLE), enemy ground units (ENEMY)."""


class SideFacts:
    """What a search for a unit of ``side`` asks of one state, hex by hex as it asks: each
    hex's steps (:class:`Step`), whether it is in EZOC, the sections of its no-ZOC notes."""

    def __init__(self, graph: BoardGraph, side: str) -> None:
        self.side = side
        self.graph = graph
        self.ezoc: dict[int, bool] = {}
        self.no_zoc: dict[int, tuple[str, ...]] = {}
        self.steps: dict[int, tuple[Step, ...]] = {}
        """hex -> the steps out of it, an :class:`EzocSteps` when the hex is in EZOC: what a
        search looks up once per node it expands (both facts are dropped together on a move:
        :meth:`handed_on` drops the steps of every hex whose EZOC it drops)."""
        self.verdicts: dict[tuple[Any, ...], VerdictTable] = {}
        """(unit id, options (:class:`OptionsKey`), started the phase in EZOC) -> (hex,
        neighbour, first step) -> 8.2's verdict on that step: the tables asked for in this
        state (:meth:`verdicts_for` finds the others)."""
        self.options_key: OptionsKey | None = None
        """The options last searched with, as they key :attr:`verdicts` (:meth:`key_of`)."""
        self.occupied: dict[str, list[tuple[int, Unit]]] | None = None
        """The state's units by hex (the zones' table, ``Zones.positions_table``), for facts
        made afresh for a state whose table is a plain one (None for facts handed on, whose
        table is layered: as ``Zones.occupied``): a hex with no enemy unit next to it is in
        no EZOC and has no no-ZOC note for this side, found here by six look-ups in C instead
        of through the zones (:meth:`alone`)."""
        self.below: VerdictsBelow | None = None
        """Where the verdicts of the state before a move are, when these facts were handed on
        (:meth:`handed_on`): a table is made from that state's when first asked for."""
        self.searches: dict[tuple[str, bool], tuple[ZocOptions, Found, tuple[Event, ...]]] = {}
        """(unit id, started the phase in EZOC) -> the options searched with, what
        :func:`search` found, and what it cited and relied on (in first-cited order, to be
        replayed): the :data:`SEARCHES_KEPT` last asked for, oldest first. (The options are
        compared when the search is found, not hashed into its key: a pydantic model's hash
        is Python code, and the key is hashed at every ask and eviction; one search is kept
        per unit, with the options last asked for.)"""

    def key_of(self, options: ZocOptions) -> OptionsKey:
        """``options`` as they key :attr:`verdicts`: the key made for them last, when they are
        the same object (the options of a game's states are), else a new one."""
        found = self.options_key
        if found is None or found.options is not options:
            found = self.options_key = OptionsKey(options)
        return found

    def verdicts_for(self, key: tuple[Any, ...]) -> VerdictTable:
        """The verdicts table of (unit id, options, started the phase in EZOC): kept, or made
        from the state before's (found the same way) without what the move invalidated
        (:meth:`handed_on`), or new."""
        found = self.verdicts.get(key)
        if found is None:
            found = self.verdicts[key] = _handed_verdicts(self.below, key)
        return found

    # Each table of these facts may be a Layered one (handed on: app.rules.layers), read
    # through its own `get`: typed a Mapping where it is read, so that the compiled build
    # (app/native.py) does not use the plain dict's look-up, which finds nothing below.

    def alone(self, i: int) -> bool:
        """Whether no unit of another side than this one stands next to hex ``i``, when
        these facts know the state's units by hex (:attr:`occupied`): then no enemy unit
        projects a ZOC into it, blocked or not, and none next to it projects nothing, so the
        zones answer no EZOC and no no-ZOC note there for this side (8.1: both are of the
        other sides' units)."""
        occupied = self.occupied
        if occupied is None:
            return False
        side = self.side
        for hex_id in self.graph.near(i):
            here: list[tuple[int, Unit]] | None = occupied.get(hex_id)
            if here is not None:
                for _, unit in here:
                    if unit.side != side:
                        return False
        return True

    # in_ezoc and no_zoc_sections key their tables by the hex's own int object
    # (BoardGraph.hexes: Any, as for Step), as the search looks them up

    def in_ezoc(self, ctx: Context, i: int) -> bool:
        key: Any = self.graph.hexes[i]
        kept: Mapping[Any, bool] = self.ezoc
        found = kept.get(key)
        if found is None:
            found = False if self.alone(i) else bool(ctx.zones.ezoc(self.graph.ids[i], self.side))
            self.ezoc[key] = found
        return found

    def no_zoc_sections(self, ctx: Context, i: int) -> tuple[str, ...]:
        key: Any = self.graph.hexes[i]
        kept: Mapping[Any, tuple[str, ...]] = self.no_zoc
        found = kept.get(key)
        if found is None:
            if self.alone(i):
                found = ()
            else:
                notes = ctx.zones.no_zoc(self.graph.ids[i], self.side)
                found = tuple(section for _u, _r, section in notes)
            self.no_zoc[key] = found
        return found

    def steps_from(self, ctx: Context, i: int) -> tuple[Step, ...]:
        """The steps out of hex ``i``, in direction order (as :meth:`Mover.basic_step` and
        the first test of :meth:`Mover.zoc_step` would find them): an :class:`EzocSteps`
        when the hex is in EZOC."""
        key: Any = self.graph.hexes[i]  # the hex's own int (as in_ezoc's)
        kept: Mapping[Any, tuple[Step, ...]] = self.steps
        found = kept.get(key)
        if found is not None:
            return found
        ids, side = self.graph.ids, self.side
        beachheads = bool(ctx.beachheads)  # a Beachhead marker may lift an All-Sea hexside
        # ctx.enemy_ground_units and in_ezoc's kept answers, inlined: a plain table (a state's
        # own, made afresh) read by the dict's own look-up, a Layered one (handed on) through
        # its `get`
        occupants: Mapping[str, list[tuple[int, Unit]]] = ctx.occupants
        occupants_plain = ctx.occupants if type(occupants) is dict else None
        ezoc_kept: Mapping[Any, bool] = self.ezoc
        ezoc_plain = self.ezoc if type(ezoc_kept) is dict else None
        graph = self.graph
        out: list[Step] = []
        for at, cost, why, sea in graph.row(i):
            if sea and beachheads:
                cost, why = ctx.entry_cost(ids[i], ids[at])
            nbr, node, last = graph.node_of(at)  # (a method called natively, not bound)
            if cost is None:
                out.append(Step(nbr, node, 0, IMPASSABLE, f"{why}."))
                continue
            if cost < 0:  # the board's costs are validated: the search pops by cost
                raise ValueError(f"negative entry cost from {ids[i]} into {ids[at]}")
            hex_id = ids[at]
            if occupants_plain is not None:
                here = occupants_plain.get(hex_id)
            else:
                here = occupants.get(hex_id)
            if here is not None:
                enemies = [u for _, u in here if u.side != side and u.ground]
                if enemies:
                    message = f"{hex_id} holds enemy units ({names(enemies)})."
                    out.append(Step(nbr, node, cost, ENEMY, message))
                    continue
            # the hex's own int as the key (Any: as for Step)
            ezoc = ezoc_plain.get(nbr) if ezoc_plain is not None else ezoc_kept.get(nbr)
            if ezoc is None:
                ezoc = self.in_ezoc(ctx, at)
            if ezoc:
                out.append(Step(nbr, node, cost, EZOC, last))
            else:
                kind = NOTES if self.no_zoc_sections(ctx, at) else PLAIN
                out.append(Step(nbr, node, cost, kind, last))
        found = self.steps[key] = EzocSteps(out) if self.in_ezoc(ctx, i) else tuple(out)
        return found

    def handed_on(
        self, cells: list[str], near: AbstractSet[str], unit_id: str, unit_side: str
    ) -> SideFacts:
        """These facts for the state after a unit moved from or to the hexes ``cells``
        (:meth:`app.rules.zoc.index.StateIndex.handed_on`), whose zones changed in the hexes
        ``near`` (their neighbours). Dropped, to be found again: whether a hex of ``near`` is
        in EZOC and its no-ZOC notes; the steps out of any hex next to ``cells`` or ``near``
        (a step's kind is the occupation, the EZOC and the notes of the hex entered); every
        verdict on a step out of or into ``cells`` or ``near`` (8.2 reads the EZOC at both
        ends, the notes and negators of the hex entered, in Reserve Movement the negators of
        the hex left); every verdict for the moved unit itself. The other verdicts are kept
        per unit, options and whether the unit started the phase in EZOC (which the move may
        change: :func:`search` keys them by it).

        When the moved unit is of this side (``unit_side``), it is in no EZOC, no-ZOC note or
        enemy occupation this side meets (8.1: each is of the other sides' units), so only
        the verdicts on steps into or out of ``cells`` are dropped (friendly units negate
        there, and the moved list names the unit) with the moved unit's own; the tables of
        EZOC, notes and steps are then the same for both states and shared (not layered).

        A unit's verdicts are handed on when the new state's search first asks for them
        (:meth:`verdicts_for`): a copy of the old state's table less the dropped keys."""
        graph = self.graph
        index, nbrs = graph.index, graph.topo.neighbors
        new = SideFacts(graph, self.side)  # (its tables replaced below)
        new.options_key = self.options_key
        if unit_side == self.side:
            # nothing of these three tables changes: the two states share them (what either
            # finds holds in both), so the new state's searches look them up in C
            touched = {index[h] for h in cells if h in index}
            new.ezoc = self.ezoc
            new.no_zoc = self.no_zoc
            new.steps = self.steps
        else:
            changed = {index[h] for h in near if h in index}
            touched = changed | {index[h] for h in cells if h in index}
            ring = touched | {index[n] for h in near for n, _ in nbrs.get(h, ()) if n in index}
            new.ezoc = layered(self.ezoc, changed)
            new.no_zoc = layered(self.no_zoc, changed)
            new.steps = layered(self.steps, ring)
        new.searches = {}  # every search of the new state is run again (from the verdicts kept)
        # a verdict is kept per step (hex, neighbour, first step): the steps out of or into a
        # touched hex; each unit's table is made from this state's when the unit is first
        # asked for (most units of a side are not asked at every game version), less the
        # steps of the touched hexes (_handed_verdicts); every layers.LAYERS_KEPT moves the
        # tables this state has are handed on at once (layered, dropped by key), so that the
        # states before it can go
        depth = 1 if self.below is None else self.below.depth + 1
        new.verdicts = {}
        new.below = VerdictsBelow(self.verdicts, self.below, frozenset(touched), unit_id, depth)
        if depth >= layers.LAYERS_KEPT:
            step_keys = graph.step_keys
            dropped = frozenset().union(*[step_keys(t) for t in touched])  # in C, hashes kept
            new.below = None
            new.verdicts = {
                key: layered(table, dropped)
                for key, table in self.verdicts.copy().items()
                if key[0] != unit_id
            }
        return new


class OptionsKey:
    """A game's options as they key the verdict tables (:attr:`SideFacts.verdicts`): hashed
    once (a pydantic model's hash is Python code, and a table is looked up at every search),
    equal to another for equal options, as the options are."""

    def __init__(self, options: ZocOptions) -> None:
        self.options = options
        self.hashed = hash(options)

    def __hash__(self) -> int:
        return self.hashed

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OptionsKey):
            return NotImplemented
        return other.options is self.options or other.options == self.options


VerdictTable = dict[tuple[int, int, bool], StepVerdict]
"""(hex, neighbour, first step) -> 8.2's verdict on that step, for one unit."""


class VerdictsBelow(NamedTuple):
    """The state before a move, for :meth:`SideFacts.verdicts_for`: its verdict tables and
    where its own came from (not its facts: the searches it keeps are not held on to), the
    hexes whose steps' verdicts the move invalidated and the unit moved (none of its verdicts
    hold after). (A named tuple: made at every move, in a few steps.)"""

    tables: dict[tuple[Any, ...], VerdictTable]
    below: VerdictsBelow | None
    touched: frozenset[int]
    """The hexes every step out of or into which the move invalidated (a verdict's key
    ``(hex, neighbour, first step)`` names them in its first two fields)."""
    unit_id: str
    depth: int
    """How many moves the chain of states before goes back."""


def _handed_verdicts(below: VerdictsBelow | None, key: tuple[Any, ...]) -> VerdictTable:
    """A unit's verdicts table for a state whose facts were handed on from ``below``'s state:
    that state's table (made there first, as its ``verdicts_for`` would) less the verdicts
    the move invalidated -- a copy (in C) less the steps out of or into a touched hex,
    looked up in C by the search.

    A verdict's key is a step between neighbours, and a hex's neighbours are its neighbours'
    neighbours (``BoardGraph.step_keys``), so a key names a touched hex in its first two
    fields exactly when it is among the touched hexes' step keys: the keys are tested
    here, in the table (a few dozen), instead of the touched hexes' step keys being joined
    into one set at every move (a few dozen keys each, found in memory the search has
    since left)."""
    if below is None or key[0] == below.unit_id:
        return {}
    table = below.tables.get(key)
    if table is None:
        table = below.tables[key] = _handed_verdicts(below.below, key)
    found = table.flat() if isinstance(table, Layered) else table.copy()
    touched = below.touched
    for dropped in [k for k in found if k[0] in touched or k[1] in touched]:
        del found[dropped]
    return found


def side_facts(ctx: Context, side: str) -> SideFacts:
    """The state's facts for ``side`` (kept with the state's index, per board)."""
    kept = ctx.search_memo
    found = kept.get(side)
    if isinstance(found, SideFacts) and found.graph.board is ctx.board:
        return found  # (its graph is the board's: a graph is a function of its board)
    found = kept[side] = SideFacts(_GRAPH_OF(ctx.board), side)
    table = ctx.zones.positions_table()  # (this state's: facts handed on have none)
    found.occupied = table if type(table) is dict else None
    return found


def _judge_step(
    ctx: Context, mover: Any, cur: str, nxt: str, first: bool, around: tuple[int, ...] = ()
) -> StepVerdict:
    """Judge one step with the move judge's own rules, noting what it cites and relies on
    (``around``: the hexes next to ``nxt``, kept with a verdict that stops the unit there)."""
    ctx.forget_no_zoc(nxt, mover.side)  # so that its notes are cited (and noted) again
    note = ctx.noting()
    try:
        outcome = mover.zoc_step(cur, nxt, 0, first)
    finally:
        ctx.stop_noting()
    stop = outcome.stop
    if stop is None:
        return StepVerdict(outcome.problem, None, tuple(note))
    sections = tuple(stop.sections)
    cited = section_ids_of(sections)  # as ctx.cite(*sections) gives them
    ending = (MUST_STOP, f"Paths through {nxt} end there: {stop.message}.", cited)
    return StepVerdict(outcome.problem, stop, tuple(note), sections, ending, around)


def _by_hex_id(best: dict[Any, int], ids: list[str]) -> list[Any]:
    """The nodes of ``best`` in their hexes' id order (apart from :meth:`Found.reached_order`:
    a nested function makes the compiled build set up its closure at every call)."""
    return sorted(best, key=lambda node: ids[node >> 1])


class Found:
    """What the search found: cheapest cost of each node, its path, the stops, the reasons.

    (A plain class, not a dataclass: mypyc's dataclasses leave fields that ``__init__`` does
    not take unset; nothing compares two of them.)"""

    def __init__(
        self,
        start: int,
        best: dict[int, int],
        paths: dict[int, tuple[str, ...]],
        stops: dict[int, StepVerdict],
        reasons: dict[int, dict[str, Reason]],
        refused: Refused,
        graph: BoardGraph,
    ) -> None:
        self.start = start
        self.best = best
        """node (hex * 2 + must stop there) -> cheapest cost."""
        self.paths = paths
        """node -> the hexes entered on its cheapest path (made from its parent's path at
        each step that lowers its cost, the parent being expanded, so final, then; the last
        such step is the cheapest path's)."""
        self.stops = stops
        """node (a hex the unit must stop in) -> the verdict on the step that stopped it
        there."""
        self.reasons = reasons
        """hex -> code -> the first reason of that code an 8.2 verdict refused a step into it
        for (the four commonest codes are noted apart: :attr:`refused`)."""
        self.refused = refused
        self.graph = graph
        self._order: tuple[int, ...] | None = None
        self._frontier: tuple[int, tuple[FrontierRow, ...]] | None = None
        self._everywhere: tuple[int, tuple[WhyNotRow, ...]] | None = None

    def reached_order(self) -> tuple[int, ...]:
        """Each reached hex's node in hex id order (its cheapest; at equal cost the one not
        ending the move), the start's left out: what :func:`reached` makes an answer's rows
        from (kept: a kept search's answer is made from it again)."""
        if self._order is not None:
            return self._order
        best: dict[Any, int] = self.best  # Any: as for Step
        graph = self.graph
        if graph.in_order:  # one node per hex: sorting the nodes sorts their hexes
            nodes: list[Any] = sorted(best)
        else:  # by hex id: the two nodes of a hex side by side (their order is the dict's)
            nodes = _by_hex_id(best, graph.ids)
        # the start's nodes left out; a hex reached both ways (nodes 2 * hex and 2 * hex + 1,
        # next to each other now) keeps its node not ending the move unless the stop's is
        # cheaper
        start = self.start
        order: list[Any] = []
        count = len(nodes)
        k = 0
        while k < count:
            node = nodes[k]
            at: int = node  # unboxed: its hex read natively
            here = at >> 1
            k += 1
            if here == start:
                continue
            if k < count:
                twin = nodes[k]
                other: int = twin
                if other >> 1 == here:
                    k += 1
                    plain, stop = (twin, node) if at & 1 else (node, twin)
                    order.append(plain if best[plain] <= best[stop] else stop)
                    continue
            order.append(node)
        self._order = tuple(order)
        return self._order

    def frontier(self, allowance: int) -> tuple[FrontierRow, ...]:
        """The hexes a step was refused into, not reached, within ``allowance`` of the start,
        in hex id order, each with its reasons in code order (the ``frontier`` why-nots)."""
        kept = self._frontier
        if kept is not None and kept[0] == allowance:
            return kept[1]
        graph = self.graph
        ids = graph.ids
        # the tables read as keyed by the very int objects the search's tables hold (Any: as
        # for Step; an int key would be unboxed and boxed again for each look-up), directly
        known: dict[Any, tuple[int, int]] = graph._axial
        axial = graph.axial
        start = self.start
        refused = self.refused
        cited = refused.cited
        problems: dict[Any, dict[str, Reason]] = self.reasons
        terrain: dict[Any, str] = refused.terrain
        enemy: dict[Any, str] = refused.enemy
        short_of: dict[Any, tuple[int, int]] = refused.short
        ending_of: dict[Any, Any] = refused.ending  # Any: each reason handed on as it is
        rows: list[FrontierRow] = []
        # a search refused steps for its allowance and its stops only (the commonest case):
        # a hex's reasons are those two, already in code order
        few = not (self.reasons or refused.terrain or refused.enemy)
        mp = cited.get(MOVEMENT_POINTS, ())
        hexes = self.refused_hexes()
        nodes: dict[int, int] = self.best  # unboxed: each hex's own int found, not made
        of = graph.hexes
        for node in nodes:  # the hexes reached (one discard each, no list made)
            hexes.discard(of[node >> 1])
        hexes.discard(start)
        in_order = graph.in_order  # then the rows are made in hex id order
        q0, r0 = axial(start)
        rows_of: list[Any] = sorted(hexes) if in_order else list(hexes)  # Any: as for Step
        for i in rows_of:
            k: int = i  # unboxed: the hex's id read natively (i stays the tables' key)
            # graph.distance(start, i), inlined (abs written out: the compiled build's abs
            # of an int boxes it)
            at = known.get(i)
            q, r = axial(i) if at is None else at
            dq, dr = q - q0, r - r0
            ds = dq + dr
            if (
                (dq if dq >= 0 else -dq) + (dr if dr >= 0 else -dr) + (ds if ds >= 0 else -ds)
            ) // 2 > allowance:
                continue
            if few:
                beyond = short_of.get(i)
                stop = ending_of.get(i)
                if beyond is None:
                    rows.append((ids[k], (stop,)))  # type: ignore[arg-type]  # one of the two
                    continue
                hex_id = ids[k]
                written: Written = (
                    INSUFFICIENT_MP,
                    f"Entering {hex_id} from {ids[beyond[0]]} would cost {beyond[1]} "
                    "movement points.",
                    mp,
                )
                rows.append((hex_id, (written,) if stop is None else (written, stop)))
                continue
            # the hex's reasons (noted, inlined), their messages written, in code order
            out: list[Written] = []
            found = problems.get(i)
            if found is not None:
                out.extend(in_code_order(found))
            message = terrain.get(i)
            if message is not None:
                out.append((TERRAIN_CODE, message, cited[TERRAIN]))
            message = enemy.get(i)
            if message is not None:
                out.append((ENEMY_CODE, message, cited[ENEMY_HEX]))
            beyond = short_of.get(i)
            if beyond is not None:
                out.append(
                    (
                        INSUFFICIENT_MP,
                        f"Entering {ids[k]} from {ids[beyond[0]]} would cost {beyond[1]} "
                        "movement points.",
                        cited[MOVEMENT_POINTS],
                    )
                )
            stop = ending_of.get(i)
            if stop is not None:
                out.append(stop)
            if len(out) > 1:
                out.sort(key=_code)
            rows.append((ids[k], tuple(out)))
        if not in_order:
            rows.sort()  # by hex id: each hex once, so no two rows compare further
        self._frontier = (allowance, tuple(rows))
        return self._frontier[1]

    def everywhere(
        self, allowance: int, within: Callable[[], Iterable[str]]
    ) -> tuple[WhyNotRow, ...]:
        """Every hex of ``within()`` (the map's hexes within ``allowance`` of the start) not
        reached, in hex id order: with its reasons in code order, or None when no step was
        refused into it (the ``all`` why-nots; :func:`app.rules.zoc.movement.reachable`)."""
        kept = self._everywhere
        if kept is not None and kept[0] == allowance:
            return kept[1]
        ids = self.graph.ids
        reasons = {ids[i]: self.noted(i) for i in self.refused_hexes()}
        reached = {ids[node >> 1] for node in self.reached_order()}
        start = ids[self.start]
        rows: list[WhyNotRow] = []
        for hex_id in within():
            if hex_id == start or hex_id in reached:
                continue
            noted = reasons.get(hex_id)
            rows.append((hex_id, in_code_order(noted) if noted else None))
        rows.sort(key=lambda row: row[0])
        self._everywhere = (allowance, tuple(rows))
        return self._everywhere[1]

    def refused_hexes(self) -> set[int]:
        """The hexes a step was refused into."""
        refused = self.refused
        out = set(refused.short)
        out.update(refused.ending)
        for more in (refused.terrain, refused.enemy, self.reasons):
            if more:  # (mostly empty)
                out.update(more)
        return out

    def noted(self, i: int) -> dict[str, Reason]:
        """Hex ``i``'s reasons: code -> the first reason of that code a step into it was
        refused for (in no order: an answer lists them in code order)."""
        refused = self.refused
        found = self.reasons.get(i)
        out = {} if found is None else dict(found)
        message = refused.terrain.get(i)
        if message is not None:
            out[TERRAIN_CODE] = (TERRAIN_CODE, message, refused.cited[TERRAIN])
        message = refused.enemy.get(i)
        if message is not None:
            out[ENEMY_CODE] = (ENEMY_CODE, message, refused.cited[ENEMY_HEX])
        short = refused.short.get(i)
        if short is not None:
            ids = self.graph.ids
            out[INSUFFICIENT_MP] = (
                INSUFFICIENT_MP,
                (ids[i], ids[short[0]], short[1]),
                refused.cited[MOVEMENT_POINTS],
            )
        ending = refused.ending.get(i)
        if ending is not None:
            out[MUST_STOP] = ending
        return out


class Refused:
    """The search's commonest refusals, each the first of its code per hex (noted with one
    ``setdefault``): its messages are written only for the hexes an answer lists.

    (A plain class, not a frozen dataclass: the compiled build makes a frozen dataclass
    through its Python-level ``__init__``, once per search; nothing compares two of them.)"""

    def __init__(
        self,
        terrain: dict[int, str],
        enemy: dict[int, str],
        short: dict[int, tuple[int, int]],
        ending: dict[int, Written],
        cited: dict[tuple[str, ...], tuple[str, ...]],
    ) -> None:
        self.terrain = terrain
        """hex -> the message of the first step into it that terrain or a hexside
        prohibited."""
        self.enemy = enemy
        """hex -> the message of the first step into it refused for the enemy units in it."""
        self.short = short
        """hex -> (hex left, cost) of the first step into it beyond the allowance."""
        self.ending = ending
        """hex -> the ``zoc.must_stop`` reason of the first stop next to it expanded
        (written with the stop's verdict: :attr:`StepVerdict.ending`)."""
        self.cited = cited
        """Groups of sections cited -> their section ids."""


Reason = tuple[str, "str | tuple[str, str, int]", tuple[str, ...]]
"""Why a step was refused, as the search notes it: (code, message, the cited section ids).
The message of ``zoc.insufficient_mp`` (hex entered, hex left, cost) is written only for a
row of an answer (:func:`in_code_order`): most such notes lie beyond the answer's frontier."""

Written = tuple[str, str, tuple[str, ...]]
"""A :data:`Reason` with its message written, as an answer's rows keep it (made a dict in
each answer: :func:`why_nots`)."""


FrontierRow = tuple[str, tuple[Written, ...]]
"""(hex, its reasons in code order: kept with the search, to be copied into an answer)."""

WhyNotRow = tuple[str, tuple[Written, ...] | None]
"""(hex, its reasons in code order, or None: out of reach)."""


def in_code_order(noted: dict[str, Reason]) -> tuple[Written, ...]:
    """A hex's reasons in code order, their messages written."""
    if len(noted) == 1:
        for code, message, cited in noted.values():
            return ((code, message if isinstance(message, str) else _message(message), cited),)
    return tuple(
        (code, message if isinstance(message, str) else _message(message), cited)
        for code, message, cited in sorted(noted.values(), key=_code)
    )


def _code(reason: Reason) -> str:
    return reason[0]


def _message(message: tuple[str, str, int]) -> str:
    return f"Entering {message[0]} from {message[1]} would cost {message[2]} movement points."


def why_nots(reasons: tuple[Written, ...]) -> list[dict[str, Any]]:
    """A hex's reasons for an answer, made afresh (the search's are kept with the state)."""
    return [{"code": c, "message": m, "citations": list(cited)} for c, m, cited in reasons]


def frontier_why_nots(found: Found, allowance: int) -> dict[str, list[dict[str, Any]]]:
    """The ``frontier`` why-nots of an answer (:meth:`Found.frontier`), in hex id order, made
    afresh."""
    out: dict[str, list[dict[str, Any]]] = {}
    for hex_id, in_order in found.frontier(allowance):
        if len(in_order) == 1:  # why_nots inlined for the commonest row: one reason
            code, message, cited = in_order[0]
            out[hex_id] = [{"code": code, "message": message, "citations": list(cited)}]
        else:
            out[hex_id] = why_nots(in_order)
    return out


def search(ctx: Context, mover: Any, unit: Unit, options: ZocOptions) -> Found:
    """Every node the unit can reach within its allowance, and why each refused step was.

    Kept per state, unit, options and whether the unit started the phase in EZOC (all the
    search reads: the phase and the allowance are the state's): a later search of the same
    game version replays what the first cited and relied on, in its order, and returns what
    it found (which nothing changes afterwards)."""
    facts = side_facts(ctx, unit.side)
    key = (unit.id, bool(mover.started_in_ezoc))
    searches = facts.searches
    kept = searches.pop(key, None)
    if kept is not None and (kept[0] is options or kept[0] == options):
        searches[key] = kept  # now the last asked for
        _options, found, events = kept
        for is_cite, args in events:
            if is_cite:
                ctx.cite(*args)
            else:
                for interpretation_id in args:
                    ctx.rely(interpretation_id)
        return found
    note = ctx.noting()
    try:
        found = _search(ctx, facts, mover, unit, options)
    finally:
        ctx.stop_noting()
    # citing a group again, or relying on a reading again, changes nothing: each once
    searches[key] = (options, found, tuple(dict.fromkeys(note)))
    if len(searches) > SEARCHES_KEPT:
        del searches[next(iter(searches))]
    return found


def _search(ctx: Context, facts: SideFacts, mover: Any, unit: Unit, options: ZocOptions) -> Found:
    assert unit.hex is not None
    graph = facts.graph
    ids = graph.ids
    hexes = graph.hexes
    around = graph.around
    steps_from = facts.steps_from
    # the kept answers of steps_from, and the verdicts, looked up here: a plain dict's
    # directly (by the dict's own look-up in the compiled build), a Layered one through its
    # `get` (which looks below; verdicts are layered only after LAYERS_KEPT moves unasked)
    steps: dict[Any, tuple[Step, ...]] = facts.steps
    steps_plain = steps.__class__ is dict
    steps_kept = steps.get
    verdicts: dict[Any, StepVerdict] = facts.verdicts_for(
        (unit.id, facts.key_of(options), mover.started_in_ezoc)
    )
    verdicts_plain = verdicts.__class__ is dict
    verdict_kept = verdicts.get
    reserve = ctx.state.phase == "reserve_movement"
    ma = unit.movement_allowance
    cite = ctx.cite
    cite_ids = ctx.cite_ids
    rely = ctx.rely
    start = graph.index[unit.hex]
    # the tables are keyed by the very int objects the steps hold (Any: as for Step), and
    # read and written directly, not through bound methods (a call each in the compiled build)
    origin: Any = start * 2  # the start's node (Any: as for Step)
    best: dict[Any, int] = {origin: 0}
    paths: dict[Any, tuple[str, ...]] = {origin: ()}
    stops: dict[Any, StepVerdict] = {}
    reasons: dict[Any, dict[str, Reason]] = {}
    # the four commonest refusals, the first of each per hex (Refused); the code of an 8.2
    # verdict's problem is none of them (Mover.zoc_step), so they never meet in a hex's codes
    terrain: dict[Any, str] = {}
    enemy: dict[Any, str] = {}
    short: dict[Any, tuple[int, int]] = {}
    ending: dict[Any, Written] = {}
    replayed: set[tuple[Event, ...]] = set()
    no_zoc_cited: set[int] = set()
    groups: dict[tuple[str, ...], tuple[str, ...]] = {}
    """Groups of sections cited so far -> their section ids (citing one again changes
    nothing, so each group is cited once)."""
    # (no nested function here: one would make these tables fields of a closure object in
    # the compiled build, read through it at every step)
    ezoc_steps: Any = EzocSteps  # read once, not from the module's dict at every node
    origin_at = start * 2  # the start's node, unboxed
    # the nodes to expand, by cost (a node is pushed only within the allowance), each cost's
    # in the order pushed: popped in (cost, push order) -- the order a heap of (cost, push
    # count, node) pops them in, as entry costs are never negative (a step of cost 0 goes
    # to the end of the cost being expanded) -- without a heap
    queued: list[list[Any]] = [[] for _ in range(max(ma, 0) + 1)]  # Any: as for Step
    queued[0].append(origin)
    beyond = ma + 1  # a node not reached yet: any cost within the allowance is below it
    mp_cited = False  # the allowance's sections cited (at the first step beyond it)
    for cost, nodes in enumerate(queued):
        for node in nodes:  # grows while it is expanded (steps of cost 0)
            # a node is pushed only at a cost below its best so far, so the one entry at its
            # best is the first popped at it; every other entry of the node is dearer (stale)
            if cost != best[node]:
                continue
            at: int = node  # unboxed: its bits read natively (the hex's own int found below)
            if at & 1:  # the unit must stop here: every path through it ends in it
                stopped = stops[node]
                sections = stopped.stop_sections
                if sections not in groups:  # cited once, as the first neighbour's note would
                    groups[sections] = cite_ids(*sections)
                # a stop's (not None); Any: the verdict's own tuple noted, not a copy of it
                reason: Any = stopped.ending
                besides: tuple[Any, ...] = stopped.around  # Any: as for Step
                for beside in besides:
                    ending.setdefault(beside, reason)  # the first stop's: one look-up
                continue
            cur = hexes[at >> 1]  # the hex's own int found, not a new one made
            first = at == origin_at
            path = paths[node]  # final: its node is expanded at its best cost
            out = steps.get(cur) if steps_plain else steps_kept(cur)
            if out is None:
                out = steps_from(ctx, cur)
            # out of a hex in EZOC (or in Reserve Movement) every step is judged
            judged = reserve or type(out) is ezoc_steps
            for step in out:  # each field read where it is needed
                total = cost + step.cost
                kind = step.kind
                if total > ma:  # refused: terrain and enemy units before the allowance
                    if kind < IMPASSABLE:  # its message written only for an answer
                        if not mp_cited:
                            mp_cited = True
                            if MOVEMENT_POINTS not in groups:
                                groups[MOVEMENT_POINTS] = cite_ids(*MOVEMENT_POINTS)
                        nbr = step.nbr
                        if nbr not in short:
                            short[nbr] = (cur, total)
                        continue
                elif not kind and not judged:  # a plain step: 8.2 is silent
                    nxt = step.node
                    if total < best.get(nxt, beyond):
                        best[nxt] = total
                        # the step's 1-tuple added (the compiled build makes (*path, x) by
                        # way of a list; path + (x,) makes two tuples)
                        paths[nxt] = path + step.last
                        queued[total].append(nxt)
                    continue
                nbr = step.nbr
                nxt = step.node
                last = step.last
                if kind >= IMPASSABLE:  # each group cited at its first refusal, as note would
                    if kind == IMPASSABLE:
                        if TERRAIN not in groups:
                            groups[TERRAIN] = cite_ids(*TERRAIN)
                        if nbr not in terrain:
                            terrain[nbr] = last  # (the refusal's message)
                    else:
                        if ENEMY_HEX not in groups:
                            groups[ENEMY_HEX] = cite_ids(*ENEMY_HEX)
                        if nbr not in enemy:
                            enemy[nbr] = last
                    continue
                stop: StepVerdict | None = None
                if judged or kind == EZOC:
                    key = (cur, nbr, first)
                    verdict = verdicts.get(key) if verdicts_plain else verdict_kept(key)
                    if verdict is None:
                        verdict = verdicts[key] = _judge_step(
                            ctx, mover, ids[cur], ids[nbr], first, around(nbr)
                        )
                        replayed.add(verdict.events)
                    elif verdict.events and verdict.events not in replayed:
                        replayed.add(verdict.events)
                        for is_cite, args in verdict.events:
                            if is_cite:
                                cite(*args)
                            else:
                                rely(*args)
                    if verdict.problem is not None:
                        # why the step into nbr was refused: the first reason of each kind
                        p = verdict.problem
                        sections = tuple(p.sections)
                        cited = groups.get(sections)
                        if cited is None:
                            cited = groups[sections] = cite_ids(*sections)
                        noted = reasons.get(nbr)
                        if noted is None:
                            reasons[nbr] = {p.code: (p.code, p.message, cited)}
                        elif p.code not in noted:
                            noted[p.code] = (p.code, p.message, cited)
                        continue
                    if verdict.stop is not None:
                        stop = verdict
                elif kind == NOTES and nbr not in no_zoc_cited:  # 8.2 is silent: only the notes
                    no_zoc_cited.add(nbr)
                    for section in facts.no_zoc_sections(ctx, nbr):
                        cite(section)
                if stop is not None:
                    nxt += 1  # the node of the hex where the unit must stop
                if total < best.get(nxt, beyond):
                    best[nxt] = total
                    paths[nxt] = path + last  # (as above)
                    if stop is not None:
                        stops[nxt] = stop
                    queued[total].append(nxt)
    refused = Refused(terrain, enemy, short, ending, groups)
    return Found(start, best, paths, stops, reasons, refused, graph)


PLAIN_ROW: Final[dict[str, Any]] = {"cost": 0, "path": None, "must_stop": False, "stop": None}
"""A reached hex's row in the order of its keys, for a hex where the unit need not stop: each
such row a copy, its cost and path set (a copy of a small dict's keys is one block copied;
a dict built key by key inserts each)."""
STOP_ROW: Final[dict[str, Any]] = {"cost": 0, "path": None, "must_stop": True, "stop": None}
"""As :data:`PLAIN_ROW`, for a hex where the unit must stop (its stop set too)."""


def reached(ctx: Context, found: Found) -> dict[str, dict[str, Any]]:
    """Each reached hex, in hex id order: its cheapest cost, the path to it, whether the unit
    must stop (built afresh for each answer from :meth:`Found.reached_order`). A stop's
    sections were cited when the search expanded its node (or replayed with the search), so
    citing them again here changes no citation's place."""
    cite_ids = ctx.cite_ids
    cited: dict[tuple[str, ...], list[str]] = {}
    groups = found.refused.cited
    ids, best, paths, stops = found.graph.ids, found.best, found.paths, found.stops
    result: dict[str, dict[str, Any]] = {}
    order: tuple[Any, ...] = found.reached_order()  # Any: as for Step
    plain_row, stop_row = PLAIN_ROW, STOP_ROW
    for node in order:
        at: int = node  # unboxed: its hex found without a new int (node stays the key)
        if not at & 1:
            row = plain_row.copy()  # its keys copied whole, two values set
            row["cost"] = best[node]
            row["path"] = list(paths[node])
            result[ids[at >> 1]] = row
        else:  # a node ending the move: pushed with the verdict that stops it there
            stopped = stops[node]
            stop = stopped.stop
            sections = stopped.stop_sections
            by_stop = cited.get(sections)
            if by_stop is None:
                # the search cited them as it expanded the node: their ids are kept with
                # it (a kept search's citations are replayed), so nothing is cited anew
                ids_of = groups.get(sections)
                by_stop = cited[sections] = list(cite_ids(*sections) if ids_of is None else ids_of)
            row = stop_row.copy()
            row["cost"] = best[node]
            row["path"] = list(paths[node])
            row["stop"] = {
                "reason": stop.reason,
                "by": list(stop.by),
                "message": stop.message,
                "citations": list(by_stop),
            }
            result[ids[at >> 1]] = row
    return result
