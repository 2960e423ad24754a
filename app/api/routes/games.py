"""Create and read games."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, Path, Request, Response
from fastapi.responses import JSONResponse

from app.api.deps import BoardsDep, CallDep, NowDep, SeatDep, SettingsDep, UowDep
from app.api.etags import format_etag, parse_etags
from app.api.examples import create_game_examples
from app.api.problems import responses
from app.api.routes.config import link_base
from app.api.schemas import CreateGameRequest
from app.links import game_links, invitation_link, spectator_link
from app.service import games as uc
from app.service.errors import INT4_MAX
from app.service.results import (
    CreatedGame,
    GameAtVersion,
    GameJson,
    GameLinks,
    GameView,
    ScenarioView,
)

router = APIRouter(prefix="/games", tags=["games"])


@router.post(
    "",
    summary="Create a game",
    status_code=201,
    response_model=CreatedGame,
    responses={
        201: {
            "description": "Created. `seats` holds each seat's token; they are never shown again.",
            "headers": {
                "Location": {"description": "/games/{id}"},
                "ETag": {"description": 'W/"1"'},
            },
        },
        **responses(400, 413, 415, 422),
    },
)
def create_game(
    body: Annotated[
        CreateGameRequest,
        Body(openapi_examples=create_game_examples()),
    ],
    uow: UowDep,
    boards: BoardsDep,
    now: NowDep,
    settings: SettingsDep,
    request: Request,
) -> Any:
    """Validate the scenario with the ruleset (422 names every bad field), set the game up and
    issue one bearer token per side plus one for the umpire. Tokens are stored hashed.
    The service commits to a secret dice seed (its SHA-256 is in the game view) and, for a
    timed game (`match.clock`), starts the clock of the side expected to act first.
    `links` holds the game's console and API addresses and each seat's invitation link under
    the public URL (`REFEREE_PUBLIC_URL`; unset: the address this request came to)."""
    created = uc.create_game(
        uow,
        ruleset_id=body.ruleset,
        scenario=body.scenario,
        options=body.options,
        public=body.public,
        boards=boards,
        match=body.match,
        now=now,
        budget=settings.scenario_budget,
    )
    return created_answer(request, settings.public_url, created)


@router.get(
    "/{game_id}",
    summary="Read a game",
    response_model=GameView,
    responses={
        200: {"headers": {"ETag": {"description": 'W/"<version>": send it as If-Match.'}}},
        **responses(304, 401, 404, 422, 503),
    },
)
def get_game(
    game_id: str,
    call: CallDep,
    if_none_match: Annotated[str | None, Header(alias="If-None-Match")] = None,
) -> Any:
    """The game's current version and state as the bearer's seat may see it (anonymous
    readers get the public view; private games need a seat token), with its `position` in
    the sequence of play, its `clock` (remaining time per side as of now), its `dice`
    commitment, its `match` options and `winner`."""
    view = uc.read_game(call.uow, game_id, token=call.token, boards=call.boards, now=call.now)
    return game_answer(view, if_none_match)


def game_answer(view: GameJson, if_none_match: str | None) -> Response:
    """The answer of ``GET /games/{id}`` (also served by :mod:`app.api.fast`): the view with
    its ETag, or 304 when ``If-None-Match`` names its version."""
    headers = {
        "ETag": format_etag(view.version),
        "Vary": "Authorization",
        "Cache-Control": "private, no-cache",
    }
    tags = parse_etags(if_none_match)
    if tags is not None and tags.matches(view.version):
        return Response(status_code=304, headers=headers)
    return Response(view.body, headers=headers, media_type="application/json")


@router.get(
    "/{game_id}/scenario",
    summary="Read a game's scenario and board",
    response_model=ScenarioView,
    responses=responses(401, 404, 422),
)
def get_scenario(game_id: str, uow: UowDep, token: SeatDep) -> ScenarioView:
    """The scenario as validated at creation, the board derived from it and its digest."""
    return uc.get_scenario(uow, game_id, token=token)


@router.get(
    "/{game_id}/positions/{version}",
    summary="Read the game as it stood at an earlier version",
    response_model=GameAtVersion,
    responses=responses(401, 404, 409, 422, 503),
)
def get_position(
    game_id: str,
    version: Annotated[int, Path(ge=1, le=INT4_MAX)],
    uow: UowDep,
    token: SeatDep,
    boards: BoardsDep,
) -> Any:
    """The game as it stood at `version` (1: as set up; version `v` is what event `v - 1`
    produced), as the bearer's seat may see it: the state through the ruleset's per-seat
    view -- what `GET /games/{id}` showed this seat at that version, never more -- and the
    position in the sequence of play then. For replaying the log (`GET /games/{id}/events`
    gives each event's ruling). 404 `position.not_found` past the current version; 409
    `position.unavailable` when that version's snapshot was not kept."""
    view = uc.get_position(uow, game_id, version, token=token, boards=boards)
    return JSONResponse(
        view.model_dump(mode="json"),
        headers={"Vary": "Authorization", "Cache-Control": "private, no-cache"},
    )


def created_answer(request: Request, public_url: str | None, created: CreatedGame) -> JSONResponse:
    """201 for a new game (created or imported): its seat tokens, once, with the links built
    from the public address (or the request's), ``Location`` and ``ETag``."""
    base = link_base(request, public_url)
    links = GameLinks(
        **game_links(base, created.id),
        invitations={
            seat: invitation_link(base, created.id, seat, token)
            for seat, token in created.seats.items()
        },
        spectators=spectator_link(base, created.id) if created.public else None,
    )
    created = created.model_copy(update={"links": links})
    return JSONResponse(
        created.model_dump(mode="json"),
        status_code=201,
        headers={"Location": f"/games/{created.id}", "ETag": format_etag(created.version)},
    )
