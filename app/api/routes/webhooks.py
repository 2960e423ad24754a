"""Per-seat webhooks and their delivery log."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query, Response
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import SeatDep, SettingsDep, UowDep
from app.api.problems import responses
from app.api.schemas import Line
from app.service import webhooks as uc
from app.service.notify import NOTIFICATIONS, with_links
from app.service.webhooks import DeliveryLog, RegisteredWebhook, WebhookList

router = APIRouter(prefix="/games/{game_id}/webhooks", tags=["webhooks"])


class RegisterWebhook(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        max_length=2048,
        examples=["https://bot.example/referee"],
        description="An absolute http(s) URL: a DNS name or a canonical literal address, a port "
        "in 1-65535, no credentials, whitespace or control characters (see docs/API.md).",
    )
    events: list[Line] | None = Field(
        default=None,
        max_length=len(NOTIFICATIONS),
        description=f"Notifications wanted, of {list(NOTIFICATIONS)}; omit the field for all "
        "(an empty list is refused: it would deliver nothing).",
    )


@router.post(
    "",
    summary="Register a webhook for your seat",
    status_code=201,
    response_model=RegisteredWebhook,
    responses=responses(400, 401, 403, 404, 409, 413, 415, 422),
)
def register(
    game_id: str,
    body: Annotated[RegisterWebhook, Body()],
    uow: UowDep,
    token: SeatDep,
    settings: SettingsDep,
) -> RegisteredWebhook:
    """Notifications for the presented seat (`your_turn`, `sealed_revealed`, `game_finished`)
    are POSTed to `url` as JSON, signed with `Referee-Signature: t=<unix>,v1=<hex>` (HMAC-SHA256
    of `"<t>." + body` under the `secret` shown once here), retried with exponential back-off
    until a 2xx answer. At most 5 per seat and game. See docs/API.md, Webhooks."""
    return uc.register(
        uow,
        game_id,
        token=token,
        url=body.url,
        events=body.events,
        allow_private=settings.webhook_allow_private_addresses,
    )


@router.get(
    "",
    summary="List your webhooks",
    response_model=WebhookList,
    responses=responses(401, 403, 404, 422),
)
def list_webhooks(game_id: str, uow: UowDep, token: SeatDep) -> WebhookList:
    """The presented seat's webhooks (the umpire's: every webhook of the game); no secrets."""
    return uc.list_webhooks(uow, game_id, token=token)


@router.delete(
    "/{webhook_id}",
    summary="Delete a webhook",
    status_code=204,
    response_class=Response,
    responses=responses(401, 403, 404, 422),
)
def delete(game_id: str, webhook_id: str, uow: UowDep, token: SeatDep) -> Response:
    """Remove a webhook, its pending deliveries and its log."""
    uc.delete_webhook(uow, game_id, webhook_id, token=token)
    return Response(status_code=204)


@router.get(
    "/{webhook_id}/deliveries",
    summary="Read a webhook's delivery log",
    response_model=DeliveryLog,
    responses=responses(401, 403, 404, 422),
)
def deliveries(
    game_id: str,
    webhook_id: str,
    uow: UowDep,
    token: SeatDep,
    settings: SettingsDep,
    limit: Annotated[int, Query(ge=1, le=100, description="Latest deliveries.")] = 50,
) -> DeliveryLog:
    """The latest deliveries, newest first: status (`pending`, `delivered`, `failed`), the
    payload sent (with `links` when the public URL is set) and every attempt (time, the
    receiver's HTTP status, error)."""
    log = uc.deliveries(uow, game_id, webhook_id, token=token, limit=limit)
    if not settings.public_url:
        return log
    return DeliveryLog(
        items=[
            item.model_copy(update={"payload": with_links(item.payload, settings.public_url)})
            for item in log.items
        ]
    )
