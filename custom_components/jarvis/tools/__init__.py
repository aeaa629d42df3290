"""Jarvis's tool catalogue, registered as a Home Assistant LLM API."""

from __future__ import annotations

import asyncio

from homeassistant.core import HomeAssistant, ServiceCall
from homeassistant.helpers import llm

from ..const import DOMAIN, SERVICE_REFRESH_MCP
from .api import new_api
from .hub import DATA_TOOLS, JarvisTools


async def async_setup_tools(hass: HomeAssistant) -> None:
    """Register the `jarvis` API and the refresh action; re-arm scheduled actions."""
    hub = JarvisTools(hass)
    hass.data[DATA_TOOLS] = hub
    llm.async_register_api(hass, new_api(hass, hub))
    await hub.scheduler.async_start()

    async def refresh_mcp(call: ServiceCall) -> None:
        """List every MCP server's tools again (servers that are back return)."""
        await asyncio.gather(*(server.async_refresh() for server in hub.mcp_servers()))

    hass.services.async_register(DOMAIN, SERVICE_REFRESH_MCP, refresh_mcp)
