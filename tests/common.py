"""Shared test helpers."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.jarvis.config_flow import JarvisConfigFlow
from custom_components.jarvis.const import (
    CONF_API_KEY,
    CONF_BACKEND,
    CONF_URL,
    DOMAIN,
    SUBENTRY_CONVERSATION,
)


async def async_setup_demo_lights(hass: HomeAssistant) -> None:
    """The demo integration's lights only.

    The full demo also starts cameras that look for ffmpeg in executor threads,
    which can outlive a test on a loaded machine and fail HA's cleanup check.
    """
    with (
        patch(
            "homeassistant.components.demo.COMPONENTS_WITH_CONFIG_ENTRY_DEMO_PLATFORM",
            [Platform.LIGHT],
        ),
        patch("homeassistant.components.demo.COMPONENTS_WITH_DEMO_PLATFORM", []),
    ):
        assert await async_setup_component(hass, "demo", {"demo": {}})
        await hass.async_block_till_done()


async def async_add_jarvis_agent(
    hass: HomeAssistant,
    url: str,
    agent: dict[str, Any],
    *subentries: ConfigSubentryData,
    options: dict[str, Any] | None = None,
) -> tuple[MockConfigEntry, str]:
    """A Jarvis entry on the OpenAI-compatible server at `url` with one agent
    (settings `agent`), any other `subentries` and entry `options`: the entry
    and the agent's entity id."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        minor_version=JarvisConfigFlow.MINOR_VERSION,
        data={CONF_BACKEND: "openai", CONF_URL: url, CONF_API_KEY: ""},
        options=options or {},
        subentries_data=[
            ConfigSubentryData(
                data=agent,
                subentry_type=SUBENTRY_CONVERSATION,
                title="Jarvis",
                unique_id=None,
            ),
            *subentries,
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    # The agent is the first subentry; its entity's unique id is the subentry id.
    agent_id = er.async_get(hass).async_get_entity_id(
        "conversation", DOMAIN, next(iter(entry.subentries))
    )
    assert agent_id is not None
    return entry, agent_id
