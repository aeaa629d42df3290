"""A generated home made real: HA entities of a mock integration, with devices,
floors, areas and Assist exposure as a user would set them up.

The entities keep their state in memory and act at once (no travel time), so
the house's end state is what a command did. Exposure is HA's default for new
entities plus what a user exposes by hand for voice control: locks, valves and
battery sensors (HA exposes none of them by default).
"""

from __future__ import annotations

from typing import Any, ClassVar

from homeassistant.components.binary_sensor import (
    BinarySensorDeviceClass,
    BinarySensorEntity,
)
from homeassistant.components.cover import (
    CoverDeviceClass,
    CoverEntity,
    CoverEntityFeature,
)
from homeassistant.components.fan import FanEntity, FanEntityFeature
from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
    async_should_expose,
)
from homeassistant.components.light import ColorMode, LightEntity
from homeassistant.components.lock import LockEntity
from homeassistant.components.media_player import (
    MediaPlayerDeviceClass,
    MediaPlayerEntity,
    MediaPlayerEntityFeature,
    MediaPlayerState,
)
from homeassistant.components.sensor import SensorDeviceClass, SensorEntity
from homeassistant.components.switch import SwitchEntity
from homeassistant.components.todo import (
    TodoItem,
    TodoItemStatus,
    TodoListEntity,
    TodoListEntityFeature,
)
from homeassistant.components.vacuum import (
    StateVacuumEntity,
    VacuumActivity,
    VacuumEntityFeature,
)
from homeassistant.components.valve import ValveEntity, ValveEntityFeature
from homeassistant.config_entries import ConfigEntry, ConfigFlow
from homeassistant.const import PERCENTAGE, EntityCategory, UnitOfTemperature
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    floor_registry as fr,
)
from homeassistant.helpers.device_registry import DeviceInfo
from homeassistant.helpers.entity import Entity
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    MockModule,
    MockPlatform,
    mock_integration,
    mock_platform,
)

from . import home as gen

DOMAIN = "bench_home"
EXPOSED_BY_HAND = {"lock", "valve", "battery"}  # domains or roles


class BenchHomeFlow(ConfigFlow, domain=DOMAIN):
    """Config entries need a flow handler; the bench adds its entry directly."""


class BenchEntity(Entity):
    _attr_has_entity_name = True
    _attr_should_poll = False

    def __init__(self, device: gen.Device, spec: gen.Entity, language: str) -> None:
        self.entity_id = spec.entity_id
        self._attr_unique_id = spec.entity_id
        self._attr_name = (
            None if spec.suffix is None else gen.SUFFIXES[spec.suffix][language]
        )
        self.spec = spec
        self.value = spec.state
        self.extra: dict[str, Any] = dict(spec.attributes)
        if device.kind not in ("todo", "speaker_group"):
            self._attr_device_info = DeviceInfo(
                identifiers={(DOMAIN, device.key)}, name=device.name.name
            )
        else:  # no device: the entity carries the name
            self._attr_name = device.name.name

    def _set(self, value: str, **extra: Any) -> None:
        self.value = value
        self.extra.update(extra)
        self.async_write_ha_state()


class BenchLight(BenchEntity, LightEntity):
    _attr_supported_color_modes: ClassVar[set[ColorMode]] = {ColorMode.BRIGHTNESS}
    _attr_color_mode = ColorMode.BRIGHTNESS

    @property
    def is_on(self) -> bool:
        return self.value == "on"

    @property
    def brightness(self) -> int | None:
        return self.extra.get("brightness") if self.is_on else None

    async def async_turn_on(self, **kwargs: Any) -> None:
        self._set(
            "on",
            brightness=kwargs.get("brightness", self.extra.get("brightness") or 255),
        )

    async def async_turn_off(self, **kwargs: Any) -> None:
        self._set("off")


class BenchSwitch(BenchEntity, SwitchEntity):
    @property
    def is_on(self) -> bool:
        return self.value == "on"

    async def async_turn_on(self, **kwargs: Any) -> None:
        self._set("on")

    async def async_turn_off(self, **kwargs: Any) -> None:
        self._set("off")


class BenchFan(BenchEntity, FanEntity):
    _attr_supported_features = (
        FanEntityFeature.SET_SPEED
        | FanEntityFeature.TURN_ON
        | FanEntityFeature.TURN_OFF
    )

    @property
    def is_on(self) -> bool:
        return self.value == "on"

    @property
    def percentage(self) -> int | None:
        return (self.extra.get("percentage") or 100) if self.is_on else 0

    async def async_turn_on(
        self,
        percentage: int | None = None,
        preset_mode: str | None = None,
        **kwargs: Any,
    ) -> None:
        self._set("on", percentage=percentage or self.extra.get("percentage") or 100)

    async def async_turn_off(self, **kwargs: Any) -> None:
        self._set("off")

    async def async_set_percentage(self, percentage: int) -> None:
        self._set("on" if percentage else "off", percentage=percentage)


class BenchCover(BenchEntity, CoverEntity):
    def __init__(self, device: gen.Device, spec: gen.Entity, language: str) -> None:
        super().__init__(device, spec, language)
        garage = spec.role == "door"
        self._attr_device_class = (
            CoverDeviceClass.GARAGE if garage else CoverDeviceClass.BLIND
        )
        self._attr_supported_features = (
            CoverEntityFeature.OPEN | CoverEntityFeature.CLOSE
        )
        if not garage:
            self._attr_supported_features |= CoverEntityFeature.SET_POSITION

    @property
    def is_closed(self) -> bool:
        return self.value == "closed"

    @property
    def current_cover_position(self) -> int | None:
        return self.extra.get("current_position")

    async def async_open_cover(self, **kwargs: Any) -> None:
        await self._move(100)

    async def async_close_cover(self, **kwargs: Any) -> None:
        await self._move(0)

    async def async_set_cover_position(self, **kwargs: Any) -> None:
        await self._move(int(kwargs["position"]))

    async def _move(self, position: int) -> None:
        extra = (
            {}
            if "current_position" not in self.extra
            else {"current_position": position}
        )
        self._set("closed" if position == 0 else "open", **extra)


class BenchLock(BenchEntity, LockEntity):
    sibling: BenchBinarySensor | None = None  # the device's lock-state sensor

    @property
    def is_locked(self) -> bool:
        return self.value == "locked"

    async def async_lock(self, **kwargs: Any) -> None:
        self._lock("locked")

    async def async_unlock(self, **kwargs: Any) -> None:
        self._lock("unlocked")

    def _lock(self, state: str) -> None:
        self._set(state)
        if self.sibling is not None:
            self.sibling._set("on" if state == "unlocked" else "off")


class BenchValve(BenchEntity, ValveEntity):
    _attr_reports_position = False
    _attr_supported_features = ValveEntityFeature.OPEN | ValveEntityFeature.CLOSE

    @property
    def is_closed(self) -> bool:
        return self.value == "closed"

    async def async_open_valve(self) -> None:
        self._set("open")

    async def async_close_valve(self) -> None:
        self._set("closed")


class BenchVacuum(BenchEntity, StateVacuumEntity):
    _attr_supported_features = (
        VacuumEntityFeature.START
        | VacuumEntityFeature.PAUSE
        | VacuumEntityFeature.STOP
        | VacuumEntityFeature.RETURN_HOME
        | VacuumEntityFeature.STATE
    )

    @property
    def activity(self) -> VacuumActivity:
        return VacuumActivity(self.value)

    async def async_start(self) -> None:
        self._set(VacuumActivity.CLEANING)

    async def async_pause(self) -> None:
        self._set(VacuumActivity.PAUSED)

    async def async_stop(self, **kwargs: Any) -> None:
        self._set(VacuumActivity.IDLE)

    async def async_return_to_base(self, **kwargs: Any) -> None:
        self._set(VacuumActivity.RETURNING)


class BenchMediaPlayer(BenchEntity, MediaPlayerEntity):
    _attr_supported_features = (
        MediaPlayerEntityFeature.PAUSE
        | MediaPlayerEntityFeature.PLAY
        | MediaPlayerEntityFeature.STOP
        | MediaPlayerEntityFeature.VOLUME_SET
        | MediaPlayerEntityFeature.VOLUME_MUTE
        | MediaPlayerEntityFeature.VOLUME_STEP
        | MediaPlayerEntityFeature.NEXT_TRACK
        | MediaPlayerEntityFeature.PREVIOUS_TRACK
        | MediaPlayerEntityFeature.TURN_ON
        | MediaPlayerEntityFeature.TURN_OFF
    )

    def __init__(self, device: gen.Device, spec: gen.Entity, language: str) -> None:
        super().__init__(device, spec, language)
        self._attr_device_class = (
            MediaPlayerDeviceClass.TV
            if device.name.name in ("TV", "Fernseher", "Televisión")
            else MediaPlayerDeviceClass.SPEAKER
        )

    @property
    def state(self) -> MediaPlayerState:
        return MediaPlayerState(self.value)

    @property
    def volume_level(self) -> float | None:
        return self.extra.get("volume_level")

    @property
    def is_volume_muted(self) -> bool | None:
        return self.extra.get("is_volume_muted")

    @property
    def media_title(self) -> str | None:
        return self.extra.get("media_title")

    async def async_media_play(self) -> None:
        self._set(
            MediaPlayerState.PLAYING,
            media_title=self.media_title or gen.MEDIA_TITLES[0],
        )

    async def async_media_pause(self) -> None:
        self._set(MediaPlayerState.PAUSED)

    async def async_media_stop(self) -> None:
        self._set(MediaPlayerState.IDLE)

    async def async_media_next_track(self) -> None:
        titles = gen.MEDIA_TITLES
        current = titles.index(self.media_title) if self.media_title in titles else -1
        self._set(self.value, media_title=titles[(current + 1) % len(titles)])

    async def async_media_previous_track(self) -> None:
        self._set(self.value)

    async def async_set_volume_level(self, volume: float) -> None:
        self._set(self.value, volume_level=round(volume, 2))

    async def async_mute_volume(self, mute: bool) -> None:
        self._set(self.value, is_volume_muted=mute)

    async def async_turn_on(self) -> None:
        self._set(MediaPlayerState.IDLE)

    async def async_turn_off(self) -> None:
        self._set(MediaPlayerState.OFF)


class BenchTodo(BenchEntity, TodoListEntity):
    _attr_supported_features = (
        TodoListEntityFeature.CREATE_TODO_ITEM
        | TodoListEntityFeature.UPDATE_TODO_ITEM
        | TodoListEntityFeature.DELETE_TODO_ITEM
    )

    def __init__(self, device: gen.Device, spec: gen.Entity, language: str) -> None:
        super().__init__(device, spec, language)
        self._attr_todo_items = [
            TodoItem(summary=item, uid=str(index), status=TodoItemStatus.NEEDS_ACTION)
            for index, item in enumerate(spec.attributes["items"])
        ]
        self.extra = {}

    async def async_create_todo_item(self, item: TodoItem) -> None:
        items = self._attr_todo_items or []
        items.append(
            TodoItem(
                summary=item.summary,
                uid=str(len(items)),
                status=item.status or TodoItemStatus.NEEDS_ACTION,
            )
        )
        self._attr_todo_items = items
        self.async_write_ha_state()

    async def async_update_todo_item(self, item: TodoItem) -> None:
        self._attr_todo_items = [
            item if old.uid == item.uid else old for old in self._attr_todo_items or []
        ]
        self.async_write_ha_state()

    async def async_delete_todo_items(self, uids: list[str]) -> None:
        self._attr_todo_items = [
            i for i in self._attr_todo_items or [] if i.uid not in uids
        ]
        self.async_write_ha_state()

    def summaries(self) -> list[str]:
        """The list's open items."""
        return [
            item.summary or ""
            for item in self._attr_todo_items or []
            if item.status == TodoItemStatus.NEEDS_ACTION
        ]


_SENSORS: dict[
    str, tuple[SensorDeviceClass | None, str | None, EntityCategory | None]
] = {
    "battery": (SensorDeviceClass.BATTERY, PERCENTAGE, None),
    "signal": (SensorDeviceClass.SIGNAL_STRENGTH, "dBm", EntityCategory.DIAGNOSTIC),
    "temperature": (SensorDeviceClass.TEMPERATURE, UnitOfTemperature.CELSIUS, None),
    "humidity": (SensorDeviceClass.HUMIDITY, PERCENTAGE, None),
    "power": (SensorDeviceClass.POWER, "W", None),
}
_BINARY: dict[str, tuple[BinarySensorDeviceClass, EntityCategory | None]] = {
    "lock_state": (BinarySensorDeviceClass.LOCK, None),
    "tamper": (BinarySensorDeviceClass.TAMPER, EntityCategory.DIAGNOSTIC),
    "obstruction": (BinarySensorDeviceClass.PROBLEM, None),
    "motion": (BinarySensorDeviceClass.MOTION, None),
}


class BenchSensor(BenchEntity, SensorEntity):
    def __init__(self, device: gen.Device, spec: gen.Entity, language: str) -> None:
        super().__init__(device, spec, language)
        device_class, unit, category = _SENSORS[spec.role]
        self._attr_device_class = device_class
        self._attr_native_unit_of_measurement = unit
        self._attr_entity_category = category

    @property
    def native_value(self) -> str:
        return self.value


class BenchBinarySensor(BenchEntity, BinarySensorEntity):
    def __init__(self, device: gen.Device, spec: gen.Entity, language: str) -> None:
        super().__init__(device, spec, language)
        self._attr_device_class, self._attr_entity_category = _BINARY[spec.role]

    @property
    def is_on(self) -> bool:
        return self.value == "on"


CLASSES: dict[str, type[BenchEntity]] = {
    "light": BenchLight,
    "switch": BenchSwitch,
    "fan": BenchFan,
    "cover": BenchCover,
    "lock": BenchLock,
    "valve": BenchValve,
    "vacuum": BenchVacuum,
    "media_player": BenchMediaPlayer,
    "todo": BenchTodo,
    "sensor": BenchSensor,
    "binary_sensor": BenchBinarySensor,
}


async def async_build(hass: HomeAssistant, home: gen.Home) -> dict[str, BenchEntity]:
    """Set the home up in `hass`; return its entities by entity id."""
    for component in ("homeassistant", "conversation", "intent", "todo"):
        assert await async_setup_component(hass, component, {}), component
    entities = {
        spec.entity_id: CLASSES[spec.domain](device, spec, home.language)
        for device, spec in home.entities
    }
    for entity in entities.values():
        if isinstance(entity, BenchLock):
            sibling = entities.get(
                f"binary_sensor.{entity.spec.entity_id.split('.')[1]}_lock_state"
            )
            entity.sibling = sibling if isinstance(sibling, BenchBinarySensor) else None

    async def setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
        await hass.config_entries.async_forward_entry_setups(entry, list(CLASSES))
        return True

    mock_integration(hass, MockModule(DOMAIN, async_setup_entry=setup_entry))
    mock_platform(hass, f"{DOMAIN}.config_flow")  # config entries need one
    for domain in CLASSES:

        async def add(
            _hass: HomeAssistant,
            _entry: ConfigEntry,
            async_add_entities: AddConfigEntryEntitiesCallback,
            domain: str = domain,
        ) -> None:
            async_add_entities(
                [e for e in entities.values() if e.spec.domain == domain]
            )

        mock_platform(hass, f"{DOMAIN}.{domain}", MockPlatform(async_setup_entry=add))
    entry = MockConfigEntry(domain=DOMAIN, title="Generated home")
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    _place(hass, home)
    for entity_id, entity in entities.items():
        async_should_expose(hass, "conversation", entity_id)  # HA's default
        if {entity.spec.domain, entity.spec.role} & EXPOSED_BY_HAND:
            async_expose_entity(hass, "conversation", entity_id, True)
    await hass.async_block_till_done()
    return entities


def _place(hass: HomeAssistant, home: gen.Home) -> None:
    """Floors and areas in the registries, each device in its area."""
    floors = fr.async_get(hass)
    floor_ids = [
        floors.async_create(floor.name, level=level - 1).floor_id
        for level, floor in enumerate(home.floors)
    ]
    areas = ar.async_get(hass)
    area_ids = [
        areas.async_create(
            name.name, floor_id=None if level is None else floor_ids[level]
        ).id
        for level, name in home.areas
    ]
    devices = dr.async_get(hass)
    for device in home.devices:
        entry = devices.async_get_device(identifiers={(DOMAIN, device.key)})
        if entry is not None and device.area is not None:
            devices.async_update_device(entry.id, area_id=area_ids[device.area])


def exposed_ids(
    hass: HomeAssistant, entities: dict[str, BenchEntity]
) -> frozenset[str]:
    """The home's entities Assist sees."""
    return frozenset(
        e for e in entities if async_should_expose(hass, "conversation", e)
    )
