"""A problem sensor per LLM server: on while Jarvis cannot reach it."""

from __future__ import annotations

from homeassistant.components.binary_sensor import (
    BinarySensorDeviceClass,
    BinarySensorEntity,
)
from homeassistant.const import EntityCategory
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.helpers.update_coordinator import CoordinatorEntity

from . import JarvisConfigEntry
from .const import BACKEND_OLLAMA, CONF_BACKEND, DOMAIN
from .coordinator import ServerMonitor

# The coordinator does the polling.
PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: JarvisConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """The entry's LLM server monitor, as a problem sensor."""
    async_add_entities([ServerProblemSensor(entry.runtime_data.monitor, entry)])


class ServerProblemSensor(CoordinatorEntity[ServerMonitor], BinarySensorEntity):
    """On when the LLM server does not answer or lists no models."""

    _attr_has_entity_name = True
    _attr_translation_key = "server_problem"
    _attr_device_class = BinarySensorDeviceClass.PROBLEM
    _attr_entity_category = EntityCategory.DIAGNOSTIC

    def __init__(self, monitor: ServerMonitor, entry: JarvisConfigEntry) -> None:
        """The server is a service device of its own, beside the agents."""
        super().__init__(monitor)
        self._attr_unique_id = f"{entry.entry_id}_server_problem"
        self._attr_device_info = dr.DeviceInfo(
            identifiers={(DOMAIN, entry.entry_id)},
            name=entry.title,
            manufacturer="Jarvis",
            model="Ollama"
            if entry.data[CONF_BACKEND] == BACKEND_OLLAMA
            else "OpenAI-compatible server",
            entry_type=dr.DeviceEntryType.SERVICE,
        )

    @property
    def is_on(self) -> bool:
        """A problem while the server is unreachable."""
        return not self.coordinator.data.reachable
