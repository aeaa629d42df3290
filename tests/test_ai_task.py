"""Jarvis's AI task entity in a real Home Assistant, on a scripted LLM."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

from homeassistant.components.ai_task.const import DEFAULT_SYSTEM_PROMPT
from homeassistant.config_entries import (
    SOURCE_USER,
    ConfigEntryState,
    ConfigSubentryData,
)
from homeassistant.const import CONF_NAME
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import entity_registry as er
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.jarvis.config_flow import JarvisConfigFlow
from custom_components.jarvis.const import (
    AI_TASK_MAX_TOKENS,
    CONF_API_KEY,
    CONF_BACKEND,
    CONF_MODEL,
    CONF_URL,
    DOMAIN,
    SUBENTRY_AI_TASK,
    SUBENTRY_CONVERSATION,
)
from tests.engine.test_structured import sent_schema
from tests.scripted_llm import Reply, ScriptedLLMServer

pytestmark = pytest.mark.usefixtures("ha_core")

TODO_ITEM = {
    "title": {"selector": {"text": {}}, "required": True},
    "due_date": {
        "selector": {"date": {}},
        "required": True,
        "description": "When it is due",
    },
}
TODO_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "due_date": {
            "type": "string",
            "format": "date",
            "description": "When it is due",
        },
    },
    "required": ["title", "due_date"],
}
VALID = '{"title": "Buy milk", "due_date": "2026-11-25"}'


async def setup_task(
    hass: HomeAssistant, server: ScriptedLLMServer, backend: str = "openai"
) -> tuple[MockConfigEntry, str]:
    """A Jarvis entry with one AI task: the entry and the task's entity id."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        minor_version=JarvisConfigFlow.MINOR_VERSION,
        data={CONF_BACKEND: backend, CONF_URL: server.url, CONF_API_KEY: ""},
        subentries_data=[
            ConfigSubentryData(
                data={CONF_MODEL: "test-model"},
                subentry_type=SUBENTRY_AI_TASK,
                title="Jarvis AI Task",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    entity_id = er.async_get(hass).async_get_entity_id(
        "ai_task", DOMAIN, next(iter(entry.subentries))
    )
    assert entity_id == "ai_task.jarvis_ai_task"
    return entry, entity_id


async def generate(
    hass: HomeAssistant, entity_id: str, structure: dict[str, Any] | None = None
) -> Any:
    """The data of one `ai_task.generate_data` call."""
    response: Any = await hass.services.async_call(
        "ai_task",
        "generate_data",
        {
            "entity_id": entity_id,
            "task_name": "to-do item",
            "instructions": "A to-do item: buy milk tomorrow.",
            **({"structure": structure} if structure else {}),
        },
        blocking=True,
        return_response=True,
    )
    return response["data"]


def max_tokens(body: dict[str, Any]) -> int:
    return int(body.get("max_tokens") or body["options"]["num_predict"])


@pytest.mark.parametrize("backend", ["ollama", "openai"])
async def test_text_from_the_instructions(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, backend: str
) -> None:
    _, task = await setup_task(hass, scripted_llm, backend)
    scripted_llm.script(Reply(content="Buy milk on the way home."))

    assert await generate(hass, task) == "Buy milk on the way home."

    (sent,) = scripted_llm.chat_requests
    body = sent["json"]
    system, user = body["messages"]
    assert system["role"] == "system"
    assert DEFAULT_SYSTEM_PROMPT in system["content"]
    assert user == {"role": "user", "content": "A to-do item: buy milk tomorrow."}
    assert not body.get("tools")
    assert sent_schema(body) is None
    assert max_tokens(body) == AI_TASK_MAX_TOKENS
    state = hass.states.get(task)
    assert state is not None
    assert state.state != "unknown"  # the time of the last task


@pytest.mark.parametrize("backend", ["ollama", "openai"])
async def test_structured_data_with_the_schema_sent(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, backend: str
) -> None:
    _, task = await setup_task(hass, scripted_llm, backend)
    scripted_llm.script(Reply(content=f"Here it is:\n```json\n{VALID}\n```"))

    data = await generate(hass, task, TODO_ITEM)

    assert data == {"title": "Buy milk", "due_date": "2026-11-25"}
    (sent,) = scripted_llm.chat_requests
    assert sent_schema(sent["json"]) == TODO_SCHEMA
    assert (
        '"due_date" (string, date, required): When it is due'
        in (sent["json"]["messages"][0]["content"])
    )


async def test_invalid_data_is_asked_for_again(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, task = await setup_task(hass, scripted_llm)
    # A date selector checks the date itself, not only that it is text.
    scripted_llm.script(
        Reply(content='{"title": "Buy milk", "due_date": "tomorrow"}'),
        Reply(content=VALID),
    )

    assert await generate(hass, task, TODO_ITEM) == {
        "title": "Buy milk",
        "due_date": "2026-11-25",
    }
    retry = scripted_llm.chat_requests[1]["json"]["messages"][-1]
    assert retry["role"] == "user"
    assert (
        "Could not parse date for dictionary value @ data['due_date']"
        in (retry["content"])
    )


async def test_invalid_twice_is_a_translated_error(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, task = await setup_task(hass, scripted_llm)
    scripted_llm.script(Reply(content='{"title": "Buy milk"}'), Reply(content="No."))

    with pytest.raises(HomeAssistantError) as caught:
        await generate(hass, task, TODO_ITEM)

    assert caught.value.translation_key == "invalid_task_data"
    assert str(caught.value).startswith("The model did not give data of the")
    assert len(scripted_llm.chat_requests) == 2


@pytest.mark.parametrize(
    "reply", [Reply(status=500), Reply(delay=1.0)], ids=["server error", "too slow"]
)
async def test_server_failure_is_a_translated_error(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, reply: Reply
) -> None:
    _, task = await setup_task(hass, scripted_llm)
    scripted_llm.script(reply)

    with (
        patch("custom_components.jarvis.ai_task.AI_TASK_TIMEOUT", 0.2),
        pytest.raises(HomeAssistantError) as caught,
    ):
        await generate(hass, task)

    assert caught.value.translation_key == "task_failed"
    assert str(caught.value).startswith("The LLM server failed or took too long")


async def test_ai_task_subentry_added_and_reconfigured(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.models = ["small", "big"]
    entry, _ = await setup_task(hass, scripted_llm)

    form = await hass.config_entries.subentries.async_init(
        (entry.entry_id, SUBENTRY_AI_TASK), context={"source": SOURCE_USER}
    )
    assert form["type"] is FlowResultType.FORM
    assert {str(key) for key in form["data_schema"].schema} == {CONF_NAME, CONF_MODEL}
    result = await hass.config_entries.subentries.async_configure(
        form["flow_id"], {CONF_NAME: "Summaries", CONF_MODEL: "big"}
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    added = next(s for s in entry.subentries.values() if s.title == "Summaries")
    assert dict(added.data) == {CONF_MODEL: "big"}
    assert hass.states.get("ai_task.summaries") is not None

    form = await entry.start_subentry_reconfigure_flow(hass, added.subentry_id)
    assert {str(key) for key in form["data_schema"].schema} == {CONF_MODEL}
    result = await hass.config_entries.subentries.async_configure(
        form["flow_id"], {CONF_MODEL: "small"}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    assert dict(entry.subentries[added.subentry_id].data) == {CONF_MODEL: "small"}


@pytest.mark.parametrize("minor_version", [1, JarvisConfigFlow.MINOR_VERSION])
async def test_an_entry_from_before_ai_task_gets_one_on_its_agents_model(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, minor_version: int
) -> None:
    entry = MockConfigEntry(
        domain=DOMAIN,
        minor_version=minor_version,
        data={CONF_BACKEND: "openai", CONF_URL: scripted_llm.url, CONF_API_KEY: ""},
        subentries_data=[
            ConfigSubentryData(
                data={CONF_MODEL: "agent-model"},
                subentry_type=SUBENTRY_CONVERSATION,
                title="Jarvis",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()

    tasks = [
        s for s in entry.subentries.values() if s.subentry_type == SUBENTRY_AI_TASK
    ]
    # Only an entry from before gets one: a current entry's user may have
    # removed its AI task on purpose.
    assert [dict(t.data) for t in tasks] == (
        [{CONF_MODEL: "agent-model"}] if minor_version == 1 else []
    )
    assert entry.minor_version == JarvisConfigFlow.MINOR_VERSION
    assert (hass.states.get("ai_task.jarvis_ai_task") is not None) == (
        minor_version == 1
    )


async def test_an_entry_from_a_newer_jarvis_is_not_loaded(hass: HomeAssistant) -> None:
    entry = MockConfigEntry(
        domain=DOMAIN,
        version=2,
        data={CONF_BACKEND: "openai", CONF_URL: "http://127.0.0.1:9", CONF_API_KEY: ""},
    )
    entry.add_to_hass(hass)
    assert not await hass.config_entries.async_setup(entry.entry_id)
    assert entry.state is ConfigEntryState.MIGRATION_ERROR
