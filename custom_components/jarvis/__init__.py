"""Jarvis: a private, local conversation agent for Home Assistant."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import MappingProxyType

from homeassistant.config_entries import ConfigEntry, ConfigSubentry
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryAuthFailed, ConfigEntryNotReady
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.typing import ConfigType
from homeassistant.util.ssl import get_default_context

from .const import (
    CONF_API_KEY,
    CONF_BACKEND,
    CONF_MODEL,
    CONF_SENSITIVE,
    CONF_URL,
    CONNECT_TIMEOUT,
    DEFAULT_AI_TASK_NAME,
    DOMAIN,
    SENSITIVE_KINDS,
    SUBENTRY_AI_TASK,
    SUBENTRY_CONVERSATION,
    SUBENTRY_MCP_SERVER,
)
from .coordinator import ServerMonitor
from .engine.budget import TokenEstimator
from .engine.llm import create_client
from .engine.llm.base import LLMAuthError, LLMClient, LLMError
from .engine.loop import ProtocolMemory
from .engine.redact import public_url
from .memory import async_setup_services as async_setup_memory_services
from .safety.pipelines import async_watch_pipelines
from .telemetry import Telemetry
from .tools import async_setup_tools
from .tools.mcp import McpServer

PLATFORMS = (
    Platform.AI_TASK,
    Platform.BINARY_SENSOR,
    Platform.CONVERSATION,
    Platform.SENSOR,
)
CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)


@dataclass(slots=True)
class JarvisData:
    """What a loaded LLM-server entry holds."""

    client: LLMClient
    # Recent turns of the agents, sent on the entry's dispatcher signal.
    telemetry: Telemetry
    # The server's health: checked every minute and by every turn.
    monitor: ServerMonitor
    # Models of this server that fell back to the text tool protocol.
    protocols: ProtocolMemory = field(default_factory=ProtocolMemory)
    # MCP servers of this entry, by subentry id; their tools join the `jarvis` API.
    mcp: dict[str, McpServer] = field(default_factory=dict)
    # Characters per token of this server's models, learnt from its counts.
    tokens: TokenEstimator = field(default_factory=TokenEstimator)


type JarvisConfigEntry = ConfigEntry[JarvisData]


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    """Set up the Jarvis domain: the `jarvis` LLM API and its shared state."""
    await async_setup_tools(hass)
    async_setup_memory_services(hass)
    return True


async def async_migrate_entry(hass: HomeAssistant, entry: JarvisConfigEntry) -> bool:
    """Entries from before AI Task get an AI task entity on their first
    agent's model, as new entries do."""
    if entry.version > 1:
        return False  # from a newer Jarvis: a downgrade
    if entry.minor_version < 2:
        models = [
            subentry.data[CONF_MODEL]
            for subentry in entry.subentries.values()
            if subentry.subentry_type == SUBENTRY_CONVERSATION
        ]
        has_task = any(
            subentry.subentry_type == SUBENTRY_AI_TASK
            for subentry in entry.subentries.values()
        )
        if models and not has_task:
            hass.config_entries.async_add_subentry(
                entry,
                ConfigSubentry(
                    data=MappingProxyType({CONF_MODEL: models[0]}),
                    subentry_type=SUBENTRY_AI_TASK,
                    title=DEFAULT_AI_TASK_NAME,
                    unique_id=None,
                ),
            )
        hass.config_entries.async_update_entry(entry, minor_version=2)
    return True


def build_client(hass: HomeAssistant, data: dict[str, str]) -> LLMClient:
    """An LLM client for an entry's data, on Home Assistant's shared HTTP session."""
    return create_client(
        data[CONF_BACKEND],
        data[CONF_URL],
        data.get(CONF_API_KEY) or None,
        session=async_get_clientsession(hass),
        # A prebuilt context: httpx would otherwise load certificates in the loop.
        verify_ssl=get_default_context(),
    )


async def async_setup_entry(hass: HomeAssistant, entry: JarvisConfigEntry) -> bool:
    """Connect to the LLM server and set up the agents."""
    client = build_client(hass, dict(entry.data))
    try:
        async with asyncio.timeout(CONNECT_TIMEOUT):
            await client.list_models()
    except LLMAuthError as err:
        await client.close()
        raise ConfigEntryAuthFailed(
            translation_domain=DOMAIN, translation_key="invalid_auth"
        ) from err
    except (LLMError, TimeoutError) as err:
        await client.close()
        raise ConfigEntryNotReady(
            translation_domain=DOMAIN,
            translation_key="cannot_connect",
            translation_placeholders={"url": public_url(entry.data[CONF_URL])},
        ) from err

    entry.runtime_data = JarvisData(
        client, Telemetry(hass, entry.entry_id), ServerMonitor(hass, entry, client)
    )
    await _async_start_mcp_servers(hass, entry)
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    entry.async_on_unload(entry.add_update_listener(_async_reload_on_update))
    kinds = entry.options.get(CONF_SENSITIVE, SENSITIVE_KINDS)
    entry.async_on_unload(async_watch_pipelines(hass, kinds))
    return True


async def async_unload_entry(hass: HomeAssistant, entry: JarvisConfigEntry) -> bool:
    """Unload the agents and release the client."""
    if not await hass.config_entries.async_unload_platforms(entry, PLATFORMS):
        return False
    for server in entry.runtime_data.mcp.values():
        server.async_stop()
    # The server check uses the client: stop it first.
    await entry.runtime_data.monitor.async_shutdown()
    await entry.runtime_data.client.close()
    return True


async def _async_start_mcp_servers(
    hass: HomeAssistant, entry: JarvisConfigEntry
) -> None:
    """List each MCP server's tools; servers that are down retry in the background."""
    servers = {
        subentry_id: McpServer(hass, entry, subentry)
        for subentry_id, subentry in entry.subentries.items()
        if subentry.subentry_type == SUBENTRY_MCP_SERVER
    }
    entry.runtime_data.mcp = servers
    await asyncio.gather(*(server.async_start() for server in servers.values()))


async def _async_reload_on_update(
    hass: HomeAssistant, entry: JarvisConfigEntry
) -> None:
    """Agents and server settings take effect through a reload."""
    await hass.config_entries.async_reload(entry.entry_id)
