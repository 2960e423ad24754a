"""The HTTP answer of a use case that appended an event (shared by the match-flow routes)."""

from __future__ import annotations

from fastapi.responses import Response

from app.api.etags import format_etag
from app.api.problems import responses
from app.service.results import ActionOutcome

APPENDED = {
    201: {
        "description": "Done: an event was appended (the body is the new state as this seat "
        "sees it, its ruling, position and clock).",
        "headers": {
            "ETag": {"description": "The new version."},
            "Location": {"description": "/games/{id}/events/{seq}"},
            "Idempotent-Replayed": {"description": "`true` on a replayed retry."},
        },
    },
    **responses(400, 401, 403, 404, 409, 412, 415, 422, 428, 503),
}


def appended(game_id: str, outcome: ActionOutcome) -> Response:
    headers = {
        "ETag": format_etag(outcome.version),
        "Location": f"/games/{game_id}/events/{outcome.event}",
    }
    if outcome.replayed:
        headers["Idempotent-Replayed"] = "true"
    return Response(
        outcome.body, status_code=outcome.status, headers=headers, media_type="application/json"
    )
