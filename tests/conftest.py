"""Test rig: a real Home Assistant via pytest-homeassistant-custom-component."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
import pytest

# Import before the `hass` fixture runs so HA finds this tree's custom_components,
# not the test package's own (docs/DEVELOPMENT.md, test-rig gotcha).
import custom_components.jarvis  # noqa: F401
from scripts.ha_compat import alias_micro_vad
from tests.scripted_llm import scripted_llm  # noqa: F401

# Every test instance's Assist pipeline gets the VAD `make run`'s HA gets.
alias_micro_vad()


@pytest.fixture
async def ha_core(hass: HomeAssistant, enable_custom_integrations: None) -> None:
    """Home Assistant's core integration (conversation needs it) and custom ones."""
    assert await async_setup_component(hass, "homeassistant", {})
