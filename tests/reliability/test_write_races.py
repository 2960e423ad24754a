"""Issue 9 items 5 and 7: one replay-race path for every write.

Eight concurrent retries of one request (same Idempotency-Key, same If-Match) over a real
socket get one and the same stored answer -- for actions, match-flow commands and sealed
orders -- and ``If-Match: *`` never answers 412 under contention. A retry of a sealed order
that a rollback withdrew gets 409 ``sealed.withdrawn``, not the old 201.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from tests.match.flowkit import tiny_scenario

WRITERS = 8


def _create(url: str, payload: dict[str, Any]) -> tuple[str, dict[str, str]]:
    r = httpx.post(f"{url}/games", json=payload, timeout=30)
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["seats"]


def _burst(url: str, path: str, bodies: list[Any], headers: list[dict[str, str]]) -> list[Any]:
    def post(i: int) -> httpx.Response:
        with httpx.Client(base_url=url, timeout=60) as c:
            return c.post(path, json=bodies[i], headers=headers[i])

    with ThreadPoolExecutor(len(bodies)) as pool:
        return list(pool.map(post, range(len(bodies))))


def _same_answer(answers: list[httpx.Response]) -> None:
    assert [a.status_code for a in answers] == [201] * len(answers), [a.text for a in answers]
    assert len({a.text for a in answers}) == 1
    assert len({a.headers["etag"] for a in answers}) == 1


def _events(url: str, gid: str, umpire: str) -> list[dict[str, Any]]:
    r = httpx.get(
        f"{url}/games/{gid}/events",
        params={"limit": 500},
        headers={"Authorization": f"Bearer {umpire}"},
    )
    items: list[dict[str, Any]] = r.json()["items"]
    return items


def test_concurrent_retries_of_a_phase_advance_get_the_stored_answer(server: str) -> None:
    gid, seats = _create(server, {"ruleset": "tiny", "scenario": tiny_scenario(sequence=True)})
    head = {"Authorization": f"Bearer {seats['umpire']}", "If-Match": 'W/"1"'}
    answers = _burst(
        server,
        f"/games/{gid}/phase/advance",
        [None] * WRITERS,
        [{**head, "Idempotency-Key": "advance-1"}] * WRITERS,
    )
    _same_answer(answers)
    assert [e["kind"] for e in _events(server, gid, seats["umpire"])] == ["phase"]


def test_concurrent_retries_of_an_action_and_of_a_rollback(server: str) -> None:
    gid, seats = _create(server, {"ruleset": "tiny", "scenario": tiny_scenario()})
    red = {"Authorization": f"Bearer {seats['red']}", "If-Match": 'W/"1"', "Idempotency-Key": "a"}
    step = {"kind": "step", "pawn": "r1", "n": 2}
    _same_answer(_burst(server, f"/games/{gid}/actions", [step] * WRITERS, [red] * WRITERS))
    umpire = {
        "Authorization": f"Bearer {seats['umpire']}",
        "If-Match": 'W/"2"',
        "Idempotency-Key": "back",
    }
    back = {"to_version": 1}
    _same_answer(_burst(server, f"/games/{gid}/rollback", [back] * WRITERS, [umpire] * WRITERS))
    assert [e["kind"] for e in _events(server, gid, seats["umpire"])] == ["step", "rollback"]


def test_concurrent_retries_of_a_sealed_order(server: str) -> None:
    gid, seats = _create(server, {"ruleset": "blind", "scenario": {"budget": 10}})
    red = {"Authorization": f"Bearer {seats['red']}", "If-Match": "*", "Idempotency-Key": "bid"}
    answers = _burst(server, f"/games/{gid}/sealed/bid.r1", [{"bid": 3}] * WRITERS, [red] * WRITERS)
    _same_answer(answers)
    assert [e["kind"] for e in _events(server, gid, seats["umpire"])] == ["sealed_received"]


def test_if_match_any_never_412s_under_contention(server: str) -> None:
    gid, seats = _create(server, {"ruleset": "tiny", "scenario": tiny_scenario(length=40)})
    headers = [
        {"Authorization": f"Bearer {seats['red']}", "If-Match": "*", "Idempotency-Key": f"k{i}"}
        for i in range(WRITERS)
    ]
    step = {"kind": "step", "pawn": "r1", "n": 1}
    answers = _burst(server, f"/games/{gid}/actions", [step] * WRITERS, headers)
    assert [a.status_code for a in answers] == [201] * WRITERS, [a.text for a in answers]
    assert sorted(a.json()["event"] for a in answers) == list(range(1, WRITERS + 1))
    # two sides' sealed orders with `*` at once: both received, one reveal
    gid, seats = _create(server, {"ruleset": "blind", "scenario": {"budget": 10}})
    both = [{"Authorization": f"Bearer {seats[s]}", "If-Match": "*"} for s in ("red", "blue") * 4]
    answers = _burst(server, f"/games/{gid}/sealed/bid.r1", [{"bid": 1}] * 8, both)
    codes = sorted(a.status_code for a in answers)
    assert 412 not in codes, [a.text for a in answers]
    assert codes.count(201) == 2, [a.text for a in answers]


def test_a_retried_withdrawn_sealed_order_is_409(server: str) -> None:
    gid, seats = _create(server, {"ruleset": "blind", "scenario": {"budget": 10}})
    url = f"{server}/games/{gid}/sealed/bid.r1"
    red = {"Authorization": f"Bearer {seats['red']}", "If-Match": "*", "Idempotency-Key": "o1"}
    first = httpx.post(url, json={"bid": 2}, headers=red)
    assert first.status_code == 201, first.text
    back = httpx.post(
        f"{server}/games/{gid}/rollback",
        json={"to_version": 1},
        headers={"Authorization": f"Bearer {seats['umpire']}", "If-Match": 'W/"2"'},
    )
    assert back.status_code == 201, back.text
    retry = httpx.post(url, json={"bid": 2}, headers=red)
    assert retry.status_code == 409, retry.text
    assert retry.headers["content-type"].startswith("application/problem+json")
    body = retry.json()
    assert body["code"] == "sealed.withdrawn" and body["event"] == 1, body
    assert "withdrawn" in body["detail"]
    listing = httpx.get(
        f"{server}/games/{gid}/sealed", headers={"Authorization": f"Bearer {seats['red']}"}
    ).json()
    assert listing["open"][0]["own"] is None
