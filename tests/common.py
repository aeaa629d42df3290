"""Shared test helpers."""

from __future__ import annotations

from unittest.mock import patch

from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component


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
