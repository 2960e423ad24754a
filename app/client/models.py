"""The models the client returns: the service's own result models (so they cannot drift from
the API), in one place. ``Ruling`` and its parts come from :mod:`app.rules.ruling`."""

from __future__ import annotations

from app.rules.ruling import Citation, Effect, InterpretationRef, Ruling, Violation
from app.service.access import IssuedSeatToken, MintedToken, SpectatorToken, TokenList
from app.service.available import AvailableView
from app.service.emails import EmailSubscription, EmailSubscriptionList, SentInvitation
from app.service.export import ExportFile, VerifyReport
from app.service.holdings import GameList, GameSummary
from app.service.messages import Message, MessagePage
from app.service.results import (
    ActionChange,
    ActionResult,
    AppealDecision,
    AppealList,
    AppealView,
    AuditReport,
    CreatedGame,
    DiceInfo,
    DiceVerification,
    DryRun,
    EventPage,
    EventView,
    GameAtVersion,
    GameView,
    QueryResult,
    RulesetInfo,
    RulesetSummary,
    ScenarioView,
    UpgradePreview,
)
from app.service.sealed import OrderCheck, RevealView, SealedListing, SubmitResult
from app.service.webhooks import Delivery, DeliveryLog, RegisteredWebhook, Webhook, WebhookList
from app.service.whatif import WhatIfChange, WhatIfReport, WhatIfStop
from app.web.routes import ShippedScenario

__all__ = [
    "ActionChange",
    "ActionResult",
    "AppealDecision",
    "AppealList",
    "AppealView",
    "AuditReport",
    "AvailableView",
    "Citation",
    "CreatedGame",
    "Delivery",
    "DeliveryLog",
    "DiceInfo",
    "DiceVerification",
    "DryRun",
    "Effect",
    "EmailSubscription",
    "EmailSubscriptionList",
    "EventPage",
    "EventView",
    "ExportFile",
    "GameAtVersion",
    "GameList",
    "GameSummary",
    "GameView",
    "InterpretationRef",
    "IssuedSeatToken",
    "Message",
    "MessagePage",
    "MintedToken",
    "OrderCheck",
    "QueryResult",
    "RegisteredWebhook",
    "RevealView",
    "RulesetInfo",
    "RulesetSummary",
    "Ruling",
    "ScenarioView",
    "SealedListing",
    "SentInvitation",
    "ShippedScenario",
    "SpectatorToken",
    "SubmitResult",
    "TokenList",
    "UpgradePreview",
    "VerifyReport",
    "Violation",
    "Webhook",
    "WebhookList",
    "WhatIfChange",
    "WhatIfReport",
    "WhatIfStop",
]
