"""Jarvis's AI task on the real Qwen2.5-Coder 0.5B model through llama.cpp's server."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import replace
import time
from typing import Any

from homeassistant.config_entries import ConfigSubentryData
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
import pytest

from custom_components.jarvis.config_flow import default_agent_data, default_task_data
from custom_components.jarvis.const import DOMAIN, SUBENTRY_AI_TASK
from custom_components.jarvis.engine.llm.base import ChatChunk, ChatRequest, LLMClient
from scripts.llm_server import LlamaServer
from tests.common import async_add_jarvis_agent

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.usefixtures("ha_core", "socket_enabled"),
]

TODO_ITEM = {
    "title": {"selector": {"text": {}}, "required": True},
    "due_date": {"selector": {"text": {}}, "required": True},
}


class CountingClient:
    """The entry's client, counting chat calls; `blind` drops the JSON schema,
    as a server that ignores it would: the text protocol alone."""

    def __init__(self, client: LLMClient, *, blind: bool) -> None:
        self._client = client
        self._blind = blind
        self.calls = 0

    def chat_stream(self, request: ChatRequest) -> AsyncGenerator[ChatChunk]:
        self.calls += 1
        if self._blind:
            request = replace(request, json_schema=None)
        return self._client.chat_stream(request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


@pytest.mark.parametrize("constrained", [True, False], ids=["schema", "text-only"])
async def test_todo_item_as_structured_data(
    hass: HomeAssistant, llama_server: LlamaServer, constrained: bool
) -> None:
    """The 0.5B model fills a to-do item's title and due date, with llama.cpp's
    grammar from the schema and with the prompt alone."""
    entry, _ = await async_add_jarvis_agent(
        hass,
        llama_server.url,
        default_agent_data(llama_server.alias),
        ConfigSubentryData(
            data=default_task_data(llama_server.alias),
            subentry_type=SUBENTRY_AI_TASK,
            title="Jarvis AI Task",
            unique_id=None,
        ),
    )
    client = CountingClient(entry.runtime_data.client, blind=not constrained)
    entry.runtime_data.client = client
    task_entity = er.async_get(hass).async_get_entity_id(
        "ai_task", DOMAIN, list(entry.subentries)[1]
    )

    started = time.monotonic()
    response: Any = await hass.services.async_call(
        "ai_task",
        "generate_data",
        {
            "entity_id": task_entity,
            "task_name": "to-do item",
            "instructions": "Generate a to-do item with a title and a due date: "
            "buy milk tomorrow.",
            "structure": TODO_ITEM,
        },
        blocking=True,
        return_response=True,
    )
    print(
        f"\nreal 0.5B AI task ({constrained=}): {time.monotonic() - started:.1f} s,"
        f" {client.calls} LLM call(s), {response['data']}"
    )

    data = response["data"]
    assert set(data) == {"title", "due_date"}
    assert all(isinstance(value, str) and value.strip() for value in data.values())
