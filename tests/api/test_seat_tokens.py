"""Seat tokens: the presented token's hash is compared in constant time with every seat of the
game and the matching seat is picked; the 401 answers are unchanged. Both databases."""

from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import new_game

pytestmark = pytest.mark.anyio


async def test_each_token_resolves_to_its_own_seat(client: httpx.AsyncClient) -> None:
    game = await new_game(client, public=False)
    other = await new_game(client)
    assert set(game.seats) == {"red", "blue", "umpire"}
    for seat in game.seats:
        r = await client.get(f"/games/{game.id}", headers=game.auth(seat))
        assert r.status_code == 200, r.text
        assert r.json()["seat"] == seat

    token = game.seats["red"]
    refused = {
        "Bearer " + other.seats["red"]: "auth.invalid_token",  # a seat of another game
        "Bearer " + token[:-1]: "auth.invalid_token",  # almost the token
        "Bearer " + token + "x": "auth.invalid_token",
        "Bearer " + token.upper(): "auth.invalid_token",
    }
    for header, code in refused.items():
        r = await client.get(f"/games/{game.id}", headers={"Authorization": header})
        assert r.status_code == 401, (header, r.text)
        assert r.json()["code"] == code
        assert r.headers["www-authenticate"].startswith("Bearer")
    anonymous = await client.get(f"/games/{game.id}")
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "auth.required"
