"""Every refusal is cited, over HTTP: physical dice entry and match-flow commands.

The rules-core walk (tests/rules/test_refusals_cited.py) covers what a ruleset refuses. This
walks what the service refuses on a real server, on every shipped ruleset: match-flow
commands (phase end and advance, finish, rollback, takeback, seed reveal and verification),
seat ownership, dice headers, physical dice entry (missing, wrong count, out of range, by a
player) and sealed orders (a seat no party to the decision, a second order, a player opening
it) -- and that a d10 reading 0 is accepted as ten. Each refusal must be a problem
document with a stable ``code`` and ``citations``, each naming either a section of the game's
ruleset's catalog (a rule forbids it: the sequence of play) or a service policy
(``ruleset: "referee"``, app/service/policies.py, documented in docs/API.md); and nothing
may be written.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from app.rules import registry
from app.rules.base import UMPIRE
from app.service.policies import POLICIES, SERVICE
from tests.rules.rule_cases import Case, _setup, all_cases, before_steps, scenario_of
from tests.support.server import running_server

REAL = sorted(rs.id for rs in registry.all_rulesets() if type(rs).__module__.startswith("app."))


@pytest.fixture
def server(db_url: str) -> Iterator[httpx.Client]:
    app = create_app(Settings(database_url=db_url))
    with running_server(app) as url:
        client = httpx.Client(base_url=url, timeout=30)
        with client:
            yield client
    app.state.engine.dispose()


@dataclass
class Walk:
    """One game on the server and every refusal met so far (code -> status)."""

    client: httpx.Client
    ruleset: str
    id: str = ""
    seats: dict[str, str] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)

    def create(self, scenario: dict[str, Any], options: Any = None, **match: Any) -> None:
        body = {"ruleset": self.ruleset, "scenario": scenario, "options": options or {}}
        r = self.client.post("/games", json={**body, "match": match})
        assert r.status_code == 201, r.text
        self.id, self.seats = r.json()["id"], r.json()["seats"]

    def game(self) -> dict[str, Any]:
        r = self.client.get(f"/games/{self.id}", headers=self.auth(UMPIRE))
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    def auth(self, seat: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.seats[seat]}"}

    def refused(
        self, code: str, method: str, path: str, seat: str, body: Any = None, **headers: str
    ) -> dict[str, Any]:
        """Send a request that must be refused with ``code``: cited, and nothing written."""
        before = self.game()
        version = before["version"]
        send = {**self.auth(seat), "If-Match": f'W/"{version}"', **headers}
        r = self.client.request(method, f"/games/{self.id}{path}", json=body, headers=send)
        what = f"{self.ruleset} {method} {path} as {seat}"
        assert 400 <= r.status_code < 500, f"{what}: {r.status_code} {r.text}"
        assert r.headers["content-type"].startswith("application/problem+json"), what
        problem: dict[str, Any] = r.json()
        assert problem["code"] == code, f"{what}: {problem}"
        self.cited(problem.get("citations"), f"{what} ({code})")
        after = self.game()
        assert (after["version"], after["state"]) == (version, before["state"]), what
        self.seen[code] = r.status_code
        return problem

    def cited(self, citations: Any, what: str) -> None:
        assert citations, f"{what}: refused without a citation"
        catalog = registry.get(self.ruleset).catalog
        for c in citations:
            if c["ruleset"] == SERVICE:
                assert c["section"] in POLICIES, f"{what}: unknown policy {c}"
            else:  # a composed ruleset (battlefield) cites its parts' sections by their ids
                assert c["section"] in catalog, f"{what}: {c['section']} not in the catalog"
                assert c["section"] in registry.get(c["ruleset"]).catalog, what


def _case(ruleset: str) -> tuple[Case, list[int]]:
    """A rule case of ``ruleset`` played from its scenario (no steps before), whose action is
    legal without dice and with its dice read as tens, and the die sizes the action needs: the
    first needing one d10 if any case does (so a submission reaches the dice entry), else the
    first needing none."""
    found: list[tuple[Case, list[int]]] = []
    for case in all_cases():
        if case.ruleset != ruleset or "action" not in case.data or before_steps(case):
            continue
        if "invalid_scenario" in case.data:
            continue
        rs, options, board, state = _setup(case)
        action = rs.parse_action(case.data["action"])
        sizes = [int(s) for s in rs.dice_needed(board, state, action)]
        if sizes not in ([], [10]) or not rs.adjudicate(board, state, action, options, ()).legal:
            continue
        if sizes and rs.adjudicate(board, state, action, options, [10]).legal:
            return case, sizes
        found.append((case, sizes))
    assert found, f"{ruleset}: no rule case to walk"
    return found[0]


def _example(ruleset: str) -> dict[str, Any]:
    scenario = registry.get(ruleset).example_scenario()
    assert scenario is not None, f"{ruleset} ships no example scenario"
    return scenario


@pytest.mark.parametrize("ruleset", REAL)
def test_match_flow_refusals_are_cited(server: httpx.Client, ruleset: str) -> None:
    walk = Walk(server, ruleset)
    walk.create(_example(ruleset))
    sides = [s for s in walk.seats if s != UMPIRE]
    player = sides[0]

    walk.refused("phase.umpire_only", "POST", "/phase/advance", player)
    position = walk.game()["position"]
    if position is None:
        walk.refused("phase.no_sequence", "POST", "/phase/end", player)
    else:  # a side that may not end this phase: refused by the ruleset's sequence of play
        phasing = position["phasing_side"]
        wrong = (
            phasing if position["acts"] == "non_phasing" else next(s for s in sides if s != phasing)
        )
        problem = walk.refused("phase.not_your_turn", "POST", "/phase/end", wrong)
        assert all(c["ruleset"] != SERVICE for c in problem["citations"]), problem
    walk.refused("game.umpire_only", "POST", "/finish", player, {"winner": None})
    walk.refused("request.invalid", "POST", "/finish", UMPIRE, {"winner": "nobody-at-all"})
    walk.refused("rollback.umpire_only", "POST", "/rollback", player, {"to_version": 1})
    walk.refused("rollback.bad_version", "POST", "/rollback", UMPIRE, {"to_version": 1})
    walk.refused("takeback.players_only", "POST", "/takeback", UMPIRE)
    walk.refused("takeback.disabled", "POST", "/takeback", player)
    walk.refused("dice.umpire_only", "POST", "/dice/reveal", player)
    # a player asks before the end (checked before the options are)
    walk.refused("whatif.not_yet", "POST", "/what-if", player, {"options": {"any": True}})
    r = server.get(f"/games/{walk.id}/dice/verify", headers=walk.auth(player))
    assert r.status_code == 403 and r.json()["code"] == "dice.seed_sealed", r.text
    walk.cited(r.json().get("citations"), f"{ruleset} dice/verify")

    # headers of an action: seats act for their own side; dice headers are checked
    action = {"kind": "no-such-kind"}
    seed = {"Referee-Client-Seed": "x" * 65}
    walk.refused("dice.invalid_client_seed", "POST", "/actions", player, action, **seed)
    walk.refused("dice.invalid", "POST", "/actions", UMPIRE, action, **{"Referee-Dice": "x"})

    walk.create(_example(ruleset), takeback=True)
    walk.refused("takeback.nothing", "POST", "/takeback", player)
    assert len(walk.seen) >= 12, walk.seen


@pytest.mark.parametrize("ruleset", REAL)
def test_physical_dice_refusals_are_cited_and_a_d10_reads_0_as_ten(
    server: httpx.Client, ruleset: str
) -> None:
    walk = Walk(server, ruleset)
    case, sizes = _case(ruleset)
    rs, options, board, state = _setup(case)
    action = case.data["action"]
    parsed = rs.parse_action(action)
    owner = rs.actor_side(board, state, parsed)
    walk.create(
        scenario_of(case), case.data.get("options"), physical_dice=True, enforce_sequence=False
    )
    sides = [s for s in walk.seats if s != UMPIRE]
    if owner in sides and len(sides) > 1:
        other = next(s for s in sides if s != owner)
        walk.refused("seat.not_owner", "POST", "/actions", other, action)
    post = ("POST", "/actions", UMPIRE, action)
    if not sizes:  # an action that rolls no dice: entering some is refused, cited
        walk.refused("dice.invalid", *post, **{"Referee-Dice": "3"})
        assert not any(_needs_dice(c) for c in all_cases() if c.ruleset == ruleset), ruleset
        return
    walk.refused("dice.required", *post)
    walk.refused("dice.invalid", *post, **{"Referee-Dice": "4,4"})  # two for one d10
    walk.refused("dice.invalid", *post, **{"Referee-Dice": "11"})  # out of range
    player = owner if owner in sides else sides[0]
    walk.refused("dice.umpire_enters", "POST", "/actions", player, action, **{"Referee-Dice": "4"})

    # a d10 reads 0 for ten: accepted, recorded as the value 10, judged as a 10
    version = walk.game()["version"]
    headers = {**walk.auth(UMPIRE), "If-Match": f'W/"{version}"', "Referee-Dice": "0"}
    r = server.post(f"/games/{walk.id}/actions", json=action, headers=headers)
    assert r.status_code == 201, r.text
    expected = rs.adjudicate(board, state, parsed, options, [10])
    assert r.json()["ruling"] == expected.model_dump(mode="json")
    event = server.get(f"/games/{walk.id}/events/{r.json()['event']}", headers=walk.auth(UMPIRE))
    assert event.json()["dice"] == [
        {"n": 0, "sides": 10, "value": 10, "client_seed": None, "entered_by": UMPIRE}
    ]


def _needs_dice(case: Case) -> bool:
    """Whether the action of a rule case needs dice (any position its steps reach)."""
    if "action" not in case.data or "invalid_scenario" in case.data:
        return False
    rs, _, board, state = _setup(case)
    return bool(list(rs.dice_needed(board, state, rs.parse_action(case.data["action"]))))


SEALED = sorted({c.ruleset for c in all_cases() if "sealed" in c.data})


@pytest.mark.parametrize("ruleset", SEALED)
def test_sealed_order_refusals_are_cited(server: httpx.Client, ruleset: str) -> None:
    """The service's refusals of sealed orders: a seat that is no party to the decision, a
    second order of one side, a player opening the decision; on the position of the first
    sealed rule case, reached over HTTP (umpire actions and phase advances)."""
    case = next(c for c in all_cases() if c.ruleset == ruleset and "sealed" in c.data)
    walk = Walk(server, ruleset)
    walk.create(scenario_of(case), case.data.get("options"), enforce_sequence=False)
    umpire = {**walk.auth(UMPIRE), "If-Match": "*"}
    for step in before_steps(case):
        path = "/phase/advance" if step == "advance" else "/actions"
        body = None if step == "advance" else step
        r = server.post(f"/games/{walk.id}{path}", json=body, headers=umpire)
        assert r.status_code == 201, r.text
    sealed = case.data["sealed"]
    decision, orders = sealed["decision"], sealed["orders"]
    url = f"/sealed/{decision}"
    side, order = next(iter(orders.items()))
    walk.refused("sealed.not_a_party", "POST", url, UMPIRE, order)
    walk.refused("sealed.umpire_only", "POST", f"{url}/open", side)
    version = walk.game()["version"]
    send = {**walk.auth(side), "If-Match": f'W/"{version}"'}
    assert server.post(f"/games/{walk.id}{url}", json=order, headers=send).status_code == 201
    walk.refused("sealed.already_submitted", "POST", url, side, order)
