"""Diagnostics with secrets redacted: keys and tokens by name, and every text
as logs are (URL credentials, codes, card numbers)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from homeassistant.components.diagnostics import async_redact_data
from homeassistant.core import HomeAssistant

from . import JarvisConfigEntry
from .const import CONF_API_KEY, CONF_HEADERS, CONF_TOKEN
from .engine.redact import redact_data

TO_REDACT = {CONF_API_KEY, CONF_TOKEN, CONF_HEADERS}


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant, entry: JarvisConfigEntry
) -> dict[str, Any]:
    """The server entry, its agents and MCP servers, without keys or tokens.

    Turn records were redacted when kept (what was said, tool arguments).
    """
    telemetry = entry.runtime_data.telemetry
    status = entry.runtime_data.monitor.data
    diagnostics: dict[str, Any] = {
        "entry": entry.as_dict(),
        "backend": entry.runtime_data.client.backend,
        "server": asdict(status) if status else None,
        "recent_turns": {
            subentry_id: [record.as_dict() for record in records]
            for subentry_id, records in telemetry.turns.items()
        },
        "mcp_servers": {
            subentry_id: {
                "available": server.available,
                "transport": server.client.transport,
                "tools": [tool.tool.name for tool in server.tools],
                "last_error": server.last_error,
            }
            for subentry_id, server in entry.runtime_data.mcp.items()
        },
    }
    # Keys by name last, so they read as Home Assistant's own redaction.
    return async_redact_data(redact_data(diagnostics), TO_REDACT)
