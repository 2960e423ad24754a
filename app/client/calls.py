"""The API's operations as methods that build (not run) operations: shared by the sync and
async clients, which only add ``run``. One place per operation for its path, parameters,
headers and result type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

from pydantic import TypeAdapter

from app.client import models as m
from app.client import operations as ops
from app.client.operations import Call, Etags, Op, WriteOptions, game_path
from app.client.streaming import tokens_headers

RULESETS = TypeAdapter(list[m.RulesetSummary])
SCENARIOS = TypeAdapter(list[m.ShippedScenario])
JSON_OBJECT = TypeAdapter(dict[str, Any])


def dice_headers(client_seed: str | None, dice: list[int] | None) -> dict[str, str]:
    """``Referee-Client-Seed`` (mixed into derived dice) and ``Referee-Dice`` (physical dice
    the umpire entered)."""
    headers: dict[str, str] = {}
    if client_seed is not None:
        headers["Referee-Client-Seed"] = client_seed
    if dice is not None:
        headers["Referee-Dice"] = ",".join(str(d) for d in dice)
    return headers


class ServiceCalls:
    """Operations that need no game: health, rulesets, creating a game."""

    etags: Etags

    def _healthz(self) -> Op[dict[str, Any]]:
        return ops.read_as(Call("GET", "/healthz"), JSON_OBJECT)

    def _config(self) -> Op[dict[str, Any]]:
        return ops.read_as(Call("GET", "/config"), JSON_OBJECT)

    def _rulesets(self) -> Op[list[m.RulesetSummary]]:
        return ops.read_as(Call("GET", "/rulesets"), RULESETS)

    def _ruleset(self, ruleset_id: str) -> Op[m.RulesetInfo]:
        return ops.read(Call("GET", f"/rulesets/{ruleset_id}"), m.RulesetInfo)

    def _ruleset_openapi(self, ruleset_id: str) -> Op[dict[str, Any]]:
        return ops.read_as(Call("GET", f"/rulesets/{ruleset_id}/openapi.json"), JSON_OBJECT)

    def _console_scenarios(self) -> Op[list[m.ShippedScenario]]:
        return ops.read_as(Call("GET", "/console/scenarios"), SCENARIOS)

    def _games_page(
        self,
        tokens: Sequence[str],
        status: str | None,
        my_turn: bool | None,
        after: str | None,
        limit: int,
    ) -> Op[m.GameList]:
        first, headers = tokens_headers(tokens)
        params: dict[str, Any] = {"limit": limit}
        for key, value in (("status", status), ("my_turn", my_turn), ("after", after)):
            if value is not None:
                params[key] = str(value).lower() if isinstance(value, bool) else value
        call = Call("GET", "/games", first, params=params, headers=headers)
        return ops.read(call, m.GameList)

    def _create_game(
        self,
        ruleset: str,
        scenario: Mapping[str, Any],
        options: Mapping[str, Any] | None,
        match: Mapping[str, Any] | None,
        public: bool,
    ) -> Op[m.CreatedGame]:
        body: dict[str, Any] = {"ruleset": ruleset, "scenario": dict(scenario), "public": public}
        if options is not None:
            body["options"] = dict(options)
        if match is not None:
            body["match"] = dict(match)
        created = yield from ops.read(Call("POST", "/games", json=body), m.CreatedGame)
        self.etags.set(created.id, f'W/"{created.version}"')
        return created

    def _verify_export(self, file: Mapping[str, Any] | m.ExportFile) -> Op[m.VerifyReport]:
        body = file.model_dump(mode="json") if isinstance(file, m.ExportFile) else dict(file)
        return ops.read(Call("POST", "/verify", json=body), m.VerifyReport)

    def _import_game(self, file: Mapping[str, Any] | m.ExportFile) -> Op[m.CreatedGame]:
        body = file.model_dump(mode="json") if isinstance(file, m.ExportFile) else dict(file)
        created = yield from ops.read(Call("POST", "/games/import", json=body), m.CreatedGame)
        self.etags.set(created.id, f'W/"{created.version}"')
        return created


class HasEtags(Protocol):
    """A client: it knows the newest ETag of every game it has seen."""

    etags: Etags


ClientT = TypeVar("ClientT", bound=HasEtags)


class SeatCalls(Generic[ClientT]):
    """Operations on one game, as one seat (``token``) or an anonymous reader (None), through
    ``client`` (sync or async: it runs the operations)."""

    def __init__(self, client: ClientT, game_id: str, token: str | None) -> None:
        self.client = client
        self.etags = client.etags
        self.game_id = game_id
        self.token = token

    @property
    def etag(self) -> str | None:
        """The newest ETag the client knows for this game."""
        return self.etags.get(self.game_id)

    def _call(self, method: str, suffix: str = "", **kwargs: Any) -> Call:
        path = game_path(self.game_id, suffix)
        return Call(method, path, self.token, game=self.game_id, **kwargs)

    def _write(
        self, suffix: str, body: Any = ops.NO_BODY, options: WriteOptions = WriteOptions()
    ) -> Op[Any]:
        return ops.write(self.etags, self.game_id, suffix, self.token, body, options)

    def _appended(
        self, suffix: str, body: Any = ops.NO_BODY, options: WriteOptions = WriteOptions()
    ) -> Op[m.ActionResult]:
        response = yield from self._write(suffix, body, options)
        return m.ActionResult.model_validate(response.json())

    # -- reading -----------------------------------------------------------------------------

    def _game(self) -> Op[m.GameView]:
        return ops.read(self._call("GET"), m.GameView)

    def _game_if_changed(self) -> Op[m.GameView | None]:
        return ops.game_if_changed(self.etags, self.game_id, self.token, m.GameView)

    def _scenario(self) -> Op[m.ScenarioView]:
        return ops.read(self._call("GET", "/scenario"), m.ScenarioView)

    def _events_page(self, after: int, limit: int) -> Op[m.EventPage]:
        return ops.read(
            self._call("GET", "/events", params={"after": after, "limit": limit}), m.EventPage
        )

    def _event(self, seq: int) -> Op[m.EventView]:
        return ops.read(self._call("GET", f"/events/{seq}"), m.EventView)

    def _position(self, version: int) -> Op[m.GameAtVersion]:
        return ops.read(self._call("GET", f"/positions/{version}"), m.GameAtVersion)

    def _query(self, name: str, params: Mapping[str, Any]) -> Op[m.QueryResult]:
        return ops.read(self._call("GET", f"/queries/{name}", params=dict(params)), m.QueryResult)

    def _dice(self) -> Op[m.DiceInfo]:
        return ops.read(self._call("GET", "/dice"), m.DiceInfo)

    def _verify_dice(self) -> Op[m.DiceVerification]:
        return ops.read(self._call("GET", "/dice/verify"), m.DiceVerification)

    def _sealed(self) -> Op[m.SealedListing]:
        return ops.read(self._call("GET", "/sealed"), m.SealedListing)

    def _check_sealed(self, decision: str, order: Mapping[str, Any]) -> Op[m.OrderCheck]:
        call = self._call("POST", f"/sealed/{decision}/check", json=dict(order))
        return ops.read(call, m.OrderCheck)

    def _audit(self) -> Op[m.AuditReport]:
        return ops.read(self._call("GET", "/audit"), m.AuditReport)

    def _export(self) -> Op[m.ExportFile]:
        return ops.read(self._call("GET", "/export"), m.ExportFile)

    def _upgrade_preview(self) -> Op[m.UpgradePreview]:
        return ops.read(self._call("GET", "/upgrade"), m.UpgradePreview)

    def _what_if(self, options: Mapping[str, Any]) -> Op[m.WhatIfReport]:
        call = self._call("POST", "/what-if", json={"options": dict(options)})
        return ops.read(call, m.WhatIfReport)

    def _available(self) -> Op[m.AvailableView]:
        return ops.read(self._call("GET", "/actions/available"), m.AvailableView)

    # -- tokens and webhooks -----------------------------------------------------------------

    def _mint_spectator(self, label: str | None) -> Op[m.MintedToken]:
        body = {"scope": "spectator", **({"label": label} if label is not None else {})}
        return ops.read(self._call("POST", "/tokens", json=body), m.MintedToken)

    def _tokens(self) -> Op[m.TokenList]:
        return ops.read(self._call("GET", "/tokens"), m.TokenList)

    def _revoke_token(self, token_id: str) -> Op[None]:
        yield from ops.fetch(self._call("DELETE", f"/tokens/{token_id}"))

    def _rotate_token(self) -> Op[m.IssuedSeatToken]:
        issued = yield from ops.read(self._call("POST", "/tokens/rotate"), m.IssuedSeatToken)
        self.token = issued.token  # the old token is dead from now on
        return issued

    def _reissue_token(self, seat: str) -> Op[m.IssuedSeatToken]:
        return ops.read(self._call("POST", f"/seats/{seat}/token"), m.IssuedSeatToken)

    def _register_webhook(self, url: str, events: Sequence[str] | None) -> Op[m.RegisteredWebhook]:
        body: dict[str, Any] = {"url": url}
        if events is not None:
            body["events"] = list(events)
        return ops.read(self._call("POST", "/webhooks", json=body), m.RegisteredWebhook)

    def _webhooks(self) -> Op[m.WebhookList]:
        return ops.read(self._call("GET", "/webhooks"), m.WebhookList)

    def _delete_webhook(self, webhook_id: str) -> Op[None]:
        yield from ops.fetch(self._call("DELETE", f"/webhooks/{webhook_id}"))

    def _webhook_deliveries(self, webhook_id: str, limit: int) -> Op[m.DeliveryLog]:
        call = self._call("GET", f"/webhooks/{webhook_id}/deliveries", params={"limit": limit})
        return ops.read(call, m.DeliveryLog)

    def _register_email(
        self, address: str, events: Sequence[str] | None
    ) -> Op[m.EmailSubscription]:
        body: dict[str, Any] = {"address": address}
        if events is not None:
            body["events"] = list(events)
        return ops.read(self._call("POST", "/emails", json=body), m.EmailSubscription)

    def _emails(self) -> Op[m.EmailSubscriptionList]:
        return ops.read(self._call("GET", "/emails"), m.EmailSubscriptionList)

    def _delete_email(self, email_id: str) -> Op[None]:
        yield from ops.fetch(self._call("DELETE", f"/emails/{email_id}"))

    def _email_deliveries(self, email_id: str, limit: int) -> Op[m.DeliveryLog]:
        call = self._call("GET", f"/emails/{email_id}/deliveries", params={"limit": limit})
        return ops.read(call, m.DeliveryLog)

    def _email_invitation(self, seat: str, address: str, token: str) -> Op[m.SentInvitation]:
        body = {"address": address, "token": token}
        return ops.read(self._call("POST", f"/seats/{seat}/invite", json=body), m.SentInvitation)

    def _post_message(self, to: str, text: str) -> Op[m.Message]:
        body = {"to": to, "text": text}
        return ops.read(self._call("POST", "/messages", json=body), m.Message)

    def _messages_page(self, after: int, limit: int) -> Op[m.MessagePage]:
        call = self._call("GET", "/messages", params={"after": after, "limit": limit})
        return ops.read(call, m.MessagePage)

    # -- judging and acting ------------------------------------------------------------------

    def _dry_run(self, action: Mapping[str, Any]) -> Op[m.DryRun]:
        return ops.dry_run(self.game_id, self.token, action)

    def _submit(
        self,
        action: Mapping[str, Any],
        key: str | None,
        retry_stale: int,
        client_seed: str | None,
        dice: list[int] | None,
    ) -> Op[m.ActionResult]:
        options = WriteOptions(key, retry_stale, dice_headers(client_seed, dice))
        return self._appended("/actions", dict(action), options)

    def _submit_change(
        self,
        action: Mapping[str, Any],
        key: str | None,
        retry_stale: int,
        client_seed: str | None,
        dice: list[int] | None,
    ) -> Op[m.ActionChange]:
        headers = {**dice_headers(client_seed, dice), "Prefer": "return=minimal"}
        options = WriteOptions(key, retry_stale, headers)
        response = yield from self._write("/actions", dict(action), options)
        # a replayed retry answers the stored full answer: its extra `state` is ignored
        return m.ActionChange.model_validate(response.json())

    def _end_phase(self, key: str | None) -> Op[m.ActionResult]:
        return self._appended("/phase/end", options=WriteOptions(key))

    def _advance_phase(self, key: str | None) -> Op[m.ActionResult]:
        return self._appended("/phase/advance", options=WriteOptions(key))

    def _finish(self, winner: str | None, key: str | None) -> Op[m.ActionResult]:
        return self._appended("/finish", {"winner": winner}, WriteOptions(key))

    def _rollback(self, to_version: int, key: str | None) -> Op[m.ActionResult]:
        return self._appended("/rollback", {"to_version": to_version}, WriteOptions(key))

    def _takeback(self, key: str | None) -> Op[m.ActionResult]:
        return self._appended("/takeback", options=WriteOptions(key))

    def _appeal(self, seq: int, note: str, key: str | None) -> Op[m.ActionResult]:
        return self._appended(f"/events/{seq}/appeal", {"note": note}, WriteOptions(key))

    def _decide_appeal(
        self,
        appeal: int,
        outcome: str,
        note: str,
        rollback_to: int | None,
        action: Mapping[str, Any] | None,
        key: str | None,
    ) -> Op[m.ActionResult]:
        body: dict[str, Any] = {"outcome": outcome, "note": note}
        if rollback_to is not None:
            body["rollback_to"] = rollback_to
        if action is not None:
            body["action"] = dict(action)
        return self._appended(f"/appeals/{appeal}/decision", body, WriteOptions(key))

    def _appeals(self) -> Op[m.AppealList]:
        return ops.read(self._call("GET", "/appeals"), m.AppealList)

    def _upgrade(self, key: str | None) -> Op[m.ActionResult]:
        return self._appended("/upgrade", options=WriteOptions(key))

    def _reveal_seed(self, key: str | None) -> Op[m.ActionResult]:
        return self._appended("/dice/reveal", options=WriteOptions(key))

    def _submit_sealed(
        self,
        decision: str,
        order: Mapping[str, Any],
        key: str | None,
        retry_stale: int,
        client_seed: str | None,
    ) -> Op[m.SubmitResult]:
        options = WriteOptions(key, retry_stale, dice_headers(client_seed, None))
        response = yield from self._write(f"/sealed/{decision}", dict(order), options)
        return m.SubmitResult.model_validate(response.json())

    def _open_sealed(
        self, decision: str, client_seed: str | None, dice: list[int] | None
    ) -> Op[m.RevealView]:
        options = WriteOptions(headers=dice_headers(client_seed, dice))
        response = yield from self._write(f"/sealed/{decision}/open", options=options)
        return m.RevealView.model_validate(response.json())
