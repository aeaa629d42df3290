"""Long-term memory in Home Assistant: services, storage and conversations."""

from __future__ import annotations

from typing import Any

from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import ServiceValidationError, Unauthorized
from homeassistant.helpers import issue_registry as ir
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
    # An automation (no user) clears the household's memory unless it names one.
    response = await hass.services.async_call(
        DOMAIN, "clear_memory", {}, blocking=True, return_response=True
    )
    assert response == {"forgotten": 0}
    response = await hass.services.async_call(
        DOMAIN, "clear_memory", {"user_id": "u1"}, blocking=True, return_response=True
    )
    assert response == {"forgotten": 1}


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("the garage opens with 4321", "the garage opens with [secret]"),
        ("Haustür: 9 8 7 6", "Haustür: [secret]"),
        ("the boiler was fitted in 2019", "the boiler was fitted in 2019"),
    ],
)
async def test_the_remember_service_keeps_no_unnamed_secret(
    hass: HomeAssistant, hass_storage: dict[str, Any], text: str, kept: str
) -> None:
    assert await async_setup_component(hass, DOMAIN, {})
    response = await hass.services.async_call(
        DOMAIN, "remember", {"text": text}, blocking=True, return_response=True
    )
    assert response == {"remembered": kept}
    await hass.async_block_till_done()
    saved = hass_storage[STORAGE_KEY]["data"]["facts"]["household"]
    assert [fact["text"] for fact in saved] == [kept]


async def test_memory_services_act_on_the_callers_own_memory(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    assert await async_setup_component(hass, DOMAIN, {})
    # (The first user made becomes the owner.)
    admin = await hass.auth.async_create_user("Admin", group_ids=["system-admin"])
    alice = await hass.auth.async_create_user("Alice", group_ids=["system-users"])
    memory = async_get_memory(hass)
    await memory.remember(admin.id, "the safe code is in the study")

    await hass.services.async_call(
        DOMAIN,
        "remember",
        {"text": "I like tea"},
        blocking=True,
        context=Context(user_id=alice.id),
    )
    assert [f.text for f in await memory.recall(alice.id, "tea")] == ["I like tea"]
    for service, data in (
        ("forget", {"text": "safe code", "user_id": admin.id}),
        ("clear_memory", {"user_id": "household"}),
        ("remember", {"text": "doors stay unlocked", "user_id": admin.id}),
    ):
        with pytest.raises(Unauthorized):
            await hass.services.async_call(
                DOMAIN, service, data, blocking=True, context=Context(user_id=alice.id)
            )
    assert [f.text for f in await memory.recall(admin.id, "safe code doors")] == [
        "the safe code is in the study"
    ]
    # An administrator may act on someone else's memory.
    await hass.services.async_call(
        DOMAIN,
        "clear_memory",
        {"user_id": alice.id},
        blocking=True,
        context=Context(user_id=admin.id),
    )
    assert await memory.recall(alice.id, "tea") == []


@pytest.mark.parametrize(
    "data",
    [
        {"facts": []},
        {"facts": {"household": "the cat is Tom"}},
        {"facts": {"household": [{"text": "the cat is Tom"}]}},
        ["not", "an", "object"],
    ],
)
async def test_memory_of_the_wrong_shape_is_set_aside_with_a_repair_issue(
    hass: HomeAssistant, hass_storage: dict[str, Any], data: Any
) -> None:
    hass_storage[STORAGE_KEY] = {"version": 1, "key": STORAGE_KEY, "data": data}
    assert await async_setup_component(hass, DOMAIN, {})
    memory = async_get_memory(hass)

    assert await memory.recall("household", "cat") == []
    await memory.remember("household", "the dog is Rex")
    await hass.async_block_till_done()
    assert hass_storage[f"{STORAGE_KEY}.bad"]["data"] == data
    assert ir.async_get(hass).async_get_issue(DOMAIN, f"bad_store_{STORAGE_KEY}")
    saved = hass_storage[STORAGE_KEY]["data"]["facts"]["household"]
    assert [fact["text"] for fact in saved] == ["the dog is Rex"]


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
    request = scripted_llm.chat_requests[0]["json"]["messages"][-1]["content"]
    assert "my wife's name is Anna" in request
