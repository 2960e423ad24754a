"""What browsers need: CORS for pages on other origins, and the interactive docs (Swagger UI at
``/docs``, ReDoc at ``/redoc``) served from assets shipped in a Python package -- no CDN, so
the docs work offline."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from app.config import Settings

EXPOSED_HEADERS = (
    "ETag",
    "Location",
    "Idempotent-Replayed",
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
            redoc_js_url=asset(request, "redoc.standalone.js"),
            redoc_favicon_url=asset(request, "favicon.png"),
            with_google_fonts=False,
        )
