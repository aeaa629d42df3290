"""How big the home section of Jarvis's system prompt gets: 20 and 200 devices.

    python -m bench.home_prompt [--counts 20,200]

Builds a home of template and `input_boolean` entities spread over areas on
three floors (and a few with no area) in a real Home Assistant test instance,
exposes them to Assist, and measures Home Assistant's own Assist prompt
against the prompt Jarvis sends: characters, Jarvis's TokenEstimator, and the
real Qwen2.5 tokenizer (llama.cpp's `POST /tokenize`, 0.5B model). Prints a
Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
import json
from typing import Any
import urllib.request

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
)
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    chat_session,
    entity_registry as er,
    floor_registry as fr,
    llm,
)
from homeassistant.setup import async_setup_component

from custom_components.jarvis.const import DOMAIN, LLM_API_JARVIS
from custom_components.jarvis.engine.budget import TokenEstimator
from custom_components.jarvis.prompts import DEFAULT_PROMPT
from custom_components.jarvis.tools.home import HOME_HEADER, home_api
from scripts.llm_server import LlamaServer
from scripts.models import MODELS_DIR, model_path

from .scenarios.runner import home_assistant

MODEL = "qwen2.5-coder-0.5b"
APIS = [llm.LLM_API_ASSIST, LLM_API_JARVIS]
# HA's own entity overview in the Assist prompt starts with this line.
HA_STATIC_CONTEXT = "Static Context:"

FLOORS = {
    "Ground Floor": (
        "Kitchen",
        "Living Room",
        "Dining Room",
        "Hallway",
        "Garage",
        "Utility Room",
    ),
    "First Floor": ("Master Bedroom", "Kids Room", "Guest Room", "Bathroom", "Office"),
    "Basement": ("Cellar", "Gym"),
}
AREAS = [area for areas in FLOORS.values() for area in areas]
# (name after the area's, domain, template config); `None`: an input_boolean.
KINDS: tuple[tuple[str, str, dict[str, Any] | None], ...] = (
    ("Ceiling Light", "light", {"turn_on": [], "turn_off": []}),
    ("Temperature", "sensor", {"state": "21.5", "unit_of_measurement": "°C"}),
    ("Motion", "binary_sensor", {"state": "off", "device_class": "motion"}),
    ("Lamp", "light", {"turn_on": [], "turn_off": []}),
    ("Blinds", "cover", {"open_cover": [], "close_cover": []}),
    ("Socket", "switch", {"turn_on": [], "turn_off": []}),
    ("Humidity", "sensor", {"state": "48", "unit_of_measurement": "%"}),
    ("Window", "binary_sensor", {"state": "off", "device_class": "window"}),
    ("Night Mode", "input_boolean", None),
    ("Light Strip", "light", {"turn_on": [], "turn_off": []}),
    ("Speaker Power", "switch", {"turn_on": [], "turn_off": []}),
    ("Power Usage", "sensor", {"state": "35", "unit_of_measurement": "W"}),
    ("Radiator Boost", "input_boolean", None),
    ("Door", "binary_sensor", {"state": "off", "device_class": "door"}),
    ("Spotlights", "light", {"turn_on": [], "turn_off": []}),
)
# Devices with no area: outside and whole-house ones, one in every 20.
NO_AREA_EVERY = 20
NO_AREA: tuple[tuple[str, str, dict[str, Any] | None], ...] = (
    ("Outside Temperature", "sensor", {"state": "9", "unit_of_measurement": "°C"}),
    ("Porch Light", "light", {"turn_on": [], "turn_off": []}),
    ("Doorbell", "binary_sensor", {"state": "off", "device_class": "sound"}),
    ("Garden Sprinklers", "switch", {"turn_on": [], "turn_off": []}),
    ("Solar Power", "sensor", {"state": "1200", "unit_of_measurement": "W"}),
    ("Guest Mode", "input_boolean", None),
    ("Driveway Lights", "light", {"turn_on": [], "turn_off": []}),
    ("Outside Humidity", "sensor", {"state": "80", "unit_of_measurement": "%"}),
    ("Car Charger", "switch", {"turn_on": [], "turn_off": []}),
    ("Vacation Mode", "input_boolean", None),
)


@dataclass(frozen=True, slots=True)
class Planned:
    """One device of the home."""

    name: str
    domain: str
    area: str | None
    template: dict[str, Any] | None


def plan(count: int) -> list[Planned]:
    """`count` devices: area by area, the common kinds first."""
    devices: list[Planned] = []
    in_areas = 0
    for index in range(count):
        if index % NO_AREA_EVERY == NO_AREA_EVERY - 1:
            name, domain, template = NO_AREA[index // NO_AREA_EVERY % len(NO_AREA)]
            devices.append(Planned(name, domain, None, template))
            continue
        area = AREAS[in_areas % len(AREAS)]
        kind, domain, template = KINDS[in_areas // len(AREAS) % len(KINDS)]
        devices.append(Planned(f"{area} {kind}", domain, area, template))
        in_areas += 1
    return devices


async def async_build_home(hass: HomeAssistant, count: int) -> list[str]:
    """Set the home up and expose exactly its devices; return their entity ids."""
    devices = plan(count)
    templates: dict[str, list[dict[str, Any]]] = {}
    booleans: dict[str, dict[str, str]] = {}
    for number, device in enumerate(devices):
        if device.template is None:
            booleans[f"home_{number}"] = {"name": device.name}
        else:
            templates.setdefault(device.domain, []).append(
                {"name": device.name, "unique_id": f"home_{number}", **device.template}
            )
    for domain, config in (
        ("homeassistant", {}),
        ("conversation", {}),
        ("intent", {}),
        ("input_boolean", {"input_boolean": booleans}),
        ("template", {"template": [templates]}),
    ):
        assert await async_setup_component(hass, domain, config), domain
    await hass.async_block_till_done()

    floors = fr.async_get(hass)
    areas = ar.async_get(hass)
    area_ids: dict[str, str] = {}
    for level, (floor_name, floor_areas) in enumerate(FLOORS.items()):
        floor_id = floors.async_create(floor_name, level=level).floor_id
        for area in floor_areas:
            area_ids[area] = areas.async_create(area, floor_id=floor_id).id
    entities = er.async_get(hass)
    entity_ids = []
    for number, device in enumerate(devices):
        platform = "input_boolean" if device.template is None else "template"
        unique_id = f"home_{number}"
        entity_id = entities.async_get_entity_id(device.domain, platform, unique_id)
        assert entity_id is not None, device
        if device.area:
            entities.async_update_entity(entity_id, area_id=area_ids[device.area])
        entity_ids.append(entity_id)
    wanted = set(entity_ids)
    for entity_id in hass.states.async_entity_ids():
        async_expose_entity(hass, "conversation", entity_id, entity_id in wanted)
    await hass.async_block_till_done()
    return entity_ids


def _context() -> llm.LLMContext:
    return llm.LLMContext(
        platform=DOMAIN,
        context=Context(),
        language="en",
        assistant=conversation.DOMAIN,
        device_id=None,
    )


async def async_system_prompt(hass: HomeAssistant, api: str | llm.API) -> str:
    """The system prompt an agent with Jarvis's default prompt gets for `api`."""
    with (
        chat_session.async_get_chat_session(hass) as session,
        conversation.async_get_chat_log(hass, session) as chat_log,
    ):
        await chat_log.async_provide_llm_data(_context(), api, DEFAULT_PROMPT, None)
        return chat_log.content[0].content


def home_section(prompt: str, header: str) -> str:
    """The entity overview: from its header to the end of the Assist part."""
    start = prompt.index(header)
    end = prompt.find("\n\n", start)
    return prompt[start : end if end != -1 else None]


@dataclass(frozen=True, slots=True)
class Measured:
    """The prompts of one home size."""

    count: int
    ha_section: str
    ha_prompt: str
    jarvis_section: str
    jarvis_prompt: str
    live_context: str  # GetLiveContext with no filter: HA's, every exposed state
    live_kitchen: str  # GetLiveContext for one area: Jarvis's filter


async def async_measure(hass: HomeAssistant, count: int) -> Measured:
    """Build a home of `count` devices in `hass` and take its prompts."""
    await async_build_home(hass, count)
    assert await async_setup_component(hass, DOMAIN, {})
    ha_prompt = await async_system_prompt(hass, APIS)
    api = home_api(hass, APIS)
    assert isinstance(api, llm.API)
    jarvis_prompt = await async_system_prompt(hass, api)
    tools = await api.async_get_api_instance(_context())
    live, kitchen = [
        await tools.async_call_tool(llm.ToolInput("assist__GetLiveContext", args))
        for args in ({}, {"area": "Kitchen"})
    ]
    return Measured(
        count,
        home_section(ha_prompt, HA_STATIC_CONTEXT),
        ha_prompt,
        home_section(jarvis_prompt, HOME_HEADER),
        jarvis_prompt,
        str(live["result"]),
        str(kitchen["result"]),
    )


def count_tokens(server_url: str, text: str) -> int:
    """Tokens of `text` by the model's own tokenizer."""
    request = urllib.request.Request(
        f"{server_url}/tokenize",
        data=json.dumps({"content": text}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return len(json.loads(response.read())["tokens"])


def rows(measured: Measured, server_url: str) -> Iterator[list[str]]:
    """Table rows: what, characters, estimated tokens, real tokens."""
    estimator = TokenEstimator()
    for what, text in (
        ("HA Assist home section", measured.ha_section),
        ("Jarvis home section", measured.jarvis_section),
        ("whole system prompt, HA's section", measured.ha_prompt),
        ("whole system prompt, Jarvis's section", measured.jarvis_prompt),
        ("GetLiveContext result, no filter", measured.live_context),
        ("GetLiveContext result, area Kitchen", measured.live_kitchen),
    ):
        yield [
            str(measured.count),
            what,
            str(len(text)),
            str(estimator.estimate(text)),
            str(count_tokens(server_url, text)),
        ]


async def main(counts: list[int]) -> None:
    """Measure each home size in a fresh instance; print a Markdown table."""
    measured = []
    for count in counts:
        async with home_assistant() as hass:
            measured.append(await async_measure(hass, count))
    server = LlamaServer(
        model_path(MODEL), ctx=2048, log_path=MODELS_DIR.parent / "llama-bench.log"
    )
    with server:
        print("| devices | text | characters | TokenEstimator | Qwen2.5 tokenizer |")
        print("|---|---|---|---|---|")
        for item in measured:
            for row in rows(item, server.url):
                print(f"| {' | '.join(row)} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.home_prompt")
    parser.add_argument("--counts", default="20,200")
    args = parser.parse_args()
    asyncio.run(main([int(n) for n in args.counts.split(",")]))
