"""The synthetic home: HA's `demo` devices, renamed and placed in areas and floors.

The same home comes in three variants whose device, area and floor names are
English, German or Spanish; scenarios pick one with `Scenario.home`. Only the
entities listed here are exposed to Assist, so prompts stay the size of a
small real home instead of the demo's hundred-odd entities.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
)
from homeassistant.components.intent import async_register_timer_handler
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
    floor_registry as fr,
)
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

type Names = Mapping[str, str]  # home variant ("en", "de", "es") -> name


@dataclass(frozen=True, slots=True)
class Place:
    """A floor or an area."""

    key: str
    names: Names
    floor: str | None = None  # for areas: the key of their floor


@dataclass(frozen=True, slots=True)
class Device:
    """An exposed entity: its names, its area, and a service call for its start state."""

    entity_id: str
    area: str | None
    names: Names
    start: str | None = None  # a service of its domain, when the default differs


@dataclass(frozen=True, slots=True)
class SharedDevice:
    """A device whose entities all carry the device's own name, as many
    integrations name them (a lock and its lock-state sensor, a garage door
    opener's cover, light and sensor)."""

    key: str
    area: str
    names: Names
    members: Mapping[str, str | None]  # entity id -> its start service, if any


FLOORS = (
    Place(
        "ground_floor", {"en": "Ground floor", "de": "Erdgeschoss", "es": "Planta baja"}
    ),
    Place(
        "first_floor", {"en": "First floor", "de": "Obergeschoss", "es": "Primer piso"}
    ),
)

AREAS = (
    Place("kitchen", {"en": "Kitchen", "de": "Küche", "es": "Cocina"}, "ground_floor"),
    Place(
        "living_room",
        {"en": "Living Room", "de": "Wohnzimmer", "es": "Salón"},
        "ground_floor",
    ),
    Place("hallway", {"en": "Hallway", "de": "Flur", "es": "Pasillo"}, "ground_floor"),
    Place("garage", {"en": "Garage", "de": "Garage", "es": "Garaje"}, "ground_floor"),
    Place("office", {"en": "Office", "de": "Büro", "es": "Oficina"}, "first_floor"),
    Place(
        "bedroom",
        {"en": "Bedroom", "de": "Schlafzimmer", "es": "Dormitorio"},
        "first_floor",
    ),
    # Where the sensitive category's locks, gate and opener are; a lock and a
    # gate are called by these areas ("unlock the side door lock").
    Place(
        "side_door",
        {"en": "Side Door", "de": "Seiteneingang", "es": "Entrada lateral"},
        "ground_floor",
    ),
    Place(
        "driveway",
        {"en": "Driveway", "de": "Einfahrt", "es": "Entrada de coches"},
        "ground_floor",
    ),
    Place(
        "workshop",
        {"en": "Workshop", "de": "Werkstatt", "es": "Taller"},
        "ground_floor",
    ),
)

# Helpers for what the demo lacks or cannot rename (its locks and media players
# have no unique id, so the registries cannot name or place them): template
# sensors and locks, and universal media players wrapping the demo's.
TEMPLATE_SENSORS = {
    "bedroom_temperature": "19.5",
    "office_temperature": "22.5",
    "workshop_opener": "17.5",  # the opener's own temperature sensor
}
TEMPLATE_LOCKS = {  # locked at start?
    "front_door": True,
    "back_door": False,
    "smart_lock": True,
    "deadbolt": True,
}
# Optimistic template covers: the gate, and the workshop's garage door opener.
TEMPLATE_COVERS = {"gate": "gate", "workshop_opener": "garage"}  # device class
UNIVERSAL_PLAYERS = {
    "tv": "media_player.living_room",
    "speaker": "media_player.bedroom",
}

DEVICES = (
    Device(
        "light.kitchen_lights",
        "kitchen",
        {"en": "Kitchen Lights", "de": "Küchenlicht", "es": "Luz de la cocina"},
    ),
    Device(
        "light.living_room_rgbww_lights",
        "living_room",
        {"en": "Living Room Lights", "de": "Wohnzimmerlicht", "es": "Luz del salón"},
    ),
    Device(
        "light.office_rgbw_lights",
        "office",
        {"en": "Office Lights", "de": "Bürolicht", "es": "Luz de la oficina"},
    ),
    Device(
        "light.ceiling_lights",
        "office",
        {"en": "Desk Lamp", "de": "Schreibtischlampe", "es": "Lámpara del escritorio"},
    ),
    Device(
        "light.bed_light",
        "bedroom",
        {"en": "Bed Light", "de": "Nachttischlampe", "es": "Lámpara de noche"},
    ),
    Device(
        "light.entrance_color_white_lights",
        "hallway",
        {"en": "Hallway Light", "de": "Flurlicht", "es": "Luz del pasillo"},
    ),
    Device(
        "switch.decorative_lights",
        "living_room",
        {"en": "Christmas Lights", "de": "Lichterkette", "es": "Luces de Navidad"},
    ),
    Device(
        "switch.ac",
        "office",
        {"en": "Air Conditioner", "de": "Klimaanlage", "es": "Aire acondicionado"},
        start="turn_on",
    ),
    Device(
        "fan.living_room_fan",
        "office",
        {"en": "Office Fan", "de": "Büroventilator", "es": "Ventilador de la oficina"},
        start="turn_on",
    ),
    Device(
        "fan.ceiling_fan",
        "bedroom",
        {"en": "Ceiling Fan", "de": "Deckenventilator", "es": "Ventilador de techo"},
    ),
    Device(
        "cover.garage_door",
        "garage",
        {"en": "Garage Door", "de": "Garagentor", "es": "Puerta del garaje"},
    ),
    Device(
        "cover.kitchen_window",
        "kitchen",
        {"en": "Kitchen Blinds", "de": "Küchenrollo", "es": "Persiana de la cocina"},
    ),
    Device(
        "cover.living_room_window",
        "living_room",
        {
            "en": "Living Room Blinds",
            "de": "Wohnzimmerrollo",
            "es": "Persiana del salón",
        },
    ),
    Device(
        "climate.heatpump",
        "living_room",
        {"en": "Thermostat", "de": "Thermostat", "es": "Termostato"},
    ),
    Device(
        "lock.bench_front_door",
        "hallway",
        {"en": "Front Door", "de": "Haustür", "es": "Puerta principal"},
    ),
    Device(
        "lock.bench_back_door",
        "kitchen",
        {"en": "Back Door", "de": "Hintertür", "es": "Puerta trasera"},
    ),
    Device(
        "media_player.bench_tv",
        "living_room",
        {"en": "TV", "de": "Fernseher", "es": "Televisión"},
    ),
    Device(
        "media_player.bench_speaker",
        "bedroom",
        {
            "en": "Bedroom Speaker",
            "de": "Schlafzimmerlautsprecher",
            "es": "Altavoz del dormitorio",
        },
    ),
    Device(
        "sensor.outside_temperature",
        None,
        {
            "en": "Outside Temperature",
            "de": "Außentemperatur",
            "es": "Temperatura exterior",
        },
    ),
    Device(
        "sensor.outside_humidity",
        None,
        {
            "en": "Outside Humidity",
            "de": "Außenluftfeuchtigkeit",
            "es": "Humedad exterior",
        },
    ),
    Device(
        "sensor.bench_bedroom_temperature",
        "bedroom",
        {
            "en": "Bedroom Temperature",
            "de": "Schlafzimmertemperatur",
            "es": "Temperatura del dormitorio",
        },
    ),
    Device(
        "sensor.bench_office_temperature",
        "office",
        {
            "en": "Office Temperature",
            "de": "Bürotemperatur",
            "es": "Temperatura de la oficina",
        },
    ),
    # Sensitive kinds beyond the two doors and the garage door: a lock called
    # by its area, a gate, an alarm panel, and the shared devices below.
    Device(
        "lock.bench_deadbolt",
        "side_door",
        {"en": "Deadbolt", "de": "Riegel", "es": "Pestillo"},
    ),
    Device(
        "cover.bench_gate",
        "driveway",
        {"en": "Gate", "de": "Tor", "es": "Portón"},
        start="close_cover",
    ),
    Device(
        "alarm_control_panel.bench_alarm",
        "hallway",
        {"en": "Alarm", "de": "Alarmanlage", "es": "Alarma"},
        start="alarm_arm_away",
    ),
)

SHARED_DEVICES = (
    SharedDevice(
        "smart_lock",
        "garage",
        {"en": "Smart Lock", "de": "Smart Lock", "es": "Cerradura inteligente"},
        {"lock.bench_smart_lock": None, "binary_sensor.bench_smart_lock": None},
    ),
    SharedDevice(
        "workshop_opener",
        "workshop",
        {
            "en": "Workshop Door Opener",
            "de": "Werkstatttoröffner",
            "es": "Abridor del taller",
        },
        {
            "cover.bench_workshop_opener": "close_cover",
            "light.bench_workshop_opener": "turn_off",
            "sensor.bench_workshop_opener": None,
        },
    ),
)
DEVICES += tuple(
    Device(entity_id, shared.area, shared.names, start)
    for shared in SHARED_DEVICES
    for entity_id, start in shared.members.items()
)

EXPOSED = frozenset(device.entity_id for device in DEVICES)


async def async_build_home(hass: HomeAssistant, variant: str = "en") -> str:
    """Set up the home in a fresh instance; return the voice satellite's device id.

    Every turn comes from that satellite: it supports timers (so Assist offers
    the timer tools) and has no area (so "the lights" stays ambiguous).
    """
    for domain, config in (
        ("homeassistant", {}),
        ("conversation", {}),
        ("intent", {}),
        # Before the demo, which sets these domains up without this config.
        ("media_player", {"media_player": _universal_players()}),
        ("input_boolean", {"input_boolean": _bolts()}),
        ("alarm_control_panel", {"alarm_control_panel": [_alarm()]}),
        ("demo", {"demo": {}}),
        ("template", {"template": [_templates()]}),
    ):
        assert await async_setup_component(hass, domain, config), domain
    await hass.async_block_till_done()

    floors = fr.async_get(hass)
    floor_ids = {
        floor.key: floors.async_create(floor.names[variant], level=level).floor_id
        for level, floor in enumerate(FLOORS)
    }
    areas = ar.async_get(hass)
    area_ids = {
        area.key: areas.async_create(
            area.names[variant],
            floor_id=floor_ids[area.floor] if area.floor else None,
        ).id
        for area in AREAS
    }
    entities = er.async_get(hass)
    for device in DEVICES:
        entities.async_update_entity(
            device.entity_id,
            name=device.names[variant],
            area_id=area_ids[device.area] if device.area else None,
        )
        if device.start:
            domain = device.entity_id.split(".")[0]
            await hass.services.async_call(
                domain, device.start, {"entity_id": device.entity_id}, blocking=True
            )
    _add_shared_devices(hass, variant)
    for entity_id in hass.states.async_entity_ids():
        async_expose_entity(hass, "conversation", entity_id, entity_id in EXPOSED)
    await hass.async_block_till_done()
    return async_add_satellite(hass)


def _add_shared_devices(hass: HomeAssistant, variant: str) -> None:
    """The devices whose entities share their name, each entity on its device."""
    entry = MockConfigEntry(domain="bench", title="Shared devices")
    entry.add_to_hass(hass)
    devices, entities = dr.async_get(hass), er.async_get(hass)
    for shared in SHARED_DEVICES:
        device = devices.async_get_or_create(
            config_entry_id=entry.entry_id,
            identifiers={("bench", shared.key)},
            name=shared.names[variant],
        )
        for entity_id in shared.members:
            entities.async_update_entity(entity_id, device_id=device.id)


def _alarm() -> dict[str, Any]:
    """An alarm panel with no code, arming at once."""
    return {
        "platform": "manual",
        "name": "Bench alarm",
        "unique_id": "bench_alarm",
        "code_arm_required": False,
        "arming_time": 0,
        "delay_time": 0,
    }


def _bolts() -> dict[str, dict[str, bool]]:
    return {
        f"bench_{key}": {"initial": locked} for key, locked in TEMPLATE_LOCKS.items()
    }


def _templates() -> dict[str, list[dict[str, Any]]]:
    def bolt(action: str, key: str) -> dict[str, Any]:
        return {
            "action": f"input_boolean.{action}",
            "target": {"entity_id": f"input_boolean.bench_{key}"},
        }

    return {
        "sensor": [
            {
                "name": f"Bench {key}",
                "unique_id": f"bench_{key}",
                "state": value,
                "unit_of_measurement": "°C",
                "device_class": "temperature",
                "state_class": "measurement",
            }
            for key, value in TEMPLATE_SENSORS.items()
        ],
        "lock": [
            {
                "name": f"Bench {key}",
                "unique_id": f"bench_{key}",
                "state": f"{{{{ is_state('input_boolean.bench_{key}', 'on') }}}}",
                "lock": bolt("turn_on", key),
                "unlock": bolt("turn_off", key),
            }
            for key in TEMPLATE_LOCKS
        ],
        "binary_sensor": [
            {
                "name": "Bench smart_lock",
                "unique_id": "bench_smart_lock_state",
                "device_class": "lock",  # on: unlocked
                # The lock's own bolt, so that both change in the same turn.
                "state": "{{ is_state('input_boolean.bench_smart_lock', 'off') }}",
            }
        ],
        "cover": [
            {
                "name": f"Bench {key}",
                "unique_id": f"bench_{key}",
                "device_class": device_class,
                "optimistic": True,
                "open_cover": [],
                "close_cover": [],
            }
            for key, device_class in TEMPLATE_COVERS.items()
        ],
        "light": [
            {
                "name": "Bench workshop_opener",
                "unique_id": "bench_workshop_opener_light",
                "optimistic": True,
                "turn_on": [],
                "turn_off": [],
            }
        ],
    }


def _universal_players() -> list[dict[str, Any]]:
    return [
        {
            "platform": "universal",
            "name": f"Bench {key}",
            "unique_id": f"bench_{key}",
            "children": [child],
        }
        for key, child in UNIVERSAL_PLAYERS.items()
    ]


def async_add_satellite(hass: HomeAssistant) -> str:
    """A voice satellite device that supports timers; its device id."""
    entry = MockConfigEntry(domain="bench", title="Satellite")
    entry.add_to_hass(hass)
    device = dr.async_get(hass).async_get_or_create(
        config_entry_id=entry.entry_id,
        identifiers={("bench", "satellite")},
        name="Voice satellite",
    )
    async_register_timer_handler(hass, device.id, lambda *_: None)
    return device.id
