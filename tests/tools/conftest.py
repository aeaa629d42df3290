"""Fixtures for Jarvis's tools: a demo home, a Jarvis entry, real MCP servers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
import json
import os
from pathlib import Path
import sys
from typing import Any
from unittest.mock import patch

from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
)
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import entity_registry as er, llm
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.jarvis.const import (
    CONF_MODEL,
    CONF_PREFER_LOCAL,
    CONF_TOOL_ROUTER,
    DOMAIN,
    LLM_API_JARVIS,
)
from tests.common import async_add_jarvis_agent
from tests.scripted_llm import ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]
KITCHEN = "light.kitchen_lights"
FRONT_DOOR = "lock.front_door"
GARAGE = "cover.garage_door"
# For the servers: the tests' own (with mcp 2 in it, the servers run mcp 2 too).
PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))


@dataclass
class McpProcess:
    """A running test MCP server."""

    process: asyncio.subprocess.Process
    port: int
    transport: str

    @property
    def url(self) -> str:
        """The endpoint for its transport."""
        path = "sse" if self.transport == "sse" else "mcp"
        return f"http://127.0.0.1:{self.port}/{path}"

    async def next_call(self) -> tuple[str, dict[str, Any]]:
        """The next call the server recorded (tools that print theirs)."""
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), 5)
        kind, name, args = line.decode().split(" ", 2)
        assert kind == "CALL", line
        return name, json.loads(args)

    async def stop(self) -> None:
        """Kill it (a server dying, not shutting down)."""
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


type StartMcp = Callable[..., Awaitable[McpProcess]]


@pytest.fixture
async def start_mcp(socket_enabled: None) -> AsyncIterator[StartMcp]:
    """Start real FastMCP servers on loopback; all are killed after the test."""
    running: list[McpProcess] = []

    async def start(
        transport: str = "streamable_http",
        *,
        token: str | None = None,
        name: str = "Test tools",
        port: int = 0,
    ) -> McpProcess:
        args = ["--transport", transport, "--name", name, "--port", str(port)]
        if token:
            args += ["--token", token]
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.tools.mcp_server",
            *args,
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": PYTHONPATH},
        )
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), 30)
        server = McpProcess(process, int(line.split()[1]), transport)
        running.append(server)
        return server

    yield start
    for server in running:
        await server.stop()


@pytest.fixture
async def jarvis_domain(hass: HomeAssistant, ha_core: None) -> None:
    """Jarvis's domain set up (its LLM API registered) without any entry."""
    assert await async_setup_component(hass, DOMAIN, {})


@pytest.fixture(autouse=True)
def fast_demo_locks() -> Any:
    """The demo locks wait 2 s per action; tests need not."""
    with patch("homeassistant.components.demo.lock.LOCK_UNLOCK_DELAY", 0):
        yield


async def setup_home(hass: HomeAssistant) -> None:
    """The demo home, with its locks exposed to conversation agents."""
    assert await async_setup_component(hass, "demo", {"demo": {}})
    await hass.async_block_till_done()
    for entity_id in hass.states.async_entity_ids("lock"):
        async_expose_entity(hass, "conversation", entity_id, True)
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": KITCHEN}, blocking=True
    )


async def setup_jarvis(
    hass: HomeAssistant,
    llm_server: ScriptedLLMServer,
    *,
    subentries: list[ConfigSubentryData] | None = None,
    options: dict[str, Any] | None = None,
    prefer_local: bool = False,
) -> MockConfigEntry:
    """A Jarvis entry whose agent uses Assist and the Jarvis tools (and HA's
    matcher first if `prefer_local`)."""
    entry, _ = await async_add_jarvis_agent(
        hass,
        llm_server.url,
        {
            CONF_MODEL: "test-model",
            CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, LLM_API_JARVIS],
            # The scripted model, not HA's intent matcher or the tool router,
            # decides which tool runs: the tests are about tools.
            CONF_PREFER_LOCAL: prefer_local,
            CONF_TOOL_ROUTER: False,
        },
        *(subentries or []),
        options=options,
    )
    return entry


def llm_context(context: Context | None = None) -> llm.LLMContext:
    """What a conversation agent passes to its LLM API."""
    return llm.LLMContext(
        platform=DOMAIN,
        context=context or Context(),
        language="en",
        assistant="conversation",
        device_id=None,
    )


async def call_tool(
    hass: HomeAssistant,
    name: str,
    args: dict[str, Any] | None = None,
    context: Context | None = None,
) -> dict[str, Any]:
    """Call a tool of the `jarvis` API as Home Assistant's chat log does."""
    api = await llm.async_get_api(hass, LLM_API_JARVIS, llm_context(context))
    return dict(await api.async_call_tool(llm.ToolInput(name, args or {})))


async def tool_names(hass: HomeAssistant) -> list[str]:
    """The `jarvis` API's catalogue now."""
    api = await llm.async_get_api(hass, LLM_API_JARVIS, llm_context())
    return [tool.name for tool in api.tools]


@pytest.fixture
async def agent_id(hass: HomeAssistant, scripted_llm: ScriptedLLMServer) -> str:
    """The demo home and Jarvis with HA's matcher first."""
    await setup_home(hass)
    entry = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    agent = er.async_get(hass).async_get_entity_id(
        "conversation", "jarvis", next(iter(entry.subentries))
    )
    assert agent is not None
    return agent
