"""Commands that name no device ("turn them off", "Ahora apágala"), in a real
Home Assistant: run on what the last turn was about with no LLM call, or
asked about when nothing before says which device."""

from __future__ import annotations

from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
)
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er
import pytest

from custom_components.jarvis.const import CONF_LOOK_FIRST
from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.test_conversation import KITCHEN, setup_jarvis, speech
from tests.tools.test_injection import converse

pytestmark = pytest.mark.usefixtures("ha_core")

BED = "light.bed_light"
CEILING = "light.ceiling_lights"


async def _lights(hass: HomeAssistant, on: list[str], off: list[str]) -> None:
    for service, entities in (("turn_on", on), ("turn_off", off)):
        if entities:
            await hass.services.async_call(
                "light", service, {"entity_id": entities}, blocking=True
            )


async def test_them_is_what_the_last_command_acted_on(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    await _lights(hass, on=[BED], off=[])
    first = await converse(hass, agent, "turn on the kitchen lights")
    assert hass.states.get(KITCHEN).state == "on"

    await converse(hass, agent, "turn them off", first["conversation_id"])

    assert hass.states.get(KITCHEN).state == "off"
    assert hass.states.get(BED).state == "on"
    assert scripted_llm.chat_requests == []


async def test_them_is_what_the_last_answer_named(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    await _lights(hass, on=[KITCHEN, CEILING], off=[BED])
    first = await converse(hass, agent, "which lights are on?")
    assert "Kitchen Lights" in speech(first), speech(first)

    response = await converse(
        hass, agent, "turn them all off", first["conversation_id"]
    )

    assert hass.states.get(KITCHEN).state == "off"
    assert hass.states.get(CEILING).state == "off"
    assert "Kitchen Lights" in speech(response), speech(response)
    assert scripted_llm.chat_requests == []


async def test_a_level_said_of_it_sets_the_device_named_before(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    first = await converse(hass, agent, "turn on the kitchen lights")

    response = await converse(hass, agent, "set it to 30%", first["conversation_id"])

    assert hass.states.get(KITCHEN).attributes["brightness"] == round(255 * 0.3)
    assert "30" in speech(response), speech(response)
    assert scripted_llm.chat_requests == []


async def test_a_pronoun_in_another_language_after_the_models_turn(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(Reply(tool_calls=[("HassTurnOn", {"name": "Kitchen Lights"})]))
    first = await converse(hass, agent, "Enciende la luz de la cocina", language="es")
    assert hass.states.get(KITCHEN).state == "on"

    response = await converse(
        hass, agent, "Ahora apágala", first["conversation_id"], language="es"
    )

    assert hass.states.get(KITCHEN).state == "off"
    assert speech(response) == "Hecho, he apagado Kitchen Lights."
    assert len(scripted_llm.chat_requests) == 1


@pytest.mark.parametrize(
    ("text", "language", "question"),
    [
        ("turn it off", "en", "Which device do you mean?"),
        ("set it to 50", "en", "Which device do you mean?"),
        ("mach sie an", "de", "Welches Gerät meinst du?"),
    ],
)
async def test_with_nothing_said_before_jarvis_asks_which_device(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    text: str,
    language: str,
    question: str,
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    await _lights(hass, on=[BED], off=[])
    before = {s.entity_id: s.state for s in hass.states.async_all("light")}

    response = await converse(hass, agent, text, language=language)

    assert speech(response) == question
    assert response["continue_conversation"] is True
    assert {s.entity_id: s.state for s in hass.states.async_all("light")} == before
    assert scripted_llm.chat_requests == []


async def test_unlocking_what_was_asked_about_waits_for_a_yes(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    hass.states.async_set("lock.front_door", "locked", {"friendly_name": "Front Door"})
    async_expose_entity(hass, "conversation", "lock.front_door", True)
    scripted_llm.script(Reply(content="Front Door is locked."))
    first = await converse(hass, agent, "what about the front door?")

    response = await converse(hass, agent, "unlock it", first["conversation_id"])

    assert speech(response) == "Shall I unlock Front Door?"
    assert hass.states.get("lock.front_door").state == "locked"
    assert len(scripted_llm.chat_requests) == 1


@pytest.mark.parametrize("text", ["turn everything off", "turn off the bed light"])
async def test_a_command_that_names_something_is_not_taken_as_it(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, text: str
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "Kitchen Lights"})]),
        Reply(content="I can't do that."),
    )
    first = await converse(hass, agent, "turn on the kitchen lights")

    response = await converse(hass, agent, text, first["conversation_id"])

    assert speech(response) == "I can't do that."
    assert hass.states.get(KITCHEN).state == "on"
    assert len(scripted_llm.chat_requests) == 2


async def test_what_cannot_do_it_is_left_to_the_model(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """The last turn named a sensor: "turn it off" is the model's to answer."""
    _, agent = await setup_jarvis(hass, scripted_llm, **{CONF_LOOK_FIRST: False})
    hass.states.async_set(
        "sensor.outside_temperature",
        "15.6",
        {"friendly_name": "Outside Temperature", "unit_of_measurement": "°C"},
    )
    async_expose_entity(hass, "conversation", "sensor.outside_temperature", True)
    scripted_llm.script(Reply(content="Outside Temperature is 15.6 °C."))
    first = await converse(hass, agent, "how warm is it outside?")
    assert "Outside Temperature" in speech(first)
    scripted_llm.script(Reply(content="I can't turn a sensor off."))

    response = await converse(hass, agent, "turn it off", first["conversation_id"])

    assert speech(response) == "I can't turn a sensor off."
    assert len(scripted_llm.chat_requests) == 2


async def test_a_device_said_alone_gets_the_last_action(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    await _lights(hass, on=[], off=[BED])
    first = await converse(hass, agent, "turn on the kitchen lights")

    await converse(hass, agent, "and the bed light too", first["conversation_id"])

    assert hass.states.get(BED).state == "on"
    assert scripted_llm.chat_requests == []


async def test_an_area_said_alone_gets_the_last_action_on_its_kind(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    areas, entities = ar.async_get(hass), er.async_get(hass)
    for area, members in (("Office", [CEILING]), ("Kitchen", [KITCHEN, BED])):
        place = areas.async_create(area)
        for entity_id in members:
            entities.async_update_entity(entity_id, area_id=place.id)
    await _lights(hass, on=[CEILING, KITCHEN, BED], off=[])
    call = ("HassTurnOff", {"area": "Office", "domain": ["light"]})
    scripted_llm.script(Reply(tool_calls=[call]), Reply(content="Done."))
    first = await converse(hass, agent, "turn off the lights in the office")
    assert hass.states.get(CEILING).state == "off"

    await converse(hass, agent, "and the kitchen", first["conversation_id"])

    assert [hass.states.get(e).state for e in (KITCHEN, BED)] == ["off", "off"]
    assert len(scripted_llm.chat_requests) == 1


async def test_words_that_name_nothing_of_the_home_are_the_models(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    first = await converse(hass, agent, "turn on the kitchen lights")
    scripted_llm.script(Reply(content="I can't make sandwiches."))

    response = await converse(
        hass, agent, "and a sandwich too", first["conversation_id"]
    )

    assert speech(response) == "I can't make sandwiches."
    assert len(scripted_llm.chat_requests) == 1


async def test_a_device_said_alone_after_jarvis_ran_the_last_one_itself(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    await _lights(hass, on=[], off=[BED, CEILING])
    first = await converse(hass, agent, "turn on the kitchen lights")
    await converse(hass, agent, "and the bed light too", first["conversation_id"])

    await converse(hass, agent, "and the ceiling lights too", first["conversation_id"])

    assert [hass.states.get(e).state for e in (BED, CEILING)] == ["on", "on"]
    assert scripted_llm.chat_requests == []
