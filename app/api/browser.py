"""What browsers need: CORS for pages on other origins, and the interactive docs (Swagger UI at
``/docs``, ReDoc at ``/redoc``) served from assets shipped in a Python package -- no CDN, so
the docs work offline and the pages fetch nothing outside this server."""

from __future__ import annotations

import functools
from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from app.config import Settings

EXPOSED_HEADERS = (
    "ETag",
    "Location",
    "Idempotent-Replayed",
    "Preference-Applied",
    "Referee-Dice-Needed",
    "Referee-Limit-Capped",
    "Referee-Api-Version",
    "Retry-After",
)
"""Response headers a cross-origin page may read (besides the CORS-safelisted ones)."""

DOCS_ASSETS = Path(fastapi_offline.__file__).parent / "static"
"""Swagger UI and ReDoc bundles as shipped by the ``fastapi-offline`` package (MIT; the
bundles keep their own Apache-2.0 / MIT licence headers)."""

DOCS_ASSETS_URL = "/docs-assets"

REDOC_BUNDLE = "redoc.offline.js"
"""ReDoc's bundle as served: the packaged one with its one remote asset made local."""

REDOC_REMOTE_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
"""The sidebar's "API docs by Redocly" image, which the packaged bundle fetches from a CDN."""

REDOC_LOCAL_LOGO = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E"
    "%3Crect x='2' y='2' width='12' height='12' rx='2' fill='none' stroke='%2332329f' "
    "stroke-width='1.5'/%3E%3Cpath d='M5 6h6M5 8h6M5 10h4' stroke='%2332329f' "
    "stroke-width='1.5'/%3E%3C/svg%3E"
)
"""A small page-of-text mark drawn inline in its place: nothing is fetched for it."""


@functools.cache
def redoc_bundle() -> bytes:
    """The packaged ReDoc bundle with its remote logo replaced by :data:`REDOC_LOCAL_LOGO`."""
    text = (DOCS_ASSETS / "redoc.standalone.js").read_text(encoding="utf-8")
    return text.replace(REDOC_REMOTE_LOGO, REDOC_LOCAL_LOGO).encode()


def install_cors(app: FastAPI, settings: Settings) -> None:
    """Answer CORS preflights and tag answers for ``settings.cors_origins`` (none: no CORS).

    Add it after every other middleware, so it is the outermost one and even the answers
    of other middlewares (413, 429) carry the CORS headers a page needs to read them."""
    if not settings.cors_origins:
        return
    app.add_middleware(
        CORSMiddleware,
        allow_origins=list(settings.cors_origins),
        allow_methods=["*"],
        allow_headers=["*"],
        expose_headers=list(EXPOSED_HEADERS),
        allow_credentials=False,
        max_age=settings.cors_max_age,
    )


def install_docs(app: FastAPI) -> None:
    """Serve ``/docs`` (Swagger UI) and ``/redoc`` from packaged assets.

    The app must be created with ``docs_url=None, redoc_url=None``."""

    @app.get(f"{DOCS_ASSETS_URL}/{REDOC_BUNDLE}", include_in_schema=False)
    def redoc_js() -> Response:
        # before the mount below, which would otherwise take the path
        return Response(
            redoc_bundle(),
            media_type="text/javascript; charset=utf-8",
            headers={"Cache-Control": "public, max-age=3600"},
        )

    app.mount(DOCS_ASSETS_URL, StaticFiles(directory=DOCS_ASSETS), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"
    redirect_url = app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect"

    def asset(request: Request, name: str) -> str:
        return f"{request.scope.get('root_path', '')}{DOCS_ASSETS_URL}/{name}"

    @app.get("/docs", include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=f"{request.scope.get('root_path', '')}{openapi_url}",
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=redirect_url,
            swagger_js_url=asset(request, "swagger-ui-bundle.js"),
            swagger_css_url=asset(request, "swagger-ui.css"),
            swagger_favicon_url=asset(request, "favicon.png"),
            swagger_ui_parameters=app.swagger_ui_parameters,
        )

    @app.get(redirect_url, include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        return get_redoc_html(
            openapi_url=f"{request.scope.get('root_path', '')}{openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=asset(request, REDOC_BUNDLE),
            redoc_favicon_url=asset(request, "favicon.png"),
            with_google_fonts=False,
        )
