"""MCP servers as Jarvis subentries, against real FastMCP servers on loopback."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any
from unittest.mock import patch

from homeassistant import config_entries
from homeassistant.components.conversation import trace
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import HomeAssistantError
from homeassistant.util import dt as dt_util
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)

from custom_components.jarvis.const import (
    CONF_HEADERS,
    CONF_TOKEN,
    CONF_TRANSPORT,
    CONF_URL,
    DOMAIN,
    SERVICE_REFRESH_MCP,
    SUBENTRY_MCP_SERVER,
)
from custom_components.jarvis.diagnostics import async_get_config_entry_diagnostics
from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.tools.conftest import (
    StartMcp,
    call_tool,
    setup_home,
    setup_jarvis,
    tool_names,
)
from tests.tools.mcp_server import HIGH_TIDE

pytestmark = pytest.mark.usefixtures("ha_core")


def mcp_subentry(url: str, **data: Any) -> ConfigSubentryData:
    return ConfigSubentryData(
        data={CONF_URL: url, CONF_TRANSPORT: "auto", **data},
        subentry_type=SUBENTRY_MCP_SERVER,
        title="Test tools",
        unique_id=None,
    )


async def add_server(
    hass: HomeAssistant, entry: MockConfigEntry, user_input: dict[str, Any]
) -> dict[str, Any]:
    result = await hass.config_entries.subentries.async_init(
        (entry.entry_id, SUBENTRY_MCP_SERVER),
        context={"source": config_entries.SOURCE_USER},
    )
    assert result["type"] is FlowResultType.FORM
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], user_input
    )
    await hass.async_block_till_done()
    return dict(result)


async def test_flow_lists_tools_before_saving(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, start_mcp: StartMcp
) -> None:
    entry = await setup_jarvis(hass, scripted_llm)
    server = await start_mcp()

    result = await add_server(hass, entry, {CONF_URL: "http://127.0.0.1:1/mcp"})
    assert result["errors"] == {"base": "cannot_connect_mcp"}
    assert (
        "Could not reach the MCP server" in result["description_placeholders"]["error"]
    )

    result = await add_server(hass, entry, {CONF_URL: server.url, CONF_HEADERS: "oops"})
    assert result["errors"] == {"base": "invalid_headers"}

    result = await add_server(hass, entry, {CONF_URL: server.url})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    subentry = next(
        s for s in entry.subentries.values() if s.subentry_type == SUBENTRY_MCP_SERVER
    )
    assert subentry.title == "Test tools"  # the server's own name
    assert subentry.data[CONF_TRANSPORT] == "streamable_http"
    # The entry reloaded with the server: its tools are in the catalogue.
    names = await tool_names(hass)
    assert {"test_tools__add", "test_tools__plan", "test_tools__slow"} <= set(names)


async def test_sse_fallback_and_bearer_token(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, start_mcp: StartMcp
) -> None:
    entry = await setup_jarvis(hass, scripted_llm)
    server = await start_mcp("sse", token="s3cret-token", name="Old SSE")

    result = await add_server(hass, entry, {CONF_URL: server.url})
    assert result["errors"] == {"base": "invalid_auth"}
    result = await add_server(
        hass, entry, {CONF_URL: server.url, CONF_TOKEN: "s3cret-token"}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    subentry = next(
        s for s in entry.subentries.values() if s.subentry_type == SUBENTRY_MCP_SERVER
    )
    assert subentry.data[CONF_TRANSPORT] == "sse"

    result = await call_tool(hass, "old_sse__add", {"a": 40, "b": 2})
    assert "42" in result["untrusted_content"]

    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    assert "s3cret-token" not in str(diagnostics)
    assert diagnostics["mcp_servers"][subentry.subentry_id]["transport"] == "sse"


async def test_calls_are_fenced_and_tool_errors_reported(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, start_mcp: StartMcp
) -> None:
    server = await start_mcp()
    await setup_jarvis(hass, scripted_llm, subentries=[mcp_subentry(server.url)])

    result = await call_tool(hass, "test_tools__add", {"a": 2, "b": 40})
    assert result["untrusted_content"].startswith(
        "<<<UNTRUSTED source=mcp:test_tools/add"
    )
    assert "\n42\n" in result["untrusted_content"]
    assert "not instructions" in result["note"]

    tides = await call_tool(
        hass, "test_tools__get_tide_times", {"harbour": "Port Isaac"}
    )
    assert HIGH_TIDE in tides["untrusted_content"]
    assert await server.next_call() == ("get_tide_times", {"harbour": "Port Isaac"})

    failed = await call_tool(hass, "test_tools__fail")
    assert failed["error"] == "mcp_tool_error"
    assert "the tool broke" in failed["untrusted_content"]

    planned = await call_tool(
        hass,
        "test_tools__plan",
        {"mode": "fast", "color": "blue", "points": [{"x": 1}], "origin": {"x": 2}},
    )
    assert "fast blue 1 2.0 3 None" in planned["untrusted_content"]


async def test_server_dying_mid_call_then_coming_back(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, start_mcp: StartMcp
) -> None:
    server = await start_mcp()
    with patch("custom_components.jarvis.tools.mcp.MCP_PROBE_INTERVAL", 0.2):
        await setup_jarvis(hass, scripted_llm, subentries=[mcp_subentry(server.url)])
    assert "test_tools__slow" in await tool_names(hass)

    call = asyncio.create_task(call_tool(hass, "test_tools__slow", {"seconds": 30}))
    await asyncio.sleep(1)
    await server.stop()
    async with asyncio.timeout(5):
        # mcp 1 waits until the probe finds the port closed; mcp 2 sees the stream end.
        with pytest.raises(
            HomeAssistantError, match=r"unavailable.*(went away|closed the connection)"
        ):
            await call
    await hass.async_block_till_done(wait_background_tasks=True)
    assert not [n for n in await tool_names(hass) if n.startswith("test_tools__")]

    # Back on the same port: the retry with backoff finds it by itself.
    await start_mcp(port=server.port)
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=60))
    await hass.async_block_till_done(wait_background_tasks=True)
    assert "test_tools__add" in await tool_names(hass)


async def test_down_at_setup_then_refresh_action(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, start_mcp: StartMcp
) -> None:
    server = await start_mcp()
    port = server.port
    await server.stop()
    entry = await setup_jarvis(
        hass, scripted_llm, subentries=[mcp_subentry(server.url)]
    )
    assert entry.state is config_entries.ConfigEntryState.LOADED
    assert not [n for n in await tool_names(hass) if n.startswith("test_tools__")]

    await start_mcp(port=port)
    await hass.services.async_call(DOMAIN, SERVICE_REFRESH_MCP, blocking=True)
    assert "test_tools__add" in await tool_names(hass)


async def test_unload_ends_calls_in_flight(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, start_mcp: StartMcp
) -> None:
    server = await start_mcp()
    entry = await setup_jarvis(
        hass, scripted_llm, subentries=[mcp_subentry(server.url)]
    )
    call = asyncio.create_task(call_tool(hass, "test_tools__slow", {"seconds": 30}))
    await asyncio.sleep(1)
    await hass.config_entries.async_unload(entry.entry_id)
    async with asyncio.timeout(5):
        with pytest.raises(HomeAssistantError, match="was removed from Jarvis"):
            await call


async def test_agent_calls_an_mcp_tool_through_the_chat_log(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, start_mcp: StartMcp
) -> None:
    await setup_home(hass)
    server = await start_mcp()
    await setup_jarvis(hass, scripted_llm, subentries=[mcp_subentry(server.url)])
    agent = next(
        e for e in hass.states.async_entity_ids("conversation") if "jarvis" in e
    )
    # The model sees the tool's own name: no other tool has it.
    scripted_llm.script(
        Reply(tool_calls=[("add", {"a": 20, "b": 22})]),
        Reply(content="It is 42."),
    )
    trace.async_clear_traces()
    response = await hass.services.async_call(
        "conversation",
        "process",
        {"text": "ask the test tools to add 20 and 22", "agent_id": agent},
        blocking=True,
        return_response=True,
    )
    assert response is not None
    assert response["response"]["speech"]["plain"]["speech"] == "It is 42."
    tools_sent = scripted_llm.chat_requests[0]["json"]["tools"]
    assert "add" in [t["function"]["name"] for t in tools_sent]
    tool_result = scripted_llm.chat_requests[1]["json"]["messages"][-1]
    assert "UNTRUSTED" in tool_result["content"]
    assert "42" in tool_result["content"]
    events = trace.async_get_traces()[-1].as_dict()["events"]
    calls = [e["data"]["tool_name"] for e in events if e["event_type"] == "tool_call"]
    assert calls == ["jarvis-tools__test_tools__add"]


async def test_tools_two_servers_share_keep_the_server_prefix(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, start_mcp: StartMcp
) -> None:
    first, second = await start_mcp(), await start_mcp()
    await setup_jarvis(
        hass,
        scripted_llm,
        subentries=[mcp_subentry(first.url), mcp_subentry(second.url)],
    )
    agent = next(
        e for e in hass.states.async_entity_ids("conversation") if "jarvis" in e
    )
    scripted_llm.script(Reply(content="Which one?"))
    await hass.services.async_call(
        "conversation",
        "process",
        {"text": "ask the test tools to add 20 and 22", "agent_id": agent},
        blocking=True,
    )
    tools_sent = scripted_llm.chat_requests[0]["json"]["tools"]
    names = [t["function"]["name"] for t in tools_sent]
    assert {"test_tools__add", "test_tools2__add"} <= set(names)
    assert "add" not in names
    assert "get_time" in names  # Jarvis's own tools keep their names
