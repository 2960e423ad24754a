"""The compiled build of the zoc search and index (mypyc, ``app/native.py``) answers byte
for byte what the pure-Python modules -- the reference -- answer: ``reachable`` (``frontier``
and ``all``) of every unit, before and after chains of actions (the index handed on from move
to move), each action's ruling and the state it made; on random games (Hypothesis) and on the
shipped scenarios and a larger generated map. The pure side runs in a child process
(``tests/rules/zoc/builds.py``); the build choice itself (``REFEREE_PURE_RULES``, a stale or
missing build) is tested here too.

Where no compiled build is in use (not compiled on this machine, or this run forced pure) the
comparisons are skipped -- in CI they fail instead: ``.ci/run`` installs what compiling needs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import native
from app.rules.base import shipped_scenarios
from app.rules.zoc.ruleset import ZocRuleset
from app.rules.zoc.topology import topology
from bench.scenarios import zoc_scenario
from tests.rules.zoc.builds import ROOT, RS, PureOracle, play
from tests.rules.zoc.test_index_handoff import _candidates
from tests.rules.zoc.test_zoc_search import games
from tests.support.props import examples

IN_CI = os.environ.get("CI", "").lower() == "true"


def _compiled_in_use() -> None:
    found = native.status()
    if found["build"] == "compiled":
        return
    why = "; ".join(sorted(set(found["modules"].values())))
    if IN_CI and not native.forced_pure():
        pytest.fail(f"CI=true but the zoc search is not compiled ({why}): .ci/run installs gcc")
    pytest.skip(f"no compiled build in use: {why}")


@pytest.fixture(scope="module")
def oracle() -> Iterator[PureOracle]:
    _compiled_in_use()
    found = PureOracle()
    try:
        yield found
    finally:
        found.close()


def _same(oracle: PureOracle, game: dict[str, Any]) -> list[str]:
    compiled = play(game)
    pure = oracle.play(game)
    assert len(compiled) == len(pure)
    for i, (a, b) in enumerate(zip(compiled, pure, strict=True)):
        assert a == b, f"answer {i} differs"
    return compiled


@st.composite
def played(draw: st.DrawFn) -> dict[str, Any]:
    """A random game (``test_zoc_search.games``), up to five actions drawn from the moves,
    retreats, placements, phases and markers its first state offers (later ones may have
    become illegal: their refusal is compared too), and an order of asking the units."""
    scenario, options = draw(games())
    board, state = RS.setup(RS.parse_scenario(scenario), RS.parse_options(options))
    candidates = _candidates(board, state)
    kinds = [k for k in ("move", "move", "retreat", "place_unit", "other") if candidates[k]]
    actions = [
        draw(st.sampled_from(candidates[draw(st.sampled_from(kinds))]))
        for _ in range(draw(st.integers(0, 5)))
    ]
    order = draw(st.permutations([u["id"] for u in scenario["units"]]))
    return {"scenario": scenario, "options": options, "actions": actions, "order": order}


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=played())
def test_both_builds_answer_alike_on_random_games(oracle: PureOracle, game: dict[str, Any]) -> None:
    _same(oracle, game)


def _moves_around(scenario: dict[str, Any], rounds: int) -> list[dict[str, Any]]:
    """``rounds`` rounds of one-hex moves of every unit on the map (each to the first of its
    neighbours it may enter, found on the state the moves before made), as documents."""
    opts = RS.parse_options({})
    board, state = RS.setup(RS.parse_scenario(scenario), opts)
    topo = topology(board)
    out: list[dict[str, Any]] = []
    for _ in range(rounds):
        for unit in [u for u in state.units if u.hex is not None]:
            for nbr, _ in topo.neighbors[unit.hex]:
                document = {"kind": "move", "unit": unit.id, "path": [nbr]}
                action = RS.parse_action(document)
                ruling = RS.adjudicate(board, state, action, opts)
                if ruling.legal:
                    out.append(document)
                    state = RS.apply(board, state, action, ruling)
                    break
    return out


FIXED = {
    **{name: (data, 2) for name, data in shipped_scenarios(ZocRuleset.__module__).items()},
    "generated 30x30, 60 enemies": (zoc_scenario(30, 60, ma=10, river_every=7), 1),
}


@pytest.mark.parametrize("name", sorted(FIXED))
def test_both_builds_answer_alike_on_fixed_games(oracle: PureOracle, name: str) -> None:
    scenario, rounds = FIXED[name]
    actions = _moves_around(scenario, rounds)
    assert actions, name
    order = [u["id"] for u in scenario["units"]]
    answers = _same(
        oracle, {"scenario": scenario, "options": {}, "actions": actions, "order": order}
    )
    assert sum(a.startswith('{"unit"') for a in answers) > len(actions)  # queries were asked


def test_the_modules_in_use_are_the_compiled_ones() -> None:
    """Every module that uses the search or the index has the build chosen, not the pure
    module it names for the type checker."""
    _compiled_in_use()
    from app.rules.zoc import context, movement, retreat, umpire

    search = native.selected("app.rules.zoc.search")
    index = native.selected("app.rules.zoc.index")
    assert search.__name__ == "app.compiled.zoc_search"
    assert index.__name__ == "app.compiled.zoc_index"
    used = {  # (each a name the module imports from the pure module for the type checker)
        (module.__name__, name): getattr(module, name)
        for module, names in (
            (movement, ("search", "reached", "frontier_why_nots", "moved_to")),
            (retreat, ("moved_to",)),
            (umpire, ("moved_to",)),
            (context, ("state_index",)),
        )
        for name in names
    }
    for (module_name, name), found in used.items():
        chosen = getattr(search, name, None) or getattr(index, name)
        assert found is chosen, (module_name, name)


def _status_in_a_child(env: dict[str, str]) -> dict[str, Any]:
    code = (
        "import json\n"
        "from app import native\n"
        "from app.rules.zoc import movement, search\n"
        "print(json.dumps({**native.status(), 'pure': movement.search is search.search}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_referee_pure_rules_forces_the_pure_modules() -> None:
    found = _status_in_a_child({native.PURE_ENV: "1"})
    assert found["build"] == "pure" and found["pure"] is True
    assert set(found["modules"].values()) == {f"pure: {native.PURE_ENV} is set"}
    unset = _status_in_a_child({native.PURE_ENV: "0"})  # "0" (or empty) does not force it
    assert unset["pure"] is (unset["build"] == "pure")
    assert f"{native.PURE_ENV} is set" not in json.dumps(unset)


def test_a_missing_or_stale_build_falls_back_to_the_pure_modules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``_choose`` (what ``selected`` keeps per process): the pure module, with the reason,
    when the compiled package is not there or was compiled from other sources."""
    name = "app.rules.zoc.search"
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    monkeypatch.setattr(native, "COMPILED_PACKAGE", "app._not_compiled_here")
    module, why = native._choose(name)
    assert module.__name__ == name and why.startswith("pure: not compiled")
    monkeypatch.undo()
    if native.forced_pure():  # make test's run on the pure build: no compiled copy to age
        return
    _compiled_in_use()
    module, why = native._choose(name)
    assert (module.__name__, why) == ("app.compiled.zoc_search", "compiled")
    monkeypatch.setattr(native, "sources_digest", lambda: "0" * 64)  # a source edited since
    module, why = native._choose(name)
    assert module.__name__ == name and why.startswith("pure: compiled from other sources")
