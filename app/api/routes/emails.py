"""Email notifications (issue 24): a seat's addresses and their delivery log, the umpire's
emailed invitation, and the confirmation and unsubscribe pages the emails link to."""

from __future__ import annotations

import html
from typing import Annotated

from fastapi import APIRouter, Body, Query, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import SeatDep, SettingsDep, UowDep
from app.api.problems import responses
from app.api.schemas import Line
from app.service import emails as uc
from app.service.emails import EmailSubscription, EmailSubscriptionList, SentInvitation
from app.service.notify import EMAIL_EVENTS
from app.service.webhooks import DeliveryLog

router = APIRouter(tags=["email"])


class RegisterEmail(BaseModel):
    model_config = ConfigDict(extra="forbid")

    address: Line = Field(
        max_length=254,
        examples=["player@example.org"],
        description="One plain address (no display name).",
    )
    events: list[Line] | None = Field(
        default=None,
        max_length=len(EMAIL_EVENTS),
        description=f"Notifications wanted, of {list(EMAIL_EVENTS)}; omit the field for all "
        "(an empty list is refused).",
    )


class InviteByEmail(BaseModel):
    model_config = ConfigDict(extra="forbid")

    address: Line = Field(max_length=254, examples=["player@example.org"])
    token: Line = Field(
        max_length=200,
        description="The seat's current token (the service keeps only its hash): the emailed "
        "invitation link carries it. The email is a secret: whoever reads it plays the seat.",
    )


@router.post(
    "/games/{game_id}/emails",
    summary="Register an email address for your seat's notifications",
    status_code=201,
    response_model=EmailSubscription,
    responses=responses(400, 401, 403, 404, 409, 413, 415, 422, 429),
)
def register(
    game_id: str,
    body: Annotated[RegisterEmail, Body()],
    uow: UowDep,
    token: SeatDep,
    settings: SettingsDep,
) -> EmailSubscription:
    """The presented seat's notifications (`your_turn`, `sealed_decision`, `sealed_revealed`,
    `game_finished`) are emailed to `address` -- once it is confirmed: a confirmation email
    with a single-use link is sent first, and nothing else until it is followed. Every email
    carries a one-click unsubscribe link. 409 `email.not_configured` when the server has no
    SMTP settings; 429 `email.rate_limited` past the per-address cap. See docs/API.md, Email."""
    return uc.register(
        uow, game_id, token=token, address=body.address, events=body.events, settings=settings
    )


@router.get(
    "/games/{game_id}/emails",
    summary="List your seat's email addresses",
    response_model=EmailSubscriptionList,
    responses=responses(401, 403, 404, 422),
)
def list_emails(game_id: str, uow: UowDep, token: SeatDep) -> EmailSubscriptionList:
    """The presented seat's addresses and their status (`unconfirmed`, `confirmed`,
    `unsubscribed`); only the seat's own, the umpire's included."""
    return uc.list_subscriptions(uow, game_id, token=token)


@router.delete(
    "/games/{game_id}/emails/{email_id}",
    summary="Delete an email address",
    status_code=204,
    response_class=Response,
    responses=responses(401, 403, 404, 422),
)
def delete(game_id: str, email_id: str, uow: UowDep, token: SeatDep) -> Response:
    """Remove an address, its pending emails and its log."""
    uc.delete_subscription(uow, game_id, email_id, token=token)
    return Response(status_code=204)


@router.get(
    "/games/{game_id}/emails/{email_id}/deliveries",
    summary="Read an email address's delivery log",
    response_model=DeliveryLog,
    responses=responses(401, 403, 404, 422),
)
def deliveries(
    game_id: str,
    email_id: str,
    uow: UowDep,
    token: SeatDep,
    limit: Annotated[int, Query(ge=1, le=100, description="Latest deliveries.")] = 50,
) -> DeliveryLog:
    """The latest emails (the confirmation included), newest first: status (`pending`,
    `delivered`, `failed`, `skipped` over the per-address cap, `cancelled`), the notification
    payload and every attempt (time, the SMTP reply code, error)."""
    return uc.deliveries(uow, game_id, email_id, token=token, limit=limit)


@router.post(
    "/games/{game_id}/seats/{seat}/invite",
    summary="Email a seat's invitation link (umpire)",
    status_code=202,
    response_model=SentInvitation,
    responses=responses(400, 401, 403, 404, 409, 413, 415, 422, 429),
)
def invite(
    game_id: str,
    seat: str,
    body: Annotated[InviteByEmail, Body()],
    uow: UowDep,
    token: SeatDep,
    settings: SettingsDep,
) -> SentInvitation:
    """The umpire emails the invitation link of `seat` (the console opened on the game with
    the seat's token) to `address`, through the outbox (retried like any email). `token` is
    the seat's current token. **The email carries a secret**: whoever reads it plays the seat."""
    return uc.invite(
        uow,
        game_id,
        seat,
        token=token,
        address=body.address,
        seat_token=body.token,
        settings=settings,
    )


# -- the pages the emails link to (for people and mail clients, not in the API document) ----

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"></head>
<body style="font-family: sans-serif; max-width: 36rem; margin: 3rem auto">
<h1>{title}</h1><p>{text}</p>{form}</body></html>"""


def _page(title: str, text: str, *, button: str | None = None, status: int = 200) -> HTMLResponse:
    form = (
        f'<form method="post"><button type="submit">{html.escape(button)}</button></form>'
        if button
        else ""
    )
    return HTMLResponse(
        _PAGE.format(title=html.escape(title), text=html.escape(text), form=form),
        status_code=status,
        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"},
    )


@router.get("/email/confirm/{link_token}", include_in_schema=False)
def confirm_page(link_token: str) -> HTMLResponse:
    """A page with one button: a GET changes nothing (mail scanners open links)."""
    return _page(
        "Confirm email notifications",
        "Press the button to have this address receive the notifications it was registered for.",
        button="Confirm",
    )


@router.post("/email/confirm/{link_token}", include_in_schema=False)
def confirm(link_token: str, uow: UowDep) -> HTMLResponse:
    done = uc.confirm(uow, link_token)
    if done is None:
        return _page(
            "Link not valid",
            "This confirmation link is unknown, was already used, or was replaced by a newer "
            "confirmation email. For a new one, delete the address and register it again.",
            status=404,
        )
    return _page(
        "Address confirmed",
        f"{done.address} will get the notifications of seat {done.seat} in game {done.game}. "
        "Every email has a link to stop them.",
    )


@router.get("/email/unsubscribe/{link_token}", include_in_schema=False)
def unsubscribe_page(link_token: str) -> HTMLResponse:
    return _page(
        "Stop these emails",
        "Press the button and this address gets no more notifications of this game's seat.",
        button="Unsubscribe",
    )


@router.post("/email/unsubscribe/{link_token}", include_in_schema=False)
def unsubscribe(link_token: str, uow: UowDep) -> HTMLResponse:
    """RFC 8058 one-click unsubscribe (the mail client POSTs `List-Unsubscribe=One-Click`)
    and the page's button alike."""
    done = uc.unsubscribe(uow, link_token)
    if done is None:
        return _page("Link not valid", "This unsubscribe link is unknown.", status=404)
    return _page(
        "Unsubscribed",
        f"{done.address} gets no more notifications of seat {done.seat} in game {done.game}.",
    )
