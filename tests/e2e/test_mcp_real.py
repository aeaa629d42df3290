"""The real Qwen2.5-Coder 0.5B model answers from a tool only an MCP server has.

A real FastMCP server on loopback (tests/tools/mcp_server.py) is a subentry of
the Jarvis entry; the agent runs with its default settings.
"""

from __future__ import annotations

import time

from homeassistant.core import HomeAssistant
import pytest

from custom_components.jarvis.config_flow import default_agent_data
from scripts.llm_server import LlamaServer
from tests.common import async_add_jarvis_agent
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
    _, agent = await async_add_jarvis_agent(
        hass,
        llama_server.url,
        default_agent_data(llama_server.alias),
        mcp_subentry(server.url),
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
