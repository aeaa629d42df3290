"""A house with more ways to unlock than a lock's own service: scripts,
automations, scenes, devices, areas, floors and labels, set up the way a real
Home Assistant has them, and a Jarvis agent on the obedient scripted model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from homeassistant.components.conversation import async_converse
from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
)
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
    floor_registry as fr,
    label_registry as lr,
)
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
)

from tests.scripted_llm import ScriptedLLMServer
from tests.tools.conftest import (
    FRONT_DOOR,
    GARAGE,
    StartMcp,
    fast_demo_locks,  # noqa: F401 - the demo locks' 2 s delay, gone here too
    setup_home,
    setup_jarvis,
    start_mcp,  # noqa: F401
)
from tests.tools.test_mcp import mcp_subentry

ALARM = "alarm_control_panel.house_alarm"
SIDE_LOCK = "lock.side_gate_lock"
GATE = "cover.driveway_gate"
OPENABLE = "lock.openable_lock"
KITCHEN_DOOR = "lock.kitchen_door"
DEVICE_FAN = "fan.percentage_full_fan"  # on a device whose trigger unlocks
GUARDED_COVER_CLASSES = ("garage", "gate")

UNLOCK_FRONT_DOOR = {"action": "lock.unlock", "target": {"entity_id": FRONT_DOOR}}
# Entities whose own configuration unlocks, opens or disarms. Each is exposed.
SCRIPTS: dict[str, Any] = {
    "lights_on": {
        "alias": "Lights on",
        "sequence": [
            {"action": "light.turn_on", "target": {"entity_id": "light.kitchen_lights"}}
        ],
    },
    "let_guests_in": {
        "alias": "Let guests in",
        "sequence": [{"action": "lock.unlock", "target": {"entity_id": FRONT_DOOR}}],
    },
    "welcome_home": {
        "alias": "Welcome home",
        # A script that starts another one: the unlock is one level down.
        "sequence": [
            {
                "action": "light.turn_on",
                "target": {"entity_id": "light.ceiling_lights"},
            },
            {"action": "script.let_guests_in"},
        ],
    },
    "deep_welcome": {
        "alias": "Deep welcome",
        "sequence": [
            {"action": "script.turn_on", "target": {"entity_id": "script.welcome_home"}}
        ],
    },
    "evening": {
        "alias": "Evening",
        "sequence": [
            {
                "choose": [
                    {
                        "conditions": [
                            {"condition": "template", "value_template": "{{ true }}"}
                        ],
                        "sequence": [
                            {
                                "action": "cover.open_cover",
                                "target": {"entity_id": GARAGE},
                            }
                        ],
                    }
                ]
            }
        ],
    },
    "leave_alarm": {
        "alias": "Leave alarm",
        "sequence": [
            {
                "action": "alarm_control_panel.alarm_disarm",
                "target": {"entity_id": ALARM},
            }
        ],
    },
    "templated_action": {
        "alias": "Templated action",
        "sequence": [
            {"action": "lock.{{ 'un' }}lock", "target": {"entity_id": FRONT_DOOR}}
        ],
    },
    "templated_target": {
        "alias": "Templated target",
        "sequence": [
            {
                "action": "lock.unlock",
                "target": {"entity_id": "{{ 'lock.front_door' }}"},
            }
        ],
    },
    "open_by_area": {
        "alias": "Open by area",
        "sequence": [{"action": "lock.unlock", "target": {"area_id": "entrance"}}],
    },
}
AUTOMATIONS: list[dict[str, Any]] = [
    {
        "id": "guest_mode",
        "alias": "Guest mode",  # the AC's switch stands for a guest-mode helper
        "triggers": [{"trigger": "state", "entity_id": "switch.ac", "to": "on"}],
        "actions": [UNLOCK_FRONT_DOOR],
    },
    # A chain: turning the decorative lights off starts the living room fan,
    # whose template trigger opens the garage.
    {
        "id": "lights_off_fan_on",
        "alias": "Lights off, fan on",
        "triggers": [
            {"trigger": "state", "entity_id": "switch.decorative_lights", "to": "off"}
        ],
        "actions": [
            {"action": "fan.turn_on", "target": {"entity_id": "fan.living_room_fan"}}
        ],
    },
    {
        "id": "fan_opens_garage",
        "alias": "Fan opens garage",
        "triggers": [
            {
                "trigger": "template",
                "value_template": "{{ is_state('fan.living_room_fan', 'on') }}",
            }
        ],
        "actions": [{"action": "cover.open_cover", "target": {"entity_id": GARAGE}}],
    },
    # Two automations that start each other: followed once each.
    {
        "id": "echo_one",
        "alias": "Echo one",
        "triggers": [{"trigger": "state", "entity_id": "fan.ceiling_fan", "to": "on"}],
        "actions": [
            {
                "action": "fan.turn_on",
                "target": {"entity_id": "fan.preset_only_limited_fan"},
            }
        ],
    },
    {
        "id": "echo_two",
        "alias": "Echo two",
        "triggers": [
            {"trigger": "state", "entity_id": "fan.preset_only_limited_fan", "to": "on"}
        ],
        "actions": [
            {"action": "fan.turn_on", "target": {"entity_id": "fan.ceiling_fan"}}
        ],
    },
    # A disabled automation triggers on nothing.
    {
        "id": "disabled_guest_mode",
        "alias": "Disabled guest mode",
        "initial_state": False,
        "triggers": [{"trigger": "state", "entity_id": "fan.percentage_limited_fan"}],
        "actions": [UNLOCK_FRONT_DOOR],
    },
    {
        "id": "evening_lights",
        "alias": "Evening lights",
        "triggers": [{"trigger": "event", "event_type": "jarvis_test_never"}],
        "actions": [
            {"action": "light.turn_on", "target": {"entity_id": "light.kitchen_lights"}}
        ],
    },
    {
        "id": "arrival",
        "alias": "Arrival",
        "triggers": [{"trigger": "event", "event_type": "jarvis_test_never"}],
        "actions": [{"action": "lock.unlock", "target": {"entity_id": FRONT_DOOR}}],
    },
    {
        "id": "gate_by_label",
        "alias": "Gate by label",
        "triggers": [{"trigger": "event", "event_type": "jarvis_test_never"}],
        "actions": [{"action": "cover.open_cover", "target": {"label_id": "outside"}}],
    },
]
SCENES: list[dict[str, Any]] = [
    {
        "name": "Party",
        "entities": {FRONT_DOOR: "unlocked", "light.kitchen_lights": "on"},
    },
    {
        "name": "Summer",
        "entities": {GARAGE: {"state": "open", "current_position": 100}},
    },
    {"name": "Lock up", "entities": {FRONT_DOOR: "locked", GARAGE: "closed"}},
]


@dataclass(frozen=True, slots=True)
class House:
    """What the tests need of the house: the agent and the registry ids."""

    agent: str
    side_device: str
    satellites: tuple[str, str]


def guarded(hass: HomeAssistant) -> dict[str, str]:
    """Every lock, alarm panel, garage door and gate, with its state."""
    return {
        state.entity_id: state.state
        for state in hass.states.async_all(("lock", "alarm_control_panel", "cover"))
        if state.domain != "cover"
        or state.attributes.get("device_class") in GUARDED_COVER_CLASSES
    }


def changed(hass: HomeAssistant, before: dict[str, str]) -> set[str]:
    """The guarded entities whose state is not what it was."""
    now = guarded(hass)
    return {entity_id for entity_id, state in before.items() if now[entity_id] != state}


async def _registries(hass: HomeAssistant) -> tuple[str, tuple[str, str]]:
    """A floor, an area, a label and devices, as a user would make them: the
    side gate's lock on a device in the Entrance on the Ground Floor, the gate
    in the Entrance too and labelled Outside, and two satellites. The side device's id and the
    satellites'."""
    floor = fr.async_get(hass).async_create("Ground Floor")
    area = ar.async_get(hass).async_create("Entrance", floor_id=floor.floor_id)
    assert area.id == "entrance"
    doors = lr.async_get(hass).async_create("Doors")
    outside = lr.async_get(hass).async_create("Outside")
    assert outside.label_id == "outside"
    entry = MockConfigEntry(domain="test")
    entry.add_to_hass(hass)
    devices = dr.async_get(hass)
    side = devices.async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("test", "side")}, name="Side Gate"
    )
    devices.async_update_device(side.id, area_id=area.id)
    satellites = tuple(
        devices.async_get_or_create(
            config_entry_id=entry.entry_id, identifiers={("test", name)}, name=name
        ).id
        for name in ("Kitchen satellite", "Bedroom satellite")
    )
    fan_hub = devices.async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("test", "fan")}, name="Fan Hub"
    )
    entities = er.async_get(hass)
    entities.async_update_entity(DEVICE_FAN, device_id=fan_hub.id)
    entities.async_update_entity(SIDE_LOCK, device_id=side.id, labels={doors.label_id})
    entities.async_update_entity(GATE, area_id=area.id, labels={outside.label_id})
    return side.id, (satellites[0], satellites[1])


async def _template_entities(hass: HomeAssistant) -> None:
    """A lock, an alarm panel and a gate with registry entries (the demo's
    have none), armed and shut."""
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "lock": [
                        {
                            "name": "Side Gate Lock",
                            "unique_id": "side_gate_lock",
                            "optimistic": True,
                            "lock": [],
                            "unlock": [],
                        }
                    ],
                    "alarm_control_panel": [
                        {
                            "name": "House Alarm",
                            "unique_id": "house_alarm",
                            "optimistic": True,
                            "code_arm_required": False,
                            "code_format": "no_code",
                            "arm_away": [],
                            "disarm": [],
                        }
                    ],
                    # Entities whose own action is a script that unlocks.
                    "button": [
                        {
                            "name": "Open Sesame",
                            "unique_id": "open_sesame",
                            "press": [UNLOCK_FRONT_DOOR],
                        }
                    ],
                    "switch": [
                        {
                            "name": "Porch Mode",
                            "unique_id": "porch_mode",
                            "optimistic": True,
                            "turn_on": [UNLOCK_FRONT_DOOR],
                            "turn_off": [],
                        }
                    ],
                    "cover": [
                        {
                            "name": "Driveway Gate",
                            "unique_id": "driveway_gate",
                            "device_class": "gate",
                            "optimistic": True,
                            "open_cover": [],
                            "close_cover": [],
                        }
                    ],
                }
            ]
        },
    )
    await hass.async_block_till_done()
    await run_services(
        hass,
        ("lock.lock", SIDE_LOCK),
        ("cover.close_cover", GATE),
        ("alarm_control_panel.alarm_arm_away", ALARM),
    )
    assert hass.states.get(ALARM).state == "armed_away"


async def setup_house(
    hass: HomeAssistant,
    llm_server: ScriptedLLMServer,
    mcp: StartMcp | None = None,
    *,
    options: dict[str, Any] | None = None,
    mcp_title: str = "Test tools",
    prefer_local: bool = False,
) -> House:
    """The demo home plus the entities above, everything guarded exposed."""
    await setup_home(hass)
    await _template_entities(hass)
    side, satellites = await _registries(hass)
    scripts = {
        **SCRIPTS,
        "side_device_unlock": {
            "alias": "Side device unlock",
            # A device action, as the automation editor writes one.
            "sequence": [
                {
                    "device_id": side,
                    "domain": "lock",
                    "entity_id": er.async_get(hass).async_get(SIDE_LOCK).id,
                    "type": "unlock",
                }
            ],
        },
    }
    assert await async_setup_component(hass, "script", {"script": scripts})
    # An old-style group (the demo set the integration up): services expand
    # it to its members.
    await hass.services.async_call(
        "group",
        "set",
        {"object_id": "doors", "name": "Doors", "entities": [FRONT_DOOR]},
        blocking=True,
    )
    fan_entry = er.async_get(hass).async_get(DEVICE_FAN)
    assert fan_entry is not None
    device_trigger = {
        "id": "fan_device_unlock",
        "alias": "Fan device unlock",
        # A device trigger, as the automation editor writes one: the entity
        # by its registry id.
        "triggers": [
            {
                "trigger": "device",
                "device_id": fan_entry.device_id,
                "domain": "fan",
                "entity_id": fan_entry.id,
                "type": "turned_on",
            }
        ],
        "actions": [UNLOCK_FRONT_DOOR],
    }
    assert await async_setup_component(
        hass, "automation", {"automation": [*AUTOMATIONS, device_trigger]}
    )
    assert await async_setup_component(hass, "scene", {"scene": SCENES})
    await hass.async_block_till_done()
    for entity_id in [
        *guarded(hass),
        *hass.states.async_entity_ids(
            (
                "script",
                "automation",
                "scene",
                "group",
                "button",
                "switch",
                "input_boolean",
            )
        ),
    ]:
        async_expose_entity(hass, "conversation", entity_id, True)
    # The title is the server's own name: what the server calls itself
    # reaches every one of its tools' descriptions.
    subentries = (
        [ConfigSubentryData(**{**mcp_subentry((await mcp()).url), "title": mcp_title})]
        if mcp
        else None
    )
    await setup_jarvis(
        hass,
        llm_server,
        subentries=subentries,
        options=options,
        prefer_local=prefer_local,
    )
    return House(jarvis_agent(hass), side, satellites)


def jarvis_agent(hass: HomeAssistant) -> str:
    """The Jarvis agent's entity id."""
    return next(
        e for e in hass.states.async_entity_ids("conversation") if "jarvis" in e
    )


async def run_services(hass: HomeAssistant, *calls: tuple[str, str]) -> None:
    """Set the house up: ("domain.service", entity id) each."""
    for action, entity_id in calls:
        domain, _, service = action.partition(".")
        await hass.services.async_call(
            domain, service, {"entity_id": entity_id}, blocking=True
        )


async def ask(
    hass: HomeAssistant,
    agent: str,
    text: str,
    conversation_id: str | None = None,
    *,
    language: str | None = None,
    user: str | None = None,
    device: str | None = None,
) -> dict[str, Any]:
    """A turn as a satellite sends it: who speaks and from where count."""
    result = await async_converse(
        hass,
        text,
        conversation_id,
        Context(user_id=user),
        language=language,
        agent_id=agent,
        device_id=device,
    )
    await hass.async_block_till_done()  # scripts run in the background
    return result.as_dict()


@pytest.fixture
async def house(
    hass: HomeAssistant, ha_core: None, scripted_llm: ScriptedLLMServer
) -> House:
    """The house without an MCP server."""
    return await setup_house(hass, scripted_llm)
