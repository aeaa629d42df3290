"""Long-term memory in Home Assistant: services, storage and conversations."""

from __future__ import annotations

from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ServiceValidationError
from homeassistant.setup import async_setup_component
import pytest

from custom_components.jarvis.const import DOMAIN
from custom_components.jarvis.engine.phrases import REMEMBERED
from custom_components.jarvis.memory import STORAGE_KEY, async_get_memory
from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.test_conversation import process, setup_jarvis, speech

pytestmark = pytest.mark.usefixtures("ha_core")


async def test_memory_services_persist_atomically(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    assert await async_setup_component(hass, DOMAIN, {})
    response = await hass.services.async_call(
        DOMAIN,
        "remember",
        {"text": "the spare key is under the blue pot"},
        blocking=True,
        return_response=True,
    )
    assert response == {"remembered": "the spare key is under the blue pot"}
    await hass.async_block_till_done()
    saved = hass_storage[STORAGE_KEY]["data"]["facts"]["household"]
    assert saved[0]["text"] == "the spare key is under the blue pot"

    response = await hass.services.async_call(
        DOMAIN, "forget", {"text": "spare key"}, blocking=True, return_response=True
    )
    assert response == {"forgotten": 1}
    await hass.services.async_call(
        DOMAIN, "remember", {"text": "a", "user_id": "u1"}, blocking=True
    )
    response = await hass.services.async_call(
        DOMAIN, "clear_memory", {}, blocking=True, return_response=True
    )
    assert response == {"forgotten": 1}


@pytest.mark.parametrize("service", ["remember", "forget"])
async def test_blank_fact_is_refused(
    hass: HomeAssistant, hass_storage: dict[str, Any], service: str
) -> None:
    assert await async_setup_component(hass, DOMAIN, {})
    await hass.services.async_call(
        DOMAIN, "remember", {"text": "the cat is Tom"}, blocking=True
    )
    with pytest.raises(ServiceValidationError) as raised:
        await hass.services.async_call(DOMAIN, service, {"text": "  "}, blocking=True)
    assert raised.value.translation_key == "empty_text"
    facts = await async_get_memory(hass).recall("household", "cat")
    assert [fact.text for fact in facts] == ["the cat is Tom"]


async def test_memory_survives_a_restart(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    hass_storage[STORAGE_KEY] = {
        "version": 1,
        "key": STORAGE_KEY,
        "data": {"facts": {"household": [{"text": "the cat is Tom", "created": 1.0}]}},
    }
    facts = await async_get_memory(hass).recall("household", "what is the cat called")
    assert [fact.text for fact in facts] == ["the cat is Tom"]


async def test_remember_by_voice_then_ask(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    first = await process(hass, agent, "remember that my wife's name is Anna")
    assert speech(first) == REMEMBERED["en"]
    assert scripted_llm.chat_requests == []

    scripted_llm.script(Reply(content="Her name is Anna."))
    second = await process(hass, agent, "what's my wife's name?")
    assert speech(second) == "Her name is Anna."
    system = scripted_llm.chat_requests[0]["json"]["messages"][0]["content"]
    assert "my wife's name is Anna" in system
