"""Config flow, reconfigure, reauth, agent subentries, setup and unload."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from unittest.mock import patch

from homeassistant import config_entries
from homeassistant.config_entries import ConfigEntryState, ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API, CONF_NAME
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import entity_registry as er
import pytest
import pytest_asyncio
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.jarvis.config_flow import JarvisConfigFlow
from custom_components.jarvis.const import (
    CONF_API_KEY,
    CONF_BACKEND,
    CONF_HEADERS,
    CONF_MAX_TOKENS,
    CONF_MAX_TURNS,
    CONF_MODEL,
    CONF_PROMPT,
    CONF_TEMPERATURE,
    CONF_TOP_P,
    CONF_TRANSPORT,
    CONF_URL,
    DOMAIN,
    SUBENTRY_AI_TASK,
    SUBENTRY_CONVERSATION,
    SUBENTRY_MCP_SERVER,
)
from scripts.llm_server import free_port
from tests.scripted_llm import ScriptedLLMServer
from tests.tools.conftest import StartMcp, setup_jarvis, start_mcp  # noqa: F401
from tests.tools.test_mcp import mcp_subentry

pytestmark = pytest.mark.usefixtures("ha_core")


def closed_port_url() -> str:
    return f"http://127.0.0.1:{free_port()}"


@pytest_asyncio.fixture
async def keyed_llm(socket_enabled: None) -> AsyncIterator[ScriptedLLMServer]:
    server = ScriptedLLMServer(models=["qwen-small", "qwen-big"], api_key="secret")
    await server.start()
    yield server
    await server.stop()


def make_entry(url: str, backend: str = "openai", api_key: str = "") -> MockConfigEntry:
    return MockConfigEntry(
        domain=DOMAIN,
        minor_version=JarvisConfigFlow.MINOR_VERSION,
        title=f"Jarvis ({url})",
        data={CONF_BACKEND: backend, CONF_URL: url, CONF_API_KEY: api_key},
        subentries_data=[
            ConfigSubentryData(
                data={CONF_MODEL: "test-model", CONF_LLM_HASS_API: ["assist"]},
                subentry_type=SUBENTRY_CONVERSATION,
                title="Jarvis",
                unique_id=None,
            )
        ],
    )


async def start_user_flow(hass: HomeAssistant) -> dict[str, Any]:
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"
    return dict(result)


async def test_entry_title_never_shows_url_credentials(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    flow = await start_user_flow(hass)
    url = scripted_llm.url.replace("http://", "http://admin:hunter2@")
    result = await hass.config_entries.flow.async_configure(
        flow["flow_id"], {CONF_BACKEND: "openai", CONF_URL: url}
    )
    await hass.async_block_till_done()

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == f"Jarvis ({scripted_llm.url})"
    assert result["data"][CONF_URL] == url  # kept, to connect with


@pytest.mark.parametrize("backend", ["ollama", "openai"])
async def test_user_flow_creates_server_with_first_agent(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, backend: str
) -> None:
    flow = await start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        flow["flow_id"], {CONF_BACKEND: backend, CONF_URL: scripted_llm.url + "/"}
    )
    await hass.async_block_till_done()

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"] == {
        CONF_BACKEND: backend,
        CONF_URL: scripted_llm.url,
        CONF_API_KEY: "",
    }
    entry = hass.config_entries.async_entries(DOMAIN)[0]
    assert entry.state is ConfigEntryState.LOADED
    agent, task = entry.subentries.values()
    assert agent.subentry_type == SUBENTRY_CONVERSATION
    assert agent.title == "Jarvis"
    assert agent.data[CONF_MODEL] == "test-model"
    assert agent.data[CONF_LLM_HASS_API] == ["assist", "jarvis"]
    assert agent.data[CONF_MAX_TURNS] == 8
    assert agent.data[CONF_MAX_TOKENS] == 512
    # Unset, so small models decode greedily and others at the server's default.
    assert CONF_TEMPERATURE not in agent.data
    assert CONF_TOP_P not in agent.data
    assert "Jarvis" in agent.data[CONF_PROMPT]
    entity_id = er.async_get(hass).async_get_entity_id(
        "conversation", DOMAIN, agent.subentry_id
    )
    assert entity_id is not None
    assert hass.states.get(entity_id) is not None
    # And an AI task on the same model, as HA's own LLM integrations add one.
    assert task.subentry_type == SUBENTRY_AI_TASK
    assert (task.title, dict(task.data)) == (
        "Jarvis AI Task",
        {CONF_MODEL: "test-model"},
    )
    assert hass.states.get("ai_task.jarvis_ai_task") is not None


@pytest.mark.parametrize("backend", ["ollama", "openai"])
@pytest.mark.parametrize(
    ("models", "chosen"),
    [
        (
            ["nomic-embed-text:latest", "bge-m3", "all-minilm", "qwen2.5:3b"],
            "qwen2.5:3b",
        ),
        (["jina-reranker-v2", "mxbai-embed-large"], "jina-reranker-v2"),
    ],
)
async def test_first_agent_takes_a_chat_model(
    hass: HomeAssistant,
    socket_enabled: None,
    backend: str,
    models: list[str],
    chosen: str,
) -> None:
    server = ScriptedLLMServer(models=models)
    await server.start()
    try:
        flow = await start_user_flow(hass)
        await hass.config_entries.flow.async_configure(
            flow["flow_id"], {CONF_BACKEND: backend, CONF_URL: server.url}
        )
        await hass.async_block_till_done()
        entry = hass.config_entries.async_entries(DOMAIN)[0]
        (agent,) = [
            s for s in entry.subentries.values() if s.subentry_type == "conversation"
        ]
        assert agent.data[CONF_MODEL] == chosen

        # "Add agent" suggests the same model.
        result = await hass.config_entries.subentries.async_init(
            (entry.entry_id, SUBENTRY_CONVERSATION),
            context={"source": config_entries.SOURCE_USER},
        )
        (model_key,) = (k for k in result["data_schema"].schema if k == CONF_MODEL)
        assert model_key.description == {"suggested_value": chosen}
    finally:
        await server.stop()


async def test_user_flow_errors_then_recovers(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, keyed_llm: ScriptedLLMServer
) -> None:
    flow = await start_user_flow(hass)
    empty = ScriptedLLMServer(models=[])
    await empty.start()
    cases = [
        ({CONF_BACKEND: "openai", CONF_URL: "not a url"}, "invalid_url"),
        ({CONF_BACKEND: "openai", CONF_URL: closed_port_url()}, "cannot_connect"),
        ({CONF_BACKEND: "ollama", CONF_URL: closed_port_url()}, "cannot_connect"),
        ({CONF_BACKEND: "openai", CONF_URL: keyed_llm.url}, "invalid_auth"),
        (
            {CONF_BACKEND: "ollama", CONF_URL: keyed_llm.url, CONF_API_KEY: "wrong"},
            "invalid_auth",
        ),
        ({CONF_BACKEND: "openai", CONF_URL: empty.url}, "no_models"),
    ]
    try:
        for user_input, error in cases:
            result = await hass.config_entries.flow.async_configure(
                flow["flow_id"], user_input
            )
            assert result["type"] is FlowResultType.FORM, user_input
            assert result["errors"] == {"base": error}, user_input
    finally:
        await empty.stop()

    with patch(
        "custom_components.jarvis.engine.llm.openai_client.OpenAIClient.list_models",
        side_effect=RuntimeError("boom"),
    ):
        result = await hass.config_entries.flow.async_configure(
            flow["flow_id"], {CONF_BACKEND: "openai", CONF_URL: scripted_llm.url}
        )
    assert result["errors"] == {"base": "unknown"}

    result = await hass.config_entries.flow.async_configure(
        flow["flow_id"],
        {CONF_BACKEND: "openai", CONF_URL: keyed_llm.url, CONF_API_KEY: "secret"},
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"][CONF_API_KEY] == "secret"
    entry = hass.config_entries.async_entries(DOMAIN)[0]
    assert next(iter(entry.subentries.values())).data[CONF_MODEL] == "qwen-small"


async def test_same_server_twice_is_aborted(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    make_entry(scripted_llm.url).add_to_hass(hass)
    flow = await start_user_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        flow["flow_id"], {CONF_BACKEND: "openai", CONF_URL: scripted_llm.url}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"


async def test_reconfigure_changes_server(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, keyed_llm: ScriptedLLMServer
) -> None:
    entry = make_entry(scripted_llm.url)
    entry.add_to_hass(hass)
    await hass.config_entries.async_setup(entry.entry_id)
    result = await entry.start_reconfigure_flow(hass)
    assert result["step_id"] == "reconfigure"

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_BACKEND: "openai", CONF_URL: keyed_llm.url}
    )
    assert result["errors"] == {"base": "invalid_auth"}
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"],
        {CONF_BACKEND: "openai", CONF_URL: keyed_llm.url, CONF_API_KEY: "secret"},
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    assert entry.data[CONF_URL] == keyed_llm.url
    assert entry.state is ConfigEntryState.LOADED


async def test_refused_key_starts_reauth(
    hass: HomeAssistant, keyed_llm: ScriptedLLMServer
) -> None:
    entry = make_entry(keyed_llm.url, api_key="old")
    entry.add_to_hass(hass)
    await hass.config_entries.async_setup(entry.entry_id)
    assert entry.state is ConfigEntryState.SETUP_ERROR

    (flow,) = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert flow["step_id"] == "reauth_confirm"
    result = await hass.config_entries.flow.async_configure(
        flow["flow_id"], {CONF_API_KEY: "still wrong"}
    )
    assert result["errors"] == {"base": "invalid_auth"}
    result = await hass.config_entries.flow.async_configure(
        flow["flow_id"], {CONF_API_KEY: "secret"}
    )
    await hass.async_block_till_done()
    assert result["reason"] == "reauth_successful"
    assert entry.data[CONF_API_KEY] == "secret"
    assert entry.state is ConfigEntryState.LOADED


async def test_server_down_at_startup_retries(
    hass: HomeAssistant, socket_enabled: None
) -> None:
    entry = make_entry(closed_port_url())
    entry.add_to_hass(hass)
    await hass.config_entries.async_setup(entry.entry_id)
    assert entry.state is ConfigEntryState.SETUP_RETRY


async def test_agent_subentry_add_and_reconfigure(
    hass: HomeAssistant, keyed_llm: ScriptedLLMServer
) -> None:
    entry = make_entry(keyed_llm.url, api_key="secret")
    entry.add_to_hass(hass)
    await hass.config_entries.async_setup(entry.entry_id)

    result = await hass.config_entries.subentries.async_init(
        (entry.entry_id, SUBENTRY_CONVERSATION),
        context={"source": config_entries.SOURCE_USER},
    )
    assert result["type"] is FlowResultType.FORM
    model_selector = result["data_schema"].schema[CONF_MODEL]
    assert model_selector.config["options"] == ["qwen-small", "qwen-big"]

    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"],
        {
            CONF_NAME: "Kitchen butler",
            CONF_MODEL: "qwen-big",
            CONF_PROMPT: "Be brief.",
            CONF_LLM_HASS_API: ["assist"],
            CONF_MAX_TURNS: 4,
            CONF_TEMPERATURE: 0.4,
            CONF_TOP_P: 0.95,
            CONF_MAX_TOKENS: 300,
        },
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    added = next(s for s in entry.subentries.values() if s.title == "Kitchen butler")
    assert added.data[CONF_MODEL] == "qwen-big"
    assert added.data[CONF_MAX_TURNS] == 4
    assert (added.data[CONF_TEMPERATURE], added.data[CONF_TOP_P]) == (0.4, 0.95)
    assert added.data[CONF_MAX_TOKENS] == 300
    states = hass.states.async_entity_ids("conversation")
    assert len([s for s in states if "butler" in s]) == 1

    result = await entry.start_subentry_reconfigure_flow(hass, added.subentry_id)
    assert result["step_id"] == "set_options"
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], {CONF_MODEL: "qwen-small", CONF_MAX_TURNS: 2}
    )
    await hass.async_block_till_done()
    assert result["reason"] == "reconfigure_successful"
    reconfigured = entry.subentries[added.subentry_id].data
    assert reconfigured[CONF_MODEL] == "qwen-small"
    # Emptied sampling fields go back to the engine's choice.
    assert CONF_TEMPERATURE not in reconfigured
    assert reconfigured[CONF_MAX_TOKENS] == 512


@pytest.mark.parametrize(
    ("down_at_setup", "reason"), [(True, "entry_not_loaded"), (False, "cannot_connect")]
)
async def test_agent_subentry_needs_the_server(
    hass: HomeAssistant, socket_enabled: None, down_at_setup: bool, reason: str
) -> None:
    server = ScriptedLLMServer()
    await server.start()
    if down_at_setup:
        await server.stop()
    entry = make_entry(server.url)
    entry.add_to_hass(hass)
    await hass.config_entries.async_setup(entry.entry_id)
    assert (entry.state is ConfigEntryState.LOADED) is not down_at_setup
    # A loaded entry whose server stopped answering cannot list the models.
    await server.stop()

    result = await hass.config_entries.subentries.async_init(
        (entry.entry_id, SUBENTRY_CONVERSATION),
        context={"source": config_entries.SOURCE_USER},
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == reason


async def test_mcp_subentry_reconfigure_checks_before_saving(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    start_mcp: StartMcp,  # noqa: F811 - the fixture imported above
) -> None:
    server = await start_mcp()
    entry = await setup_jarvis(
        hass, scripted_llm, subentries=[mcp_subentry(server.url)]
    )
    (subentry_id,) = (
        s.subentry_id
        for s in entry.subentries.values()
        if s.subentry_type == SUBENTRY_MCP_SERVER
    )
    result = await entry.start_subentry_reconfigure_flow(hass, subentry_id)
    assert result["step_id"] == "reconfigure"
    flow_id = result["flow_id"]
    configure = hass.config_entries.subentries.async_configure

    result = await configure(flow_id, {CONF_URL: "not a url"})
    assert result["errors"] == {"base": "invalid_url"}
    with patch(
        "custom_components.jarvis.engine.mcp_client.McpClient.list_tools",
        side_effect=RuntimeError("boom"),
    ):
        result = await configure(flow_id, {CONF_URL: server.url})
    assert result["errors"] == {"base": "unknown"}

    result = await configure(
        flow_id, {CONF_URL: server.url, CONF_HEADERS: "X-Home: kitchen"}
    )
    await hass.async_block_till_done()
    assert result["reason"] == "reconfigure_successful"
    data = entry.subentries[subentry_id].data
    assert (data[CONF_HEADERS], data[CONF_TRANSPORT]) == (
        "X-Home: kitchen",
        "streamable_http",
    )


async def test_unload_and_reload(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    entry = make_entry(scripted_llm.url, backend="ollama")
    entry.add_to_hass(hass)
    await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    (entity_id,) = hass.states.async_entity_ids("conversation")[-1:]

    assert await hass.config_entries.async_unload(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.NOT_LOADED
    assert hass.states.get(entity_id).state == "unavailable"

    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED
    assert hass.states.get(entity_id).state != "unavailable"
