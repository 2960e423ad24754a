"""The request examples of the OpenAPI document: real requests on shipped rulesets and
scenarios, each with the answer it gets.

Every example carries ``x-referee-exercise``: the game it applies to (``setup``), the seat
whose token it is sent with, path parameters other than the game id, and the answer
(``status`` and a subset of the JSON body).
``tests/api/test_openapi_examples.py`` posts every request example of the document to a real
server and checks that answer, so an example that stops working fails the suite.

Setups: ``none`` (no game needed), ``zoc`` / ``objective-zones`` (a new game created with
that ruleset's ``POST /games`` example), ``zoc-moved`` (that zoc game after the legal
``actions`` example was submitted), ``objective-zones-combat`` (the objective-zones game
after the union declared an assault on the mill and the umpire advanced to objective combat,
so the sealed decision ``allocation:mill:t1`` is open).
"""

from __future__ import annotations

from typing import Any

from app.rules import registry


def _example(
    summary: str,
    value: Any,
    *,
    setup: str,
    status: int,
    answer: dict[str, Any],
    seat: str | None = None,
    path: dict[str, str] | None = None,
    description: str,
) -> dict[str, Any]:
    return {
        "summary": summary,
        "description": description,
        "value": value,
        "x-referee-exercise": {
            "setup": setup,
            "seat": seat,
            "path": path or {},
            "status": status,
            "answer": answer,
        },
    }


def _scenario(ruleset: str) -> dict[str, Any]:
    scenario = registry.get(ruleset).example_scenario()
    assert scenario is not None, f"ruleset {ruleset} ships no example scenario"
    return scenario


def create_game_examples() -> dict[str, Any]:
    """``POST /games``: the shipped example scenario of each ruleset, and a refusal."""
    examples = {
        ruleset: _example(
            f"A game of `{ruleset}` from its shipped example scenario",
            {"ruleset": ruleset, "scenario": _scenario(ruleset), "public": True},
            setup="none",
            status=201,
            answer={"ruleset": ruleset, "version": 1, "public": True},
            description=f"201: the game id and one token per seat (each side of the `{ruleset}` "
            "example and `umpire`), shown only once.",
        )
        for ruleset in ("zoc", "zoi", "objective-zones", "terrain")
    }
    examples["bad-scenario"] = _example(
        "A scenario the ruleset refuses",
        {"ruleset": "zoc", "scenario": {"title": "no map"}},
        setup="none",
        status=422,
        answer={"code": "scenario.invalid", "status": 422},
        description="422 `scenario.invalid`: `errors` names every missing or bad field "
        "(JSON pointers); nothing is written.",
    )
    return examples


ZOC_MOVE = {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]}
ZOC_MOVE_ON = {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307", "e3407"]}

_ZOC_CITED = [
    {"section": "8.1.negation"},
    {"section": "8.2.operational"},
]


def ruling_examples(*, submit: bool) -> dict[str, Any]:
    """``POST /games/{id}/rulings`` (``submit=False``) and ``.../actions`` on a new zoc game."""
    legal_answer: dict[str, Any] = {
        "legal": True,
        "effects": [{"kind": "zoc.ezoc_negated"}, {"kind": "zoc.must_stop", "hex": "e3307"}],
    }
    illegal_ruling: dict[str, Any] = {
        "legal": False,
        "violations": [{"code": "zoc.must_stop", "hex": "e3307", "step": 2}],
    }
    if submit:
        legal = _example(
            "A legal move (zoc seed example)",
            ZOC_MOVE,
            setup="zoc",
            seat="axis",
            status=201,
            answer={"event": 1, "version": 2, "ruling": legal_answer},
            description="201 on a new game of the zoc `POST /games` example, with the axis "
            'token and `If-Match: W/"1"`: de-inf-2 enters e3207 (the EZOC there is negated '
            "by German infantry, 8.1) and must stop in e3307 next to su-18a (8.2).",
        )
        illegal = _example(
            "An illegal move: continuing after entering an EZOC",
            ZOC_MOVE_ON,
            setup="zoc",
            seat="axis",
            status=422,
            answer={"code": "action.illegal", "ruling": illegal_ruling},
            description="422 `action.illegal` carrying the ruling: de-inf-1 must stop in "
            "e3307 (8.2) and may not continue to e3407. Nothing is written.",
        )
    else:
        legal = _example(
            "A legal move (zoc seed example)",
            ZOC_MOVE,
            setup="zoc",
            status=200,
            answer={**legal_answer, "citations": _ZOC_CITED},
            description="200 on a new game of the zoc `POST /games` example: legal; the EZOC "
            "in e3207 is negated (8.1) and de-inf-2 must stop in e3307 (8.2).",
        )
        illegal = _example(
            "An illegal move: continuing after entering an EZOC",
            ZOC_MOVE_ON,
            setup="zoc",
            status=200,
            answer={**illegal_ruling, "citations": _ZOC_CITED},
            description="200 (a dry run answers legal or not): illegal, `zoc.must_stop` at "
            "step 2 in e3307, citing 8.2.",
        )
    return {"zoc-move": legal, "zoc-move-on": illegal}


ROLLBACK_EXAMPLES = {
    "undo-first-move": _example(
        "Restore the state before the first move",
        {"to_version": 1},
        setup="zoc-moved",
        seat="umpire",
        status=201,
        answer={"version": 3, "ruling": {"legal": True}},
        description="201 with the umpire token on the zoc game after the legal `actions` "
        "example (version 2): a `rollback` event restores version 1's state as version 3.",
    )
}

FINISH_EXAMPLES = {
    "axis-wins": _example(
        "The umpire ends the game: axis wins",
        {"winner": "axis"},
        setup="zoc",
        seat="umpire",
        status=201,
        answer={"version": 2},
        description="201 with the umpire token: the game is finished, its dice seed public.",
    )
}

SEALED_DECISION = "allocation:mill:t1"

SEALED_EXAMPLES = {
    "union-allocation": _example(
        "The attacker's allocation to the mill's two sectors (objective-zones)",
        {"sectors": {"1": ["us-1"], "2": ["us-2", "us-bty"]}},
        setup="objective-zones-combat",
        seat="union",
        path={"decision": SEALED_DECISION},
        status=201,
        answer={"decision": SEALED_DECISION, "side": "union", "reveal": None},
        description=f"201 for decision `{SEALED_DECISION}` with the union token: only the "
        "commitment is published until the confederate order arrives.",
    )
}
