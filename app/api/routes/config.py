"""What a client needs to know about this service before anything else: its public address."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from app import __version__
from app.api.deps import SettingsDep
from app.api.policy import API_VERSION

router = APIRouter(tags=["config"])


class PublicConfig(BaseModel):
    """The service's public settings (nothing secret)."""

    public_url: str | None = Field(
        description="The address players reach the service at (`REFEREE_PUBLIC_URL`), no "
        "trailing slash; links to share start with it. `null`: unset -- links then use the "
        "address the request came to, which may only work on this machine.",
        examples=["https://referee.example.org"],
    )
    api_version: str = Field(description="The API version served (`/v1`).", examples=["1"])
    version: str = Field(description="The service's version.", examples=[__version__])


@router.get("/config", summary="Public configuration", response_model=PublicConfig)
def public_config(settings: SettingsDep) -> PublicConfig:
    """The service's public address and versions: the console builds its invitation and
    spectator links from `public_url`."""
    return PublicConfig(
        public_url=settings.public_url, api_version=API_VERSION, version=__version__
    )


def link_base(request: Request, public_url: str | None) -> str:
    """The base of the links an answer carries: the public URL, else the address this
    request came to (its scheme, host and root path)."""
    if public_url:
        return public_url
    # as the client sent it (a hostile Host header only shapes its own answer's links)
    return str(request.base_url).rstrip("/")
