"""Token scopes over a real server: read-only spectator tokens minted by a seat or the umpire,
rotation, the umpire's reissue and revocation (old tokens refused with 401)."""

from __future__ import annotations

import hashlib
import importlib.util
import sys

import httpx

from app.db.engine import make_engine, make_session_factory
from app.db.models import AccessTokenRow, SeatRow
from app.service.tokens import SHA256_SOURCE, hash_token, new_token
from tests.platform.conftest import new_game


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def problem(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["code"] == code


def test_spectator_reads_a_private_game_but_never_writes(http: httpx.Client, db_url: str) -> None:
    game = new_game(http, public=False, sequence=True)
    problem(http.get(f"/games/{game.id}"), 401, "auth.required")
    r = http.post(f"/games/{game.id}/tokens", json={"label": "stream"}, headers=game.auth("red"))
    assert r.status_code == 201, r.text
    minted = r.json()
    assert minted["scope"] == "spectator" and minted["created_by"] == "red"
    assert minted["label"] == "stream" and minted["revoked_at"] is None
    spectator = bearer(minted["token"])

    # reads: the anonymous (public) view of a private game
    game.step("red", "r1", 1)
    view = http.get(f"/games/{game.id}", headers=spectator)
    assert view.status_code == 200
    red_version = http.get(f"/games/{game.id}", headers=game.auth("red")).json()["version"]
    assert view.json()["version"] == red_version
    assert http.get(f"/games/{game.id}/events", headers=spectator).json()["items"][0]["seq"] == 1
    # writes: refused whatever the write
    for path, body in [
        ("/actions", {"kind": "step", "pawn": "r1", "n": 1}),
        ("/phase/end", None),
        ("/tokens", None),
        ("/tokens/rotate", None),
    ]:
        r = http.post(f"/games/{game.id}{path}", json=body, headers={**spectator, "If-Match": "*"})
        problem(r, 403, "token.read_only")
    assert http.get(f"/games/{game.id}/events", headers=spectator).json()["items"][-1]["seq"] == 1

    # stored hashed, never in clear
    engine = make_engine(db_url)
    with make_session_factory(engine)() as session:
        stored = session.get_one(AccessTokenRow, minted["id"])
        assert stored.token_hash == hash_token(minted["token"]) != minted["token"]
    engine.dispose()

    # listing: the minter and the umpire, never the token itself
    assert [
        t["id"]
        for t in http.get(f"/games/{game.id}/tokens", headers=game.auth("red")).json()["items"]
    ] == [minted["id"]]
    assert http.get(f"/games/{game.id}/tokens", headers=game.auth("blue")).json()["items"] == []
    umpire_list = http.get(f"/games/{game.id}/tokens", headers=game.auth("umpire")).json()["items"]
    assert [t["id"] for t in umpire_list] == [minted["id"]] and "token" not in umpire_list[0]

    # revocation: not by another side; by the minter; then 401
    problem(
        http.delete(f"/games/{game.id}/tokens/{minted['id']}", headers=game.auth("blue")),
        403,
        "token.not_yours",
    )
    assert (
        http.delete(f"/games/{game.id}/tokens/{minted['id']}", headers=game.auth("red")).status_code
        == 204
    )
    problem(http.get(f"/games/{game.id}", headers=spectator), 401, "auth.invalid_token")
    listed = http.get(f"/games/{game.id}/tokens", headers=game.auth("red")).json()["items"]
    assert listed[0]["revoked_at"] is not None
    problem(
        http.delete(f"/games/{game.id}/tokens/nope", headers=game.auth("red")),
        404,
        "token.not_found",
    )


def test_rotation_and_reissue_refuse_the_old_token(http: httpx.Client, db_url: str) -> None:
    game = new_game(http, public=False)
    old_red = game.seats["red"]
    r = http.post(f"/games/{game.id}/tokens/rotate", headers=game.auth("red"))
    assert r.status_code == 200, r.text
    rotated = r.json()
    assert rotated["seat"] == "red" and rotated["game"] == game.id and rotated["token"] != old_red
    problem(http.get(f"/games/{game.id}", headers=bearer(old_red)), 401, "auth.invalid_token")
    r = http.post(
        f"/games/{game.id}/actions",
        json={"kind": "step", "pawn": "r1", "n": 1},
        headers={**bearer(old_red), "If-Match": "*"},
    )
    problem(r, 401, "auth.invalid_token")
    game.seats["red"] = rotated["token"]
    game.step("red", "r1", 1)

    # the umpire reissues blue's token; a side may not
    problem(
        http.post(f"/games/{game.id}/seats/blue/token", headers=game.auth("red")),
        403,
        "token.umpire_only",
    )
    problem(
        http.post(f"/games/{game.id}/seats/green/token", headers=game.auth("umpire")),
        404,
        "seat.not_found",
    )
    r = http.post(f"/games/{game.id}/seats/blue/token", headers=game.auth("umpire"))
    assert r.status_code == 200 and r.json()["seat"] == "blue"
    problem(http.get(f"/games/{game.id}", headers=game.auth("blue")), 401, "auth.invalid_token")
    assert http.get(f"/games/{game.id}", headers=bearer(r.json()["token"])).status_code == 200

    engine = make_engine(db_url)
    with make_session_factory(engine)() as session:
        hashes = {
            row.seat: row.token_hash for row in session.query(SeatRow).filter_by(game_id=game.id)
        }
    engine.dispose()
    assert hashes["red"] == hash_token(rotated["token"]) and hashes["blue"] == hash_token(
        r.json()["token"]
    )


def test_a_token_of_another_game_is_refused(http: httpx.Client) -> None:
    one, other = new_game(http, public=False), new_game(http, public=False)
    spectator = http.post(f"/games/{one.id}/tokens", headers=one.auth("umpire")).json()
    assert spectator["created_by"] == "umpire"
    problem(
        http.get(f"/games/{other.id}", headers=bearer(spectator["token"])),
        401,
        "auth.invalid_token",
    )
    problem(http.get(f"/games/{other.id}", headers=one.auth("red")), 401, "auth.invalid_token")


def test_a_token_hashes_to_its_sha256_whichever_implementation() -> None:
    """Tokens are hashed with CPython's own SHA-256 where there is one (not OpenSSL's, whose
    way to a digest cost a request about 15 us: docs/PERFORMANCE.md): the same digest as
    hashlib's, so every stored hash still matches (lone surrogates passed through as
    before)."""
    tokens = ["", "abc", "\u00e9t\u00e9 \U0001f3b2", "\udc80 lone", "x" * 1000]
    for token in [*tokens, *(new_token() for _ in range(50))]:
        expected = hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
        assert hash_token(token) == expected
    builtin = [m for m in ("_sha2", "_sha256") if importlib.util.find_spec(m) is not None]
    if sys.implementation.name == "cpython" and builtin:
        assert builtin[0] == SHA256_SOURCE
