"""Diagnostics with secrets redacted."""

from __future__ import annotations

from typing import Any

from homeassistant.components.diagnostics import async_redact_data
from homeassistant.core import HomeAssistant

from . import JarvisConfigEntry
from .const import CONF_API_KEY

TO_REDACT = {CONF_API_KEY}


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant, entry: JarvisConfigEntry
) -> dict[str, Any]:
    """The server entry and its agents, without the API key."""
    return {
        "entry": async_redact_data(entry.as_dict(), TO_REDACT),
        "backend": entry.runtime_data.client.backend,
    }
