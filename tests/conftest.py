"""Test rig: a real Home Assistant via pytest-homeassistant-custom-component."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

# Import before the `hass` fixture runs so HA finds this tree's custom_components,
# not the test package's own (see DEVKIT's test-rig gotcha).
import custom_components.jarvis  # noqa: F401
from tests.scripted_llm import scripted_llm  # noqa: F401


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(enable_custom_integrations: None) -> Iterator[None]:
    """Let HA load custom integrations in every test."""
    yield
