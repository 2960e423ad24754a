"""Must NOT type-check: a misspelt field of a zoc action (the untyped main document let
``{"unti": ...}`` through a generated client)."""

from __future__ import annotations

from zoc_client.models import MoveAction

move = MoveAction(unti="de-inf-2", path=["e3207", "e3307"])
