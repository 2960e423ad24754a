"""``GET /rulesets/{id}/openapi.json``: the API typed for one ruleset."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.rules import registry

pytestmark = pytest.mark.anyio

SHIPPED = ["zoc", "zoi", "objective-zones", "terrain", "battlefield"]


def _schema(doc: dict[str, Any], ref_or_schema: dict[str, Any]) -> dict[str, Any]:
    ref = ref_or_schema.get("$ref")
    if ref is None:
        return ref_or_schema
    schema: dict[str, Any] = doc["components"]["schemas"][ref.rsplit("/", 1)[1]]
    return schema


@pytest.mark.parametrize("ruleset_id", SHIPPED)
async def test_actions_state_and_queries_are_typed(
    client: httpx.AsyncClient, ruleset_id: str
) -> None:
    ruleset = registry.get(ruleset_id)
    r = await client.get(f"/rulesets/{ruleset_id}/openapi.json")
    assert r.status_code == 200
    doc = r.json()
    assert doc["openapi"].startswith("3.")

    body = doc["paths"]["/games/{game_id}/actions"]["post"]["requestBody"]
    union = body["content"]["application/json"]["schema"]
    if len(ruleset.action_models) > 1:
        assert union["discriminator"]["propertyName"] == "kind"
        assert set(union["discriminator"]["mapping"]) == set(ruleset.action_models)
    refs = union["discriminator"]["mapping"] if "discriminator" in union else {}
    for kind in ruleset.action_models:
        schema = _schema(doc, {"$ref": refs[kind]} if refs else union)
        assert schema["properties"]["kind"].get("const") == kind
    titles = [s.get("title") for s in doc["components"]["schemas"].values()]
    assert len(titles) == len(set(titles)), "generators need distinct model titles"

    view = _schema(
        doc,
        doc["paths"]["/games/{game_id}"]["get"]["responses"]["200"]["content"]["application/json"][
            "schema"
        ],
    )
    state = _schema(doc, view["properties"]["state"])
    assert set(state["properties"]) == set(ruleset.state_model.model_fields)

    create = _schema(
        doc, doc["paths"]["/games"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    )
    assert create["properties"]["ruleset"]["const"] == ruleset_id
    assert "$ref" in create["properties"]["scenario"]

    for name, spec in ruleset.queries().items():
        op = doc["paths"][f"/games/{{game_id}}/queries/{name}"]["get"]
        answer = _schema(doc, op["responses"]["200"]["content"]["application/json"]["schema"])
        result = answer["properties"]["result"]
        assert result != {} and ("$ref" in result or "oneOf" in result or "anyOf" in result)
        params = {p["name"] for p in op["parameters"] if p["in"] == "query"}
        assert params == set(spec.params.model_json_schema().get("properties", {}))


async def test_unknown_ruleset_is_404(client: httpx.AsyncClient) -> None:
    r = await client.get("/rulesets/nope/openapi.json")
    assert r.status_code == 404 and r.json()["code"] == "ruleset.not_found"


@pytest.mark.parametrize("ruleset_id", SHIPPED)
async def test_what_if_is_typed_with_the_rulesets_options(
    client: httpx.AsyncClient, ruleset_id: str
) -> None:
    """Issue 26: the what-if body names this ruleset's options, each optional and typed as
    the options model types it; the answer is the what-if report."""
    ruleset = registry.get(ruleset_id)
    doc = (await client.get(f"/rulesets/{ruleset_id}/openapi.json")).json()
    op = doc["paths"]["/games/{game_id}/what-if"]["post"]
    body = _schema(doc, op["requestBody"]["content"]["application/json"]["schema"])
    assert body["required"] == ["options"] and body["additionalProperties"] is False
    options = _schema(doc, body["properties"]["options"])
    assert set(options["properties"]) == set(ruleset.options_model.model_fields)
    assert not options.get("required")  # a what-if sets some of them
    full = ruleset.options_model.model_json_schema()["properties"]
    for name, prop in options["properties"].items():
        kinds = {p.get("type") for p in prop.get("anyOf", [prop])} - {None, "null"}
        if "type" in full[name]:
            assert full[name]["type"] in kinds, (name, prop, full[name])
    answer = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert _schema(doc, answer)["title"] == "WhatIfReport"
