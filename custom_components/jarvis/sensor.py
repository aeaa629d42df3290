"""Diagnostic sensors of each agent: how its last turn went, and turns today."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime

from homeassistant.components.sensor import (
    RestoreSensor,
    SensorDeviceClass,
    SensorEntityDescription,
    SensorStateClass,
)
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import EntityCategory, UnitOfTime
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.helpers.event import async_track_time_change
from homeassistant.util import dt as dt_util

from . import JarvisConfigEntry
from .const import DOMAIN, SUBENTRY_CONVERSATION
from .telemetry import Telemetry, TurnRecord

# State is pushed after each turn; nothing polls.
PARALLEL_UPDATES = 0


@dataclass(frozen=True, kw_only=True)
class LastTurnSensorDescription(SensorEntityDescription):
    """A sensor showing one number of the agent's last turn."""

    value_fn: Callable[[TurnRecord], float]


LAST_TURN_SENSORS = (
    LastTurnSensorDescription(
        key="last_response_time",
        translation_key="last_response_time",
        device_class=SensorDeviceClass.DURATION,
        native_unit_of_measurement=UnitOfTime.SECONDS,
        suggested_display_precision=1,
        state_class=SensorStateClass.MEASUREMENT,
        entity_category=EntityCategory.DIAGNOSTIC,
        value_fn=lambda record: round(record.duration, 3),
    ),
    # Mostly useful while tuning an agent: off unless asked for.
    LastTurnSensorDescription(
        key="last_llm_calls",
        translation_key="last_llm_calls",
        state_class=SensorStateClass.MEASUREMENT,
        entity_category=EntityCategory.DIAGNOSTIC,
        entity_registry_enabled_default=False,
        value_fn=lambda record: record.llm_calls,
    ),
    LastTurnSensorDescription(
        key="last_tokens",
        translation_key="last_tokens",
        native_unit_of_measurement="tokens",
        state_class=SensorStateClass.MEASUREMENT,
        entity_category=EntityCategory.DIAGNOSTIC,
        entity_registry_enabled_default=False,
        value_fn=lambda record: record.tokens,
    ),
)

TURNS_TODAY = SensorEntityDescription(
    key="turns_today",
    translation_key="turns_today",
    # A daily count: the drop at midnight reads as a reset.
    state_class=SensorStateClass.TOTAL_INCREASING,
    entity_category=EntityCategory.DIAGNOSTIC,
)


async def async_setup_entry(
    hass: HomeAssistant,
    entry: JarvisConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Telemetry sensors for every agent subentry."""
    telemetry = entry.runtime_data.telemetry
    for subentry in entry.subentries.values():
        if subentry.subentry_type != SUBENTRY_CONVERSATION:
            continue
        entities: list[AgentSensor] = [
            LastTurnSensor(telemetry, subentry, description)
            for description in LAST_TURN_SENSORS
        ]
        entities.append(TurnsTodaySensor(telemetry, subentry, TURNS_TODAY))
        async_add_entities(entities, config_subentry_id=subentry.subentry_id)


class AgentSensor(RestoreSensor):
    """A sensor on an agent's device that updates after each of its turns."""

    _attr_has_entity_name = True
    _attr_should_poll = False

    def __init__(
        self,
        telemetry: Telemetry,
        subentry: ConfigSubentry,
        description: SensorEntityDescription,
    ) -> None:
        """Attach to the agent's device, which its conversation entity describes."""
        self.entity_description = description
        self._telemetry = telemetry
        self._subentry_id = subentry.subentry_id
        self._attr_unique_id = f"{subentry.subentry_id}_{description.key}"
        self._attr_device_info = dr.DeviceInfo(
            identifiers={(DOMAIN, subentry.subentry_id)}
        )

    async def async_added_to_hass(self) -> None:
        """Listen for the agent's turns."""
        await super().async_added_to_hass()
        self.async_on_remove(
            async_dispatcher_connect(self.hass, self._telemetry.signal, self._async_any)
        )

    @callback
    def _async_any(self, subentry_id: str, record: TurnRecord) -> None:
        if subentry_id == self._subentry_id:
            self._async_turn(record)

    @callback
    def _async_turn(self, record: TurnRecord) -> None:
        raise NotImplementedError


class LastTurnSensor(AgentSensor):
    """One number of the agent's last turn, kept across restarts."""

    entity_description: LastTurnSensorDescription

    async def async_added_to_hass(self) -> None:
        """Show the last turn's value again after a restart."""
        await super().async_added_to_hass()
        if (last := await self.async_get_last_sensor_data()) is not None:
            self._attr_native_value = last.native_value

    @callback
    def _async_turn(self, record: TurnRecord) -> None:
        self._attr_native_value = self.entity_description.value_fn(record)
        self.async_write_ha_state()


class TurnsTodaySensor(AgentSensor):
    """Turns the agent answered since local midnight."""

    _count = 0
    _day: date | None = None

    @property
    def native_value(self) -> int:
        """Today's count."""
        return self._count

    async def async_added_to_hass(self) -> None:
        """Keep today's count across a restart; reset at midnight."""
        await super().async_added_to_hass()
        self._day = dt_util.now().date()
        last_state = await self.async_get_last_state()
        last = await self.async_get_last_sensor_data()
        if (
            last_state is not None
            and last is not None
            and isinstance(last.native_value, int)
            and dt_util.as_local(last_state.last_updated).date() == self._day
        ):
            self._count = last.native_value
        self.async_on_remove(
            async_track_time_change(
                self.hass, self._async_midnight, hour=0, minute=0, second=0
            )
        )

    @callback
    def _async_midnight(self, now: datetime) -> None:
        self._day, self._count = now.date(), 0
        self.async_write_ha_state()

    @callback
    def _async_turn(self, record: TurnRecord) -> None:
        today = dt_util.now().date()
        if today != self._day:
            self._day, self._count = today, 0
        self._count += 1
        self.async_write_ha_state()
