"""One stable prompt prefix: what differs per satellite, per turn or per
automation goes with the request, at the end of the messages.

The server's prompt cache (llama.cpp's, Ollama's) reuses only a prompt's
common prefix. These tests pin what Jarvis relies on in Home Assistant:
its Assist prompt reaches the chat log's system prompt verbatim, with the
date, time and an automation's extra prompt after it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from freezegun.api import FrozenDateTimeFactory
from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import area_registry as ar, device_registry as dr, llm
from homeassistant.util import dt as dt_util
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)

from bench.home_prompt import async_build_home
from custom_components.jarvis.const import (
    CONF_MODEL,
    CONF_TOOL_ROUTER,
    LLM_API_JARVIS,
    SUBENTRY_CONVERSATION,
)
from custom_components.jarvis.conversation import WARM_UP_COOLDOWN
from custom_components.jarvis.engine.loop.step import CONTEXT_HEADER
from custom_components.jarvis.tools.home import ASSIST_GUIDE, HOME_HEADER
from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.tools.conftest import setup_jarvis

pytestmark = pytest.mark.usefixtures("ha_core")


async def _agent(hass: HomeAssistant, scripted_llm: ScriptedLLMServer) -> str:
    """A home of 20 devices and a Jarvis agent; the agent's entity id."""
    await async_build_home(hass, 20)
    await setup_jarvis(hass, scripted_llm)
    return next(
        e for e in hass.states.async_entity_ids("conversation") if "jarvis" in e
    )


def _satellite(hass: HomeAssistant, area: str) -> str:
    """A device in `area`, as a voice satellite is."""
    owner = MockConfigEntry(domain="test")
    owner.add_to_hass(hass)
    area_id = ar.async_get(hass).async_get_or_create(area).id
    device = dr.async_get(hass).async_get_or_create(
        config_entry_id=owner.entry_id, identifiers={("test", area)}
    )
    dr.async_get(hass).async_update_device(device.id, area_id=area_id)
    return device.id


async def _ask(
    hass: HomeAssistant, agent: str, device_id: str | None, extra: str | None = None
) -> None:
    await conversation.async_converse(
        hass,
        "tell me a joke",
        None,
        Context(),
        language="en",
        agent_id=agent,
        device_id=device_id,
        extra_system_prompt=extra,
    )


def _parts(request: dict[str, Any]) -> tuple[str, list[Any], str]:
    """A chat request's system prompt, tools and last user message."""
    body = request["json"]
    messages = body["messages"]
    user = [m["content"] for m in messages if m["role"] == "user"][-1]
    return messages[0]["content"], body.get("tools") or [], user


async def test_satellites_times_and_automations_share_one_prefix(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    freezer: FrozenDateTimeFactory,
) -> None:
    agent = await _agent(hass, scripted_llm)
    kitchen, bedroom = _satellite(hass, "Kitchen"), _satellite(hass, "Bedroom")
    scripted_llm.script(*[Reply(content="Why did the lamp blink?")] * 3)

    freezer.move_to(datetime(2026, 11, 24, 8, 5, tzinfo=dt_util.UTC))
    await _ask(hass, agent, kitchen)
    freezer.move_to(datetime(2026, 11, 24, 21, 40, tzinfo=dt_util.UTC))
    await _ask(hass, agent, bedroom, extra="The user just came home.")
    await _ask(hass, agent, None)

    (system, tools, first), *others = map(_parts, scripted_llm.chat_requests)
    assert [(s, t) for s, t, _ in others] == [(system, tools)] * 2
    # Jarvis's own words of the Assist prompt and the compact home list.
    assert ASSIST_GUIDE in system
    assert HOME_HEADER in system
    # Nothing of one turn: no area, time, timers or automation's prompt.
    for said in ("Kitchen (", "Bedroom (", "It is", "timers", "came home"):
        assert said not in system

    (_, _, second), (_, _, third) = others
    kitchen_line = (
        "The user is in area Kitchen (floor Ground Floor): a command that "
        "names no area, like 'turn on the lights', is for this area."
    )
    assert first == (
        f"{CONTEXT_HEADER}\n{kitchen_line}\nThis device cannot start timers."
        "\n\ntell me a joke"
    )
    assert "The user is in area Bedroom" in second
    assert "The user just came home." in second
    # The agent has HA's date and time tool: no time in the context. Without
    # a satellite or an automation's prompt, there is no context at all.
    assert "It is " not in first + second
    assert third == "tell me a joke"


async def test_warm_up_at_start_and_after_the_home_changes(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    freezer: FrozenDateTimeFactory,
) -> None:
    agent = await _agent(hass, scripted_llm)
    await hass.async_block_till_done(wait_background_tasks=True)
    (started,) = scripted_llm.warm_ups
    scripted_llm.script(Reply(content="Why did the lamp blink?"))
    await _ask(hass, agent, None)
    (system, tools, said), (turn_system, turn_tools, turn_said) = map(
        _parts, [started, *scripted_llm.chat_requests]
    )
    # The system prompt, the tools every turn starts with and the context's
    # start are what every turn shares.
    assert system == turn_system
    assert tools
    assert turn_tools[: len(tools)] == tools
    # No satellite: no context, the request as the user said it.
    assert (said, turn_said) == ("", "tell me a joke")

    async def settled() -> int:
        freezer.tick(WARM_UP_COOLDOWN + 1)
        async_fire_time_changed(hass)
        await hass.async_block_till_done(wait_background_tasks=True)
        return len(scripted_llm.warm_ups)

    areas = ar.async_get(hass)
    areas.async_create("Sauna")  # no device in it: the prompt stays the same
    assert await settled() == 1
    kitchen = areas.async_get_area_by_name("Kitchen")
    assert kitchen is not None
    areas.async_update(kitchen.id, name="Cookhouse")
    await hass.async_block_till_done()
    assert len(scripted_llm.warm_ups) == 1  # not before the home settles
    assert await settled() == 2
    (_, renamed) = scripted_llm.warm_ups
    assert "Cookhouse" in _parts(renamed)[0]


async def test_a_turn_without_tools_warms_the_prefix_again(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """Small talk's prompt has no tools, and the server then caches that: the
    warm-up runs again, so the next command does not re-read its tool lines."""
    await async_build_home(hass, 20)
    await setup_jarvis(
        hass,
        scripted_llm,
        subentries=[
            ConfigSubentryData(
                data={
                    CONF_MODEL: "test-model",
                    CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, LLM_API_JARVIS],
                    CONF_TOOL_ROUTER: True,
                },
                subentry_type=SUBENTRY_CONVERSATION,
                title="Routed",
                unique_id=None,
            )
        ],
    )
    agent = next(
        state.entity_id
        for state in hass.states.async_all("conversation")
        if state.name == "Routed"
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    # The default agent warms up too, before or after: the routed one's
    # tools lead with the core tools.
    (started,) = [
        warm_up
        for warm_up in scripted_llm.warm_ups
        if [tool["function"]["name"] for tool in warm_up["json"]["tools"]][:2]
        == ["HassTurnOn", "HassTurnOff"]
    ]
    warm_ups = len(scripted_llm.warm_ups)

    async def say(text: str) -> None:
        await conversation.async_converse(
            hass, text, None, Context(), language="en", agent_id=agent
        )
        await hass.async_block_till_done(wait_background_tasks=True)

    scripted_llm.script(Reply(content="Good night."), Reply(content="Done."))
    await say("good night")
    small_talk = scripted_llm.chat_requests[-1]["json"]
    assert not small_talk.get("tools")
    assert len(scripted_llm.warm_ups) == warm_ups + 1
    assert scripted_llm.warm_ups[-1]["json"] == started["json"]

    await say("turn on the kitchen lights")
    assert len(scripted_llm.warm_ups) == warm_ups + 1  # it had the tools
