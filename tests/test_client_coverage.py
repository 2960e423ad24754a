"""The client has a method for every operation of the OpenAPI document, sync and async."""

from __future__ import annotations

import inspect

from app.client import AsyncRefereeClient, AsyncSeat, RefereeClient, Seat
from app.config import Settings
from app.main import create_app

CLIENT_METHODS = {
    ("GET", "/healthz"): "healthz",
    ("GET", "/config"): "config",
    ("GET", "/rulesets"): "rulesets",
    ("GET", "/rulesets/{ruleset_id}"): "ruleset",
    ("GET", "/rulesets/{ruleset_id}/openapi.json"): "ruleset_openapi",
    ("POST", "/games"): "create_game",
    ("POST", "/verify"): "verify_export",
    ("POST", "/games/import"): "import_game",
    ("GET", "/games"): "games_page",
    ("GET", "/events/stream"): "feed",
    ("GET", "/console/scenarios"): "console_scenarios",
}
SEAT_METHODS = {
    ("GET", "/games/{game_id}"): "game",
    ("GET", "/games/{game_id}/scenario"): "scenario",
    ("POST", "/games/{game_id}/rulings"): "dry_run",
    ("POST", "/games/{game_id}/actions"): "submit",
    ("GET", "/games/{game_id}/events"): "events_page",
    ("GET", "/games/{game_id}/events/{seq}"): "event",
    ("GET", "/games/{game_id}/positions/{version}"): "position",
    ("GET", "/games/{game_id}/events/stream"): "stream",
    ("GET", "/games/{game_id}/queries/{name}"): "query",
    ("POST", "/games/{game_id}/phase/end"): "end_phase",
    ("POST", "/games/{game_id}/phase/advance"): "advance_phase",
    ("POST", "/games/{game_id}/finish"): "finish",
    ("GET", "/games/{game_id}/dice"): "dice",
    ("GET", "/games/{game_id}/dice/verify"): "verify_dice",
    ("POST", "/games/{game_id}/dice/reveal"): "reveal_seed",
    ("POST", "/games/{game_id}/rollback"): "rollback",
    ("POST", "/games/{game_id}/takeback"): "takeback",
    ("POST", "/games/{game_id}/events/{seq}/appeal"): "appeal",
    ("POST", "/games/{game_id}/appeals/{appeal}/decision"): "decide_appeal",
    ("GET", "/games/{game_id}/appeals"): "appeals",
    ("GET", "/games/{game_id}/sealed"): "sealed",
    ("POST", "/games/{game_id}/sealed/{decision}"): "submit_sealed",
    ("POST", "/games/{game_id}/sealed/{decision}/check"): "check_sealed",
    ("POST", "/games/{game_id}/sealed/{decision}/open"): "open_sealed",
    ("GET", "/games/{game_id}/audit"): "audit",
    ("GET", "/games/{game_id}/export"): "export",
    ("GET", "/games/{game_id}/upgrade"): "upgrade_preview",
    ("POST", "/games/{game_id}/upgrade"): "upgrade",
    ("POST", "/games/{game_id}/what-if"): "what_if",
    ("GET", "/games/{game_id}/actions/available"): "available",
    ("POST", "/games/{game_id}/tokens"): "mint_spectator",
    ("GET", "/games/{game_id}/tokens"): "tokens",
    ("DELETE", "/games/{game_id}/tokens/{token_id}"): "revoke_token",
    ("POST", "/games/{game_id}/tokens/rotate"): "rotate_token",
    ("POST", "/games/{game_id}/seats/{seat}/token"): "reissue_token",
    ("POST", "/games/{game_id}/webhooks"): "register_webhook",
    ("GET", "/games/{game_id}/webhooks"): "webhooks",
    ("DELETE", "/games/{game_id}/webhooks/{webhook_id}"): "delete_webhook",
    ("GET", "/games/{game_id}/webhooks/{webhook_id}/deliveries"): "webhook_deliveries",
    ("POST", "/games/{game_id}/emails"): "register_email",
    ("GET", "/games/{game_id}/emails"): "emails",
    ("DELETE", "/games/{game_id}/emails/{email_id}"): "delete_email",
    ("GET", "/games/{game_id}/emails/{email_id}/deliveries"): "email_deliveries",
    ("POST", "/games/{game_id}/seats/{seat}/invite"): "email_invitation",
    ("POST", "/games/{game_id}/messages"): "post_message",
    ("GET", "/games/{game_id}/messages"): "messages_page",
    ("GET", "/games/{game_id}/messages/stream"): "message_stream",
}


def _operations() -> set[tuple[str, str]]:
    app = create_app(Settings(database_url="sqlite://"))
    doc = app.openapi()
    app.state.engine.dispose()
    return {(m.upper(), p) for p, item in doc["paths"].items() for m in item}


def test_every_operation_has_a_client_method() -> None:
    missing = _operations() - set(CLIENT_METHODS) - set(SEAT_METHODS)
    assert not missing, f"operations without a client method: {sorted(missing)}"


def test_sync_and_async_clients_have_the_same_methods() -> None:
    for sync, aio, methods in (
        (RefereeClient, AsyncRefereeClient, CLIENT_METHODS),
        (Seat, AsyncSeat, SEAT_METHODS),
    ):
        for name in methods.values():
            assert callable(getattr(sync, name)), name
            assert callable(getattr(aio, name)), name
            method = getattr(aio, name)
            if name not in ("stream", "feed", "message_stream"):
                assert inspect.iscoroutinefunction(method), name
