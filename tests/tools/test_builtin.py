"""The `jarvis` LLM API and its built-in tools in a real Home Assistant."""

from __future__ import annotations

import re

from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
)
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import area_registry as ar, entity_registry as er, llm
from homeassistant.util import dt as dt_util
import pytest

from custom_components.jarvis.const import (
    CONF_MODEL,
    CONF_PREFER_LOCAL,
    CONF_SENSITIVE,
    LLM_API_JARVIS,
)
from custom_components.jarvis.tools.hub import DATA_TOOLS
from tests.common import async_add_jarvis_agent
from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.tools.conftest import (
    FRONT_DOOR,
    GARAGE,
    KITCHEN,
    call_tool,
    llm_context,
    setup_home,
    setup_jarvis,
    tool_names,
)
from tests.tools.test_injection import converse, speech

pytestmark = pytest.mark.usefixtures("jarvis_domain")


async def test_api_registered_once_and_merges_with_assist(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    await setup_home(hass)
    await setup_jarvis(hass, scripted_llm)
    apis = {api.id: api.name for api in llm.async_get_apis(hass)}
    assert apis[LLM_API_JARVIS] == "Jarvis tools"

    merged = await llm.async_get_api(
        hass, [llm.LLM_API_ASSIST, LLM_API_JARVIS], llm_context()
    )
    names = [tool.name for tool in merged.tools]
    assert "assist__HassTurnOn" in names
    assert "jarvis-tools__call_service" in names
    assert all(len(name) <= 64 for name in names)
    # Web search is off by default.
    assert "web_search" not in await tool_names(hass)


async def test_time_and_calculator(hass: HomeAssistant) -> None:
    await hass.config.async_update(time_zone="Europe/Amsterdam")
    now = await call_tool(hass, "get_time")
    assert now["timezone"] == "Europe/Amsterdam"
    assert now["utc_offset"] in ("+01:00", "+02:00")
    assert (await call_tool(hass, "calculate", {"expression": "(3+4)*2"}))[
        "result"
    ] == 14
    with pytest.raises(HomeAssistantError, match="Only numbers"):
        await call_tool(hass, "calculate", {"expression": "__import__('os')"})


async def test_the_weather_forecast_of_the_exposed_weather(
    hass: HomeAssistant,
) -> None:
    """The demo home's weather forecasts its days; the days asked, from today."""
    await setup_home(hass)
    async_expose_entity(hass, "conversation", "weather.demo_weather_south", True)
    forecast = await call_tool(hass, "weather_forecast")

    assert forecast["weather"] == "Demo Weather South"
    today, tomorrow, *_ = forecast["forecast"]
    assert today.startswith(f"Today, {dt_util.now().strftime('%A %Y-%m-%d')}: ")
    assert tomorrow.startswith("Tomorrow, ")
    # Each day's condition, high and low: "sunny, high 21 °C, low 13 °C".
    assert re.search(r": \w[\w-]*, high -?\d+(\.\d+)? °C, low -?\d+", tomorrow)


@pytest.mark.parametrize(
    ("request_text", "language", "said"),
    [
        (
            "will it rain tomorrow?",
            "en",
            r"Tomorrow: [a-z ]+, from -?\d+ °C to -?\d+ °C\. \d+% chance of rain\.",
        ),
        (
            "wird es morgen regnen?",
            "de",
            r"Morgen: [a-zäöüß ,]+, -?\d+ °C bis -?\d+ °C\. "
            r"Regenwahrscheinlichkeit \d+ %\.",
        ),
    ],
)
async def test_the_forecast_of_the_day_asked_is_said_in_jarviss_words(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    request_text: str,
    language: str,
    said: str,
) -> None:
    """HA's Assist tools tell only the weather now. Given a day's forecast,
    0.5B said "sunny" of a rainy day: Jarvis says the day's forecast, its
    condition in HA's own words for the language."""
    await setup_home(hass)
    async_expose_entity(hass, "conversation", "weather.demo_weather_south", True)
    await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(
        Reply(tool_calls=[("weather_forecast", {})]),
        Reply(content="Tomorrow looks sunny."),
    )

    response = await converse(
        hass, "conversation.jarvis", request_text, language=language
    )

    assert re.fullmatch(said, speech(response)), speech(response)
    # The tool's answer ends the turn: no second model call.
    assert len(scripted_llm.chat_requests) == 1


async def test_no_exposed_weather_says_how_to_expose_one(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """HA exposes no weather to Assist by default: the forecast had failed
    as a tool error, and 0.5B said "Sorry, I couldn't work that out."."""
    await setup_home(hass)
    await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(Reply(tool_calls=[("weather_forecast", {})]))

    response = await converse(hass, "conversation.jarvis", "will it rain tomorrow?")

    assert speech(response) == (
        "I can't see a weather forecast: expose a weather entity to Assist."
    )


async def test_service_call_on_exposed_entity(hass: HomeAssistant) -> None:
    await setup_home(hass)
    result = await call_tool(
        hass,
        "call_service",
        {
            "domain": "light",
            "service": "turn_on",
            "entity_id": KITCHEN,
            "data": {"brightness_pct": 40},
        },
    )
    assert result == {"success": True, "states": {KITCHEN: "on"}}
    assert hass.states.get(KITCHEN).attributes["brightness"] == 102


async def test_names_and_service_given_as_domain_dot_service(
    hass: HomeAssistant,
) -> None:
    await setup_home(hass)
    await call_tool(
        hass,
        "call_service",
        {"domain": "", "service": "light.turn_on", "entity_id": ["Kitchen Lights"]},
    )
    assert hass.states.get(KITCHEN).state == "on"


async def test_unknown_and_unexposed_entities_get_close_matches(
    hass: HomeAssistant,
) -> None:
    await setup_home(hass)
    with pytest.raises(
        HomeAssistantError, match=r"kitchen_light'.*light\.kitchen_lights"
    ):
        await call_tool(
            hass,
            "call_service",
            {
                "domain": "light",
                "service": "turn_on",
                "entity_id": "light.kitchen_light",
            },
        )
    async_expose_entity(hass, "conversation", KITCHEN, False)
    with pytest.raises(HomeAssistantError, match="Unknown or unexposed"):
        await call_tool(
            hass,
            "call_service",
            {"domain": "light", "service": "turn_on", "entity_id": KITCHEN},
        )
    assert hass.states.get(KITCHEN).state == "off"


async def test_bad_service_domain_or_data_are_errors(hass: HomeAssistant) -> None:
    await setup_home(hass)
    with pytest.raises(HomeAssistantError, match=r"Services of light: .*turn_on"):
        await call_tool(
            hass,
            "call_service",
            {"domain": "light", "service": "switch_on", "entity_id": KITCHEN},
        )
    with pytest.raises(HomeAssistantError, match="use the service of their own"):
        await call_tool(
            hass,
            "call_service",
            {"domain": "switch", "service": "turn_on", "entity_id": KITCHEN},
        )
    with pytest.raises(HomeAssistantError, match="needs a target"):
        await call_tool(hass, "call_service", {"domain": "light", "service": "turn_on"})
    with pytest.raises(
        HomeAssistantError, match=r"Invalid data.*Valid fields: .*brightness"
    ):
        await call_tool(
            hass,
            "call_service",
            {
                "domain": "light",
                "service": "turn_on",
                "entity_id": KITCHEN,
                "data": {"brightness_pct": "very"},
            },
        )


async def test_area_targets_only_exposed_entities(hass: HomeAssistant) -> None:
    await setup_home(hass)
    area = ar.async_get(hass).async_create("Den")
    registry = er.async_get(hass)
    lights = hass.states.async_entity_ids("light")[:2]
    for entity_id in lights:
        registry.async_update_entity(entity_id, area_id=area.id)
        await hass.services.async_call(
            "light", "turn_off", {"entity_id": entity_id}, blocking=True
        )
    async_expose_entity(hass, "conversation", lights[1], False)

    result = await call_tool(
        hass, "call_service", {"domain": "light", "service": "turn_on", "area": "den"}
    )
    assert list(result["states"]) == [lights[0]]
    assert hass.states.get(lights[1]).state == "off"
    with pytest.raises(
        HomeAssistantError, match=r"Unknown area 'Dne'. Close matches: Den"
    ):
        await call_tool(
            hass,
            "call_service",
            {"domain": "light", "service": "turn_on", "area": "Dne"},
        )
    with pytest.raises(HomeAssistantError, match="No exposed lock entities"):
        await call_tool(
            hass, "call_service", {"domain": "lock", "service": "lock", "area": "Den"}
        )


async def test_unlock_waits_for_yes_in_the_next_turn(hass: HomeAssistant) -> None:
    await setup_home(hass)
    turn = Context()
    unlock = {"domain": "lock", "service": "unlock", "entity_id": FRONT_DOOR}
    held = await call_tool(hass, "call_service", unlock, turn)
    assert held["confirmation_required"] is True
    assert "unlock Front Door" in held["action"]
    assert hass.states.get(FRONT_DOOR).state == "locked"

    # The same turn cannot confirm it (an injected confirm_action lands here).
    refused = await call_tool(hass, "confirm_action", {}, turn)
    assert refused["error"] == "not_confirmed"
    assert hass.states.get(FRONT_DOOR).state == "locked"


async def test_garage_and_configured_kinds(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    await setup_home(hass)
    open_garage = {"domain": "cover", "service": "open_cover", "entity_id": GARAGE}
    assert (await call_tool(hass, "call_service", open_garage))["confirmation_required"]
    window = {
        "domain": "cover",
        "service": "open_cover",
        "entity_id": "cover.kitchen_window",
    }
    assert (await call_tool(hass, "call_service", window))["success"]

    # Locks left out of the guarded kinds by the user's options.
    await setup_jarvis(hass, scripted_llm, options={"sensitive": ["garage_doors"]})
    unlock = {"domain": "lock", "service": "unlock", "entity_id": FRONT_DOOR}
    assert (await call_tool(hass, "call_service", unlock))["success"]
    assert hass.states.get(FRONT_DOOR).state == "unlocked"
    assert hass.data[DATA_TOOLS].settings().sensitive == {"garage_doors"}


async def test_each_entrys_agents_follow_that_entrys_options(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """Two servers, two sets of options: neither leaks into the other's agents;
    another agent using the `jarvis` API gets them combined the safe way."""
    await setup_home(hass)
    agent = {
        CONF_MODEL: "test-model",
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, LLM_API_JARVIS],
        CONF_PREFER_LOCAL: False,
    }
    _, guarded = await async_add_jarvis_agent(hass, scripted_llm.url, agent)
    _, relaxed = await async_add_jarvis_agent(
        hass, scripted_llm.url, agent, options={CONF_SENSITIVE: ["garage_doors"]}
    )
    unlock = {"domain": "lock", "service": "unlock", "entity_id": FRONT_DOOR}

    scripted_llm.script(Reply(tool_calls=[("call_service", unlock)]))
    asked = await converse(hass, guarded, "unlock the front door")
    assert speech(asked) == "Shall I unlock Front Door?"
    assert hass.states.get(FRONT_DOOR).state == "locked"

    # Another agent using the `jarvis` API: every kind any entry guards.
    assert (await call_tool(hass, "call_service", unlock))["confirmation_required"]
    # The second entry's agent: its own options, not the first entry's.
    scripted_llm.script(
        Reply(tool_calls=[("call_service", unlock)]), Reply(content="Unlocked.")
    )
    await converse(hass, relaxed, "unlock the front door")
    assert hass.states.get(FRONT_DOOR).state == "unlocked"
