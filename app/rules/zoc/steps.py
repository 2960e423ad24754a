"""The type of the steps out of a hex in EZOC (:class:`EzocSteps`), apart from
:mod:`app.rules.zoc.search`: a subclass of ``tuple``, which mypyc compiles no native class
from, so that the search compiles (docs/ARCHITECTURE.md, "Compiled search") and both builds
of it share this one class."""

from __future__ import annotations

from typing import Any

Step = tuple[Any, Any, int, int, Any]
"""(neighbour, its node for a step that does not stop there (neighbour * 2: made once, not at
every step a search takes), entry cost, kind, then for IMPASSABLE and ENEMY the refusal's
message, else the 1-tuple of the neighbour's hex id (what a path through the step ends with:
added to the path as it is, no tuple made for it at every step)). The neighbour and the node
are ints, typed ``Any`` so that the compiled search keeps the very int objects the search's
tables hold (an ``int`` would be unboxed and boxed again for every table it is looked up in:
a new object, compared by value) -- the board's own (:meth:`BoardGraph.node_of`): every step
into a hex holds the same two objects."""


class EzocSteps(tuple[Step, ...]):
    """The steps out of a hex in EZOC: a tuple whose type is the search's look-up of whether
    the hex is in EZOC (no second table, and no object more per hex than its steps)."""

    __slots__ = ()
