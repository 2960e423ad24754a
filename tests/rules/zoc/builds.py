"""Both builds of the zoc search side by side (``app/native.py``): what a game answers,
played the same way in this process (the build it chose) and in a second Python process on
the pure-Python modules (``REFEREE_PURE_RULES=1``), to be compared byte for byte.

The choice of build is made once per process, at import, so the pure side runs in a child
process (:class:`PureOracle`: one per test module, fed one game at a time as JSON lines).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from app import native
from app.rules import registry

ROOT = Path(__file__).resolve().parents[3]
RS = registry.get("zoc")


def play(game: dict[str, Any]) -> list[str]:
    """Everything a game answers, in order, each as its JSON text: the setup (or its
    refusal); then, before the first action and after each one, ``reachable`` (``frontier``
    then ``all``) of each unit on the map in ``game["order"]`` (unit ids; on the state the
    action made, its index handed on from the state before); each action's ruling and, when
    legal, the state ``apply`` made (its JSON dump).

    ``game``: ``scenario``, ``options``, ``actions`` (action documents, tried in turn on the
    state the ones before made; an illegal one changes nothing), ``order``."""
    out: list[str] = []
    try:
        opts = RS.parse_options(game["options"])
        board, state = RS.setup(RS.parse_scenario(game["scenario"]), opts)
    except Exception as exc:  # the same refusal on both sides
        return [f"setup: {type(exc).__name__}: {exc}"]
    query = RS.queries()["reachable"]

    def ask_all() -> None:
        by_id = {u.id: u for u in state.units}
        for unit_id in game["order"]:
            unit = by_id.get(unit_id)
            if unit is None or unit.hex is None:
                continue
            for why_not in ("frontier", "all"):
                answer = query.run(board, state, opts, {"unit": unit_id, "why_not": why_not})
                out.append(json.dumps(answer))

    ask_all()
    for document in game["actions"]:
        action = RS.parse_action(document)
        try:
            ruling = RS.adjudicate(board, state, action, opts)
        except IndexError:  # judge_move's known IndexError (tests/rules/zoc/test_index_handoff)
            out.append("IndexError")
            continue
        out.append(ruling.model_dump_json())
        if not ruling.legal:
            continue
        state = RS.apply(board, state, action, ruling)
        out.append(json.dumps(state.model_dump(mode="json")))
        ask_all()
    return out


def serve() -> None:
    """The oracle's loop: one game per line of standard input, its answers (and the build
    this process uses) as one line of standard output."""
    for line in sys.stdin:
        answers = play(json.loads(line))
        print(json.dumps({"build": native.status()["build"], "answers": answers}), flush=True)


class PureOracle:
    """A child Python process playing games on the pure-Python search (:func:`serve`)."""

    def __init__(self) -> None:
        env = {**os.environ, native.PURE_ENV: "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from tests.rules.zoc.builds import serve; serve()"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def play(self, game: dict[str, Any]) -> list[str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(game) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the pure oracle ended (exit code {self.proc.wait()})")
        found = json.loads(line)
        assert found["build"] == "pure", found["build"]
        answers: list[str] = found["answers"]
        return answers

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
