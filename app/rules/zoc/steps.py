"""The type of the steps out of a hex in EZOC (:class:`EzocSteps`), apart from
:mod:`app.rules.zoc.search`: a subclass of ``tuple``, which mypyc compiles no native class
from, so that the search compiles (docs/ARCHITECTURE.md, "Compiled search") and both builds
of it share this one class."""

from __future__ import annotations

from typing import Any


class EzocSteps(tuple[Any, ...]):
    """The steps out of a hex in EZOC (:class:`app.rules.zoc.search.Step` objects, typed
    ``Any`` here: the compiled build's class is its copy's): a tuple whose type is the
    search's look-up of whether the hex is in EZOC (no second table, and no object more per
    hex than its steps)."""

    __slots__ = ()
