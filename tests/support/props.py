"""Property-test sizes: the usual number of examples, many more under ``make test-long``.

The Hypothesis profile is chosen in tests/conftest.py: ``ci`` (derandomized: a fixed seed, the
same examples every run) when ``CI=true``, ``dev`` (random) elsewhere, ``long`` (random, many
more examples) with ``HYPOTHESIS_PROFILE=long``.
"""

from __future__ import annotations

import os

LONG_FACTOR = 20


def examples(n: int) -> int:
    """``n`` examples, times :data:`LONG_FACTOR` under the ``long`` profile."""
    return n * LONG_FACTOR if os.environ.get("HYPOTHESIS_PROFILE") == "long" else n
