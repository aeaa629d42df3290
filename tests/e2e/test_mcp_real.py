"""The real Qwen2.5-Coder 0.5B model answers from a tool only an MCP server has.

A real FastMCP server on loopback (tests/tools/mcp_server.py) is a subentry of
the Jarvis entry; the agent runs with its default settings.
"""

from __future__ import annotations

import time

from homeassistant.config_entries import ConfigSubentryData
from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.jarvis.config_flow import default_agent_data
from custom_components.jarvis.const import (
    CONF_API_KEY,
    CONF_BACKEND,
    CONF_URL,
    DOMAIN,
    SUBENTRY_CONVERSATION,
)
from scripts.llm_server import LlamaServer
from tests.tools.conftest import StartMcp, start_mcp  # noqa: F401 - the fixture
from tests.tools.mcp_server import HIGH_TIDE
from tests.tools.test_injection import converse
from tests.tools.test_mcp import mcp_subentry

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.usefixtures("ha_core", "socket_enabled"),
]


async def test_real_model_answers_from_an_mcp_tool(
    hass: HomeAssistant,
    llama_server: LlamaServer,
    start_mcp: StartMcp,  # noqa: F811 - the fixture imported above
) -> None:
    server = await start_mcp()
    entry = MockConfigEntry(
        domain=DOMAIN,
        data={CONF_BACKEND: "openai", CONF_URL: llama_server.url, CONF_API_KEY: ""},
        subentries_data=[
            ConfigSubentryData(
                data=default_agent_data(llama_server.alias),
                subentry_type=SUBENTRY_CONVERSATION,
                title="Jarvis",
                unique_id=None,
            ),
            mcp_subentry(server.url),
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    agent = next(
        e for e in hass.states.async_entity_ids("conversation") if "jarvis" in e
    )

    started = time.monotonic()
    response = await converse(hass, agent, "When is high tide in Port Isaac today?")
    reply = response["response"]["speech"]["plain"]["speech"]
    print(f"\nreal 0.5B: {time.monotonic() - started:.1f} s, reply: {reply!r}")

    name, args = await server.next_call()
    assert name == "get_tide_times"
    assert "isaac" in args["harbour"].lower()
    # The time is in the reply, however the model writes it ("04:37", "4:37 AM").
    assert HIGH_TIDE.lstrip("0") in reply
