"""Shared test helpers."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

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
) -> tuple[MockConfigEntry, str]:
    """A Jarvis entry on the OpenAI-compatible server at `url` with one agent
    (settings `agent`) and any other `subentries`: the entry and the agent's
    entity id."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        data={CONF_BACKEND: "openai", CONF_URL: url, CONF_API_KEY: ""},
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
    agent_id = next(
        e for e in hass.states.async_entity_ids("conversation") if "jarvis" in e
    )
    return entry, agent_id
