"""Home Assistant's intents wait for the user's yes before unlocking or opening.

Both ways an intent runs are covered: the fast path (HA's own matcher) and the
Assist API's intent tools called by the (scripted) model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from homeassistant.components import conversation
from homeassistant.components.cover import CoverEntityFeature
from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
)
from homeassistant.components.intent import async_register_timer_handler
from homeassistant.components.intent.timers import TIMER_DATA
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API, EVENT_CALL_SERVICE
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
    llm,
)
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_capture_events,
)

from custom_components.jarvis.const import (
    CONF_MODEL,
    CONF_PREFER_LOCAL,
    CONF_SENSITIVE,
    CONF_TOOL_ROUTER,
    LLM_API_JARVIS,
    SENSITIVE_ALARMS,
    SUBENTRY_CONVERSATION,
)
from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.tools.conftest import FRONT_DOOR, GARAGE, KITCHEN, setup_home, setup_jarvis
from tests.tools.test_injection import converse, logged_results, speech

pytestmark = pytest.mark.usefixtures("ha_core")

KITCHEN_DOOR = "lock.kitchen_door"
type Call = tuple[str, dict[str, Any]]

UNLOCK: Call = ("HassTurnOff", {"name": "Front Door", "domain": ["lock"]})
OPEN_GARAGE: Call = ("HassTurnOn", {"name": "Garage Door"})
CONFIRM: Call = ("confirm_action", {})


def agent_subentry(title: str, apis: list[str], **flags: bool) -> ConfigSubentryData:
    """An agent beside the default one, with its own APIs and fast-path flag."""
    return ConfigSubentryData(
        data={
            CONF_MODEL: "test-model",
            CONF_LLM_HASS_API: apis,
            CONF_PREFER_LOCAL: False,
            CONF_TOOL_ROUTER: False,
            **flags,
        },
        subentry_type=SUBENTRY_CONVERSATION,
        title=title,
        unique_id=None,
    )


async def agents(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    options: dict[str, Any] | None = None,
) -> dict[str, str]:
    """Demo home and four agents: their entity ids by title."""
    await setup_home(hass)
    async_expose_entity(hass, "conversation", GARAGE, True)
    both = [llm.LLM_API_ASSIST, LLM_API_JARVIS]
    await setup_jarvis(
        hass,
        scripted_llm,
        subentries=[
            agent_subentry("Fast", both, **{CONF_PREFER_LOCAL: True}),
            agent_subentry("Assist only", [llm.LLM_API_ASSIST]),
            agent_subentry(
                "Fast assist only", [llm.LLM_API_ASSIST], **{CONF_PREFER_LOCAL: True}
            ),
        ],
        options=options,
    )
    return {
        state.name: state.entity_id
        for state in hass.states.async_all("conversation")
        if state.entity_id != "conversation.home_assistant"
    }


def offered(scripted_llm: ScriptedLLMServer) -> list[str]:
    """The tool names the last chat request offered."""
    request = scripted_llm.chat_requests[-1]["json"]
    return [tool["function"]["name"] for tool in request.get("tools", [])]


@pytest.mark.parametrize("agent", ["Fast", "Fast assist only"])
async def test_fast_path_holds_what_the_matcher_resolved_and_asks_without_the_model(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent: str
) -> None:
    agent_id = (await agents(hass, scripted_llm))[agent]
    first = await converse(hass, agent_id, "unlock the front door")

    assert hass.states.get(FRONT_DOOR).state == "locked"
    assert speech(first) == "Shall I unlock Front Door?"
    assert first["continue_conversation"]

    second = await converse(hass, agent_id, "yes", first["conversation_id"])
    assert hass.states.get(FRONT_DOOR).state == "unlocked"
    assert speech(second) == "Done, I unlocked Front Door."
    assert scripted_llm.chat_requests == []


async def test_fast_path_still_runs_what_needs_no_confirmation(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    agent_id = (await agents(hass, scripted_llm))["Fast"]
    await converse(hass, agent_id, "turn on the kitchen lights")
    # Locking is not sensitive; the same lock sentences reach HA's matcher.
    await converse(hass, agent_id, "lock the kitchen door")

    assert hass.states.get(KITCHEN).state == "on"
    assert hass.states.get(KITCHEN_DOOR).state == "locked"
    assert scripted_llm.chat_requests == []


async def test_fast_path_runs_kinds_the_options_leave_unguarded(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    agent_id = (await agents(hass, scripted_llm, {CONF_SENSITIVE: [SENSITIVE_ALARMS]}))[
        "Fast"
    ]
    await converse(hass, agent_id, "unlock the front door")

    assert hass.states.get(FRONT_DOOR).state == "unlocked"
    assert scripted_llm.chat_requests == []


async def test_an_item_hass_matcher_cuts_inside_a_word_is_added_as_said(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    """HA's Spanish sentences take "regar las plantas a l" for the item of
    "añade regar las plantas a la lista de la compra": Jarvis adds the item
    the user said to the list they named, with no LLM call."""
    agent_id = await with_shopping_list(hass, scripted_llm, tmp_path, "Fast")
    er.async_get(hass).async_update_entity(
        "todo.shopping_list", name="Lista de la compra"
    )
    await converse(
        hass, agent_id, "añade regar las plantas a la lista de la compra", language="es"
    )

    assert await shopping_items(hass) == ["regar las plantas"]
    assert scripted_llm.chat_requests == []


async def test_joined_commands_go_to_the_model_when_one_reaches_nothing(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """HA's matcher knows the name and the area, yet nothing is both: run
    alone, the first command would be half of what was asked."""
    agent_id = (await agents(hass, scripted_llm))["Fast"]
    ar.async_get(hass).async_create("Office")
    scripted_llm.script(Reply(content="There is no bed light in the office."))

    response = await converse(
        hass,
        agent_id,
        "turn on the kitchen lights and then turn off the bed light in the office",
    )

    assert speech(response) == "There is no bed light in the office."
    assert hass.states.get(KITCHEN).state == "off"
    assert len(scripted_llm.chat_requests) == 1


@pytest.mark.parametrize(
    "said",
    [
        "öffne den Vorhang im Esszimmer",
        "schalte Kitchen Lights ein und dann öffne den Vorhang im Esszimmer",
    ],
)
async def test_a_match_on_a_whole_room_acts_on_the_device_the_user_named(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, said: str
) -> None:
    """HA's German sentences take "Vorhang" as any cover: "öffne den Vorhang
    im Esszimmer" would open the dining room's blind too."""
    agent_id = (await agents(hass, scripted_llm))["Fast"]
    dining = ar.async_get(hass).async_create("Esszimmer")
    curtain, blind = "cover.kitchen_window", "cover.hall_window"
    entities = er.async_get(hass)
    for entity_id, name in [(curtain, "Vorhang"), (blind, "Rollladen")]:
        entities.async_update_entity(entity_id, name=name, area_id=dining.id)
        await hass.services.async_call(
            "cover", "close_cover", {"entity_id": entity_id}, blocking=True
        )
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": KITCHEN}, blocking=True
    )

    response = await converse(hass, agent_id, said, language="de")
    await hass.async_block_till_done()

    assert hass.states.get(KITCHEN).state == ("on" if "Kitchen" in said else "off")
    assert hass.states.get(curtain).state in ("open", "opening")
    assert hass.states.get(blind).state in ("closed", "closing")
    assert speech(response).endswith("Erledigt, ich habe Vorhang geöffnet.")
    assert scripted_llm.chat_requests == []


async def test_joined_commands_are_said_as_sentences(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """HA's German reply to closing a cover is "geschlossen": joined, it
    starts a sentence of its own."""
    agent_id = (await agents(hass, scripted_llm))["Fast"]
    curtain = "cover.kitchen_window"
    er.async_get(hass).async_update_entity(curtain, name="Vorhang")
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": KITCHEN}, blocking=True
    )

    response = await converse(
        hass,
        agent_id,
        "schalte Kitchen Lights ein und dann schließe den Vorhang",
        language="de",
    )
    await hass.async_block_till_done()

    assert hass.states.get(KITCHEN).state == "on"
    assert hass.states.get(curtain).state in ("closed", "closing")
    assert speech(response) == "Kitchen Lights eingeschaltet. Geschlossen."
    assert scripted_llm.chat_requests == []


@dataclass(frozen=True)
class Sensitive:
    """A sensitive intent call and what it does to its target."""

    call: Call
    entity_id: str
    before: str
    after: str
    action: str


@pytest.mark.parametrize(
    "case",
    [
        Sensitive(UNLOCK, FRONT_DOOR, "locked", "unlocked", "unlock Front Door"),
        Sensitive(OPEN_GARAGE, GARAGE, "closed", "open", "open Garage Door"),
    ],
    ids=["unlock", "open_garage"],
)
@pytest.mark.parametrize("agent", ["Jarvis", "Assist only"])
async def test_intent_tool_waits_for_the_users_yes(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent: str, case: Sensitive
) -> None:
    agent_id = (await agents(hass, scripted_llm))[agent]
    scripted_llm.script(Reply(tool_calls=[case.call]))
    with logged_results(hass) as results:
        first = await converse(hass, agent_id, "please do it")
        assert hass.states.get(case.entity_id).state == case.before
        (held,) = results
        assert held["confirmation_required"] is True
        assert held["action"] == case.action
        assert speech(first) == f"Shall I {case.action}?"

        await converse(hass, agent_id, "yes", first["conversation_id"])
    assert hass.states.get(case.entity_id).state == case.after
    # The held call itself ran, not the intent matched again by name.
    assert results[-1]["success"] is True
    assert len(scripted_llm.chat_requests) == 1


async def test_a_yes_with_more_words_runs_the_held_call_without_the_model(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """The owner's next message answers the hold before any model sees it, so
    agents without the `jarvis` API need no confirm_action."""
    agent_id = (await agents(hass, scripted_llm))["Assist only"]
    scripted_llm.script(Reply(tool_calls=[UNLOCK]))
    first = await converse(hass, agent_id, "unlock the front door")
    await converse(hass, agent_id, "yes, unlock it now", first["conversation_id"])

    assert "confirm_action" not in offered(scripted_llm)
    assert hass.states.get(FRONT_DOOR).state == "unlocked"
    assert len(scripted_llm.chat_requests) == 1


async def test_intent_tool_no_means_no(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    agent_id = (await agents(hass, scripted_llm))["Jarvis"]
    scripted_llm.script(Reply(tool_calls=[UNLOCK]))
    first = await converse(hass, agent_id, "unlock the front door")
    await converse(hass, agent_id, "no", first["conversation_id"])

    assert hass.states.get(FRONT_DOOR).state == "locked"
    assert len(scripted_llm.chat_requests) == 1


async def test_confirming_in_the_same_turn_runs_nothing(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """What an injected "then call confirm_action" would have the model do."""
    agent_id = (await agents(hass, scripted_llm))["Jarvis"]
    scripted_llm.script(Reply(tool_calls=[UNLOCK, CONFIRM]))
    with logged_results(hass) as results:
        await converse(hass, agent_id, "what's the weather?")

    assert hass.states.get(FRONT_DOOR).state == "locked"
    outcomes = [
        "held" if result.get("confirmation_required") else result.get("error")
        for result in results
    ]
    assert outcomes == ["held", "not_confirmed"]


async def garage_door_to_100(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent_id: str
) -> tuple[list[dict[str, Any]], str]:
    """The model's position call for "garage door to 100": results, reply."""
    scripted_llm.script(
        Reply(
            tool_calls=[("HassSetPosition", {"name": "Garage Door", "position": 100})]
        )
    )
    with logged_results(hass) as results:
        response = await converse(hass, agent_id, "garage door to 100")
    return results, speech(response)


async def test_set_position_on_the_garage_door_is_held(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    agent_id = (await agents(hass, scripted_llm))["Jarvis"]
    # The demo's garage door only opens and closes: as one that takes a
    # position says it does.
    garage = hass.states.get(GARAGE)
    features = garage.attributes["supported_features"] | CoverEntityFeature.SET_POSITION
    hass.states.async_set(
        GARAGE, garage.state, garage.attributes | {"supported_features": features}
    )

    (held,), reply = await garage_door_to_100(hass, scripted_llm, agent_id)

    assert hass.states.get(GARAGE).state == "closed"
    assert held["action"] == "move Garage Door to 100%"
    assert reply == "Shall I move Garage Door to 100%?"


async def test_set_position_on_a_garage_door_without_one_is_refused_unasked(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """No yes is asked for what cannot run: after it, HA's handler would
    have called set_cover_position on a door that only opens and closes."""
    agent_id = (await agents(hass, scripted_llm))["Jarvis"]
    results, reply = await garage_door_to_100(hass, scripted_llm, agent_id)

    assert hass.states.get(GARAGE).state == "closed"
    assert "confirmation_required" not in results[0]
    assert reply == "Sorry, I can't move Garage Door to 100%."


@pytest.mark.parametrize(
    ("agent", "language", "dids"),
    [
        ("Jarvis", "en", ["turned on Kitchen Lights", "locked Kitchen Door"]),
        ("Assist only", "en", ["turned on Kitchen Lights", "locked Kitchen Door"]),
        (
            "Assist only",
            "de",
            ["Kitchen Lights eingeschaltet", "Kitchen Door abgeschlossen"],
        ),
    ],
)
async def test_intent_tools_run_at_once_when_nothing_is_sensitive(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    agent: str,
    language: str,
    dids: list[str],
) -> None:
    """And say what they did, in the user's language: a text-protocol model's
    turn may end with that."""
    agent_id = (await agents(hass, scripted_llm))[agent]
    scripted_llm.script(
        Reply(
            tool_calls=[
                ("HassTurnOn", {"name": "Kitchen Lights"}),
                ("HassTurnOn", {"name": "Kitchen Door", "domain": ["lock"]}),
            ]
        ),
        Reply(content="Done."),
    )
    with logged_results(hass) as results:
        await converse(
            hass,
            agent_id,
            "kitchen lights on and lock the kitchen door",
            language=language,
        )

    assert hass.states.get(KITCHEN).state == "on"
    assert hass.states.get(KITCHEN_DOOR).state == "locked"
    assert all("confirmation_required" not in r for r in results)
    assert [result["did"] for result in results] == dids


@pytest.mark.parametrize(
    ("said", "arguments", "did"),
    [
        ("kitchen lights to 40%", {"brightness": 40}, "set Kitchen Lights to 40%"),
        # A colour is no level, and "turned on" is not what it did.
        ("kitchen lights to red", {"color": "red"}, None),
    ],
)
async def test_a_level_set_says_the_level_not_turned_on(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    said: str,
    arguments: dict[str, Any],
    did: str | None,
) -> None:
    """HassLightSet calls light.turn_on: what it did is the level it set."""
    agent_id = (await agents(hass, scripted_llm))["Assist only"]
    scripted_llm.script(
        Reply(tool_calls=[("HassLightSet", {"name": "Kitchen Lights", **arguments})]),
        Reply(content="Dimmed."),
    )
    with logged_results(hass) as results:
        await converse(hass, agent_id, said)

    assert hass.states.get(KITCHEN).state == "on"
    assert results[0].get("did") == did


@pytest.mark.parametrize(
    ("request_text", "language", "call", "service", "did"),
    [
        (
            "turn the kitchen lights on at 40%",
            "en",
            ("HassTurnOn", {"name": "Kitchen Lights"}),
            ("light", "turn_on", {"brightness_pct": 40}),
            "set Kitchen Lights to 40%",
        ),
        (
            "stelle Living Room Window auf 20 Prozent",
            "de",
            ("HassTurnOn", {"name": "Living Room Window"}),
            ("cover", "set_cover_position", {"position": 20}),
            "Living Room Window auf 20 % gestellt",
        ),
        # A level tool for another kind of device: its level for the device.
        (
            "stelle Kitchen Lights auf 70 Prozent",
            "de",
            ("HassSetPosition", {"name": "Kitchen Lights", "position": 70}),
            ("light", "turn_on", {"brightness_pct": 70}),
            "Kitchen Lights auf 70 % gestellt",
        ),
        (
            "living room window to 20",
            "en",
            ("HassLightSet", {"name": "Living Room Window", "brightness": 20}),
            ("cover", "set_cover_position", {"position": 20}),
            "moved Living Room Window to 20%",
        ),
        # Two commands: the level may be the other one's.
        (
            "turn on the kitchen lights and set the window to 20%",
            "en",
            ("HassTurnOn", {"name": "Kitchen Lights"}),
            ("light", "turn_on", {}),
            "turned on Kitchen Lights",
        ),
    ],
)
async def test_an_on_off_call_sets_the_level_the_user_said(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    *,
    request_text: str,
    language: str,
    call: Call,
    service: tuple[str, str, dict[str, Any]],
    did: str,
) -> None:
    """Small models call HassTurnOn for "auf 20 Prozent": the user's level,
    said in percent, is what runs on a target that takes one."""
    agent_id = (await agents(hass, scripted_llm))["Assist only"]
    scripted_llm.script(Reply(tool_calls=[call]), Reply(content="Done."))
    calls = async_capture_events(hass, EVENT_CALL_SERVICE)
    with logged_results(hass) as results:
        await converse(hass, agent_id, request_text, language=language)

    domain, name, data = service
    made = [
        event.data
        for event in calls
        if (event.data["domain"], event.data["service"]) == (domain, name)
    ]
    assert len(made) == 1
    assert {key: made[0]["service_data"].get(key) for key in data} == data
    assert results[0]["did"] == did


async def with_shopping_list(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    tmp_path: Path,
    agent: str = "Assist only",
) -> str:
    """The agents and HA's shopping list, exposed: the `agent`'s entity id."""
    hass.config.config_dir = str(tmp_path)  # the shopping list's file
    agent_id = (await agents(hass, scripted_llm))[agent]
    entry = MockConfigEntry(domain="shopping_list")
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    async_expose_entity(hass, "conversation", "todo.shopping_list", True)
    return agent_id


async def shopping_items(hass: HomeAssistant) -> list[str]:
    """What the shopping list holds."""
    items = await hass.services.async_call(
        "todo",
        "get_items",
        {"entity_id": "todo.shopping_list"},
        blocking=True,
        return_response=True,
    )
    return [item["summary"] for item in items["todo.shopping_list"]["items"]]


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Done, I added milk to Shopping List."),
        ("es", "Hecho, he añadido milk a Shopping List."),
    ],
)
async def test_a_list_add_is_said_in_jarvis_words(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    tmp_path: Path,
    language: str,
    said: str,
) -> None:
    """HA's list intent says nothing itself: Jarvis says what it added, in
    the user's language, instead of asking the model to."""
    agent_id = await with_shopping_list(hass, scripted_llm, tmp_path)
    scripted_llm.script(
        Reply(
            tool_calls=[("HassListAddItem", {"item": "milk", "name": "Shopping List"})]
        ),
        Reply(content="The milk was bought."),
    )
    response = await converse(hass, agent_id, "put milk on it", language=language)

    assert await shopping_items(hass) == ["milk"]
    assert speech(response) == said


async def test_an_item_added_is_without_the_verb_the_model_copied_in(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent_id = await with_shopping_list(hass, scripted_llm, tmp_path)
    scripted_llm.script(
        Reply(
            tool_calls=[
                ("HassListAddItem", {"item": "Añade leche", "name": "Shopping List"})
            ]
        )
    )
    response = await converse(
        hass, agent_id, "añade leche a la lista de la compra", language="es"
    )

    assert await shopping_items(hass) == ["leche"]
    assert speech(response) == "Hecho, he añadido leche a Shopping List."


@pytest.mark.parametrize(
    "call",
    [
        # 0.5B's calls for the request below: all of it as the item, no list,
        {"item": "Setze Oma anrufen auf meine persönlichen Aufgaben"},
        # or the name "name"; and the list as the user inflected it.
        {"item": "Oma anrufen auf meine persönlichen Aufgaben", "name": "name"},
        {"item": "Oma anrufen", "name": "persönlichen Aufgaben"},
        # The list's name as the item too (0.5B, in Spanish),
        {"item": "Persönliche Aufgaben", "name": "Persönliche Aufgaben"},
        # or one word of the item ("Plantas" for "regar las plantas").
        {"item": "Oma", "name": "Persönliche Aufgaben"},
    ],
)
@pytest.mark.parametrize("agent", ["Assist only", "Jarvis"])  # one API, merged APIs
async def test_an_item_goes_on_the_list_the_user_named_without_the_list(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    tmp_path: Path,
    call: dict[str, str],
    agent: str,
) -> None:
    agent_id = await with_shopping_list(hass, scripted_llm, tmp_path, agent)
    er.async_get(hass).async_update_entity(
        "todo.shopping_list", name="Persönliche Aufgaben"
    )
    scripted_llm.script(Reply(tool_calls=[("HassListAddItem", call)]))

    response = await converse(
        hass,
        agent_id,
        "setze Oma anrufen auf meine persönlichen Aufgaben",
        language="de",
    )

    assert await shopping_items(hass) == ["Oma anrufen"]
    assert (
        speech(response)
        == "Erledigt, ich habe Oma anrufen zu Persönliche Aufgaben hinzugefügt."
    )


@pytest.mark.parametrize(
    ("said", "item", "language", "added"),
    [
        (
            "remind me: water the plants, put it on the shopping list",
            "Put it",
            "en",
            "water the plants",
        ),
        (
            "regar las plantas, ponlo en la lista de la compra",
            "Ponlo",
            "es",
            "regar las plantas",
        ),
        # The later clause's verb put before the item (generated home 10).
        (
            "remind me: batteries, put it on the shopping list",
            "Put batteries",
            "en",
            "batteries",
        ),
    ],
)
async def test_an_item_said_before_the_clause_that_lists_it_is_added(  # noqa: PLR0917 - a case per language
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    tmp_path: Path,
    said: str,
    item: str,
    language: str,
    added: str,
) -> None:
    """0.5B's item was "Put it", refused, and it repeated it to the step limit:
    the item is the nearest clause before the one that puts "it" on the list."""
    agent_id = await with_shopping_list(hass, scripted_llm, tmp_path)
    if language == "es":
        er.async_get(hass).async_update_entity(
            "todo.shopping_list", name="Lista de la compra"
        )
    list_name = hass.states.get("todo.shopping_list").name
    add = ("HassListAddItem", {"item": item, "name": list_name})
    scripted_llm.script(Reply(tool_calls=[add]), Reply(content="Done."))

    await converse(hass, agent_id, said, language=language)

    assert await shopping_items(hass) == [added]


@pytest.mark.parametrize(
    ("said", "item", "why"),
    [
        # 0.5B added "Puerta del garaje" to a list for "baja la puerta del
        # garaje del todo" ("del todo": fully).
        ("close the garage door all the way", "garage door", "not a to-do list"),
        # Its item was the request's verb, and no clause says another.
        ("put it on the shopping list", "Put it", "asks to add something"),
    ],
)
async def test_a_list_add_that_is_not_what_was_asked_adds_nothing(  # noqa: PLR0917 - a case per kind of add
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    tmp_path: Path,
    said: str,
    item: str,
    why: str,
) -> None:
    agent_id = await with_shopping_list(hass, scripted_llm, tmp_path)
    add = ("HassListAddItem", {"item": item, "name": "Shopping List"})
    scripted_llm.script(Reply(tool_calls=[add]), Reply(content="Sorry."))

    await converse(hass, agent_id, said)

    error = scripted_llm.chat_requests[1]["json"]["messages"][-1]["content"]
    assert why in error
    assert await shopping_items(hass) == []


async def test_a_list_add_that_matches_no_list_is_told_in_words(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    """HA's error is the repr of its match; after it, 0.5B repeated the call."""
    agent_id = await with_shopping_list(hass, scripted_llm, tmp_path)
    # A second list: the call's name then means no one list.
    hass.states.async_set("todo.chores", "0", {"friendly_name": "Chores"})
    async_expose_entity(hass, "conversation", "todo.chores", True)
    scripted_llm.script(
        Reply(tool_calls=[("HassListAddItem", {"item": "milk", "name": "Groceries"})]),
        Reply(content="I could not find that list."),
    )
    await converse(hass, agent_id, "put milk on the groceries")

    error = scripted_llm.chat_requests[1]["json"]["messages"][-1]["content"]
    assert "MatchTargetsResult" not in error
    assert "No todo called 'Groceries' was found." in error
    assert await shopping_items(hass) == []


async def test_a_call_that_gives_a_kind_the_tool_refuses_names_the_tools_that_can(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """0.5B raised a thermostat with HassSetVolume and "domain": "climate":
    HA's error named only the slot, and 0.5B read it out."""
    agent_id = (await agents(hass, scripted_llm))["Jarvis"]
    call = (
        "HassSetVolume",
        {"name": "HeatPump", "domain": "climate", "volume_level": 23},
    )
    scripted_llm.script(Reply(tool_calls=[call]), Reply(content="Sorry."))

    await converse(hass, agent_id, "raise the heat pump to 23")

    error = scripted_llm.chat_requests[1]["json"]["messages"][-1]["content"]
    assert "wrong_tool" in error
    assert "HeatPump is a climate entity" in error
    assert "Use HassClimateSetTemperature" in error


async def test_a_call_on_what_the_tool_cannot_act_on_names_the_tools_that_can(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    """HassTurnOn reaching a to-do list runs nothing, and its error names the
    list's tools, which the model then calls: HA's own error ("Failed to
    call turn_on") left a small model repeating the call."""
    agent_id = await with_shopping_list(hass, scripted_llm, tmp_path)
    calls = async_capture_events(hass, EVENT_CALL_SERVICE)
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "Shopping List"})]),
        Reply(
            tool_calls=[("HassListAddItem", {"item": "milk", "name": "Shopping List"})]
        ),
    )
    response = await converse(hass, agent_id, "milk on the shopping list")

    error = scripted_llm.chat_requests[1]["json"]["messages"][-1]["content"]
    assert "wrong_tool" in error
    assert "Use HassListAddItem or HassListCompleteItem for it." in error
    assert not any(call.data["service"] == "turn_on" for call in calls)
    assert speech(response) == "Done, I added milk to Shopping List."


async def test_a_call_for_another_state_says_the_state_it_found(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """ "Next" on a paused player: the error says it is paused, not HA's
    match repr, and the intent the model then picks is said in Jarvis's
    words."""
    agent_id = (await agents(hass, scripted_llm))["Assist only"]
    walkman = "media_player.walkman"
    await hass.services.async_call(
        "media_player", "media_pause", {"entity_id": walkman}, blocking=True
    )
    scripted_llm.script(
        Reply(tool_calls=[("HassMediaNext", {"name": "Walkman"})]),
        Reply(tool_calls=[("HassMediaUnpause", {"name": "Walkman"})]),
    )
    response = await converse(hass, agent_id, "carry on with the walkman")

    error = scripted_llm.chat_requests[1]["json"]["messages"][-1]["content"]
    assert "wrong_state" in error
    assert (
        "Walkman is paused, and HassMediaNext acts only on one that is playing."
        in error
    )
    assert hass.states.get(walkman).state == "playing"
    assert speech(response) == "Done, I resumed Walkman."


async def _walkman_at_half_volume(hass: HomeAssistant) -> str:
    walkman = "media_player.walkman"
    await hass.services.async_call(
        "media_player",
        "volume_set",
        {"entity_id": walkman, "volume_level": 0.5},
        blocking=True,
    )
    return walkman


@pytest.mark.parametrize(
    ("request_text", "step", "language", "said"),
    [
        ("turn up the walkman", "up", "en", "Done, I turned up the volume of Walkman."),
        (
            "stell den Walkman leiser",
            "down",
            "de",
            "Erledigt, ich habe Walkman leiser gestellt.",
        ),
    ],
)
async def test_a_volume_step_is_said_in_jarvis_s_words(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    *,
    request_text: str,
    step: str,
    language: str,
    said: str,
) -> None:
    """HA's relative volume intent turns the player itself, with no service
    call Jarvis sees: the step it took is said without a model's summary
    (0.5B's made up "increased by 10%")."""
    agent_id = (await agents(hass, scripted_llm))["Assist only"]
    walkman = await _walkman_at_half_volume(hass)
    before = hass.states.get(walkman).attributes["volume_level"]
    scripted_llm.script(
        Reply(
            tool_calls=[
                ("HassSetVolumeRelative", {"name": "Walkman", "volume_step": step})
            ]
        )
    )
    response = await converse(hass, agent_id, request_text, language=language)

    after = hass.states.get(walkman).attributes["volume_level"]
    assert (after > before) is (step == "up")
    assert speech(response) == said
    assert len(scripted_llm.chat_requests) == 1


async def test_a_step_said_of_a_player_turns_its_volume_not_its_track(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """0.5B sent "turn down the music in the kitchen" as HassMediaNext, and
    HA skipped the track: a player's step is its volume's, by the kinds of
    device HA's intents act on."""
    agent_id = (await agents(hass, scripted_llm))["Assist only"]
    walkman = await _walkman_at_half_volume(hass)
    playing = hass.states.get(walkman).attributes["media_title"]
    scripted_llm.script(
        Reply(tool_calls=[("HassMediaNext", {"name": "Walkman"})]),
        Reply(content="Skipped."),
    )
    response = await converse(hass, agent_id, "turn down the music on the walkman")

    state = hass.states.get(walkman)
    assert state.attributes["volume_level"] < 0.5
    assert state.attributes["media_title"] == playing
    assert speech(response) == "Done, I turned down the volume of Walkman."


async def test_intent_tools_follow_the_guarded_kinds(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    agent_id = (await agents(hass, scripted_llm, {CONF_SENSITIVE: [SENSITIVE_ALARMS]}))[
        "Jarvis"
    ]
    scripted_llm.script(Reply(tool_calls=[UNLOCK]), Reply(content="Unlocked."))
    await converse(hass, agent_id, "unlock the front door")

    assert hass.states.get(FRONT_DOOR).state == "unlocked"


@pytest.mark.parametrize(
    ("request_text", "command", "timers"),
    [
        # Run when the timer ends, it would come back and start the next one.
        ("start my car", "Start my car", 0),
        ("in 5 minutes turn off the kitchen lights", "turn off the kitchen lights", 1),
        # Asked for by something else than the user (a web page, an MCP result):
        # it would come back later where nobody can check it.
        ("what does the weather page say?", "unlock the front door", 0),
    ],
)
async def test_a_timer_may_not_run_the_request_itself_later(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    request_text: str,
    command: str,
    timers: int,
) -> None:
    agent_id = (await agents(hass, scripted_llm))["Assist only"]
    entry = MockConfigEntry(domain="satellite")
    entry.add_to_hass(hass)
    satellite = dr.async_get(hass).async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("satellite", "kitchen")}
    )
    async_register_timer_handler(hass, satellite.id, lambda *_: None)
    scripted_llm.script(
        Reply(
            tool_calls=[
                ("HassStartTimer", {"minutes": 5, "conversation_command": command})
            ]
        ),
        Reply(content="Okay."),
    )
    with logged_results(hass) as results:
        await conversation.async_converse(
            hass,
            request_text,
            None,
            Context(),
            agent_id=agent_id,
            device_id=satellite.id,
        )

    assert len(hass.data[TIMER_DATA].timers) == timers
    assert ("error" in results[0]) is (timers == 0)
