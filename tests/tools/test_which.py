"""A which-question about devices that share a name asks with their areas,
and the answer picks by area: "Welches meinst du: Saugroboter?" named five
robots once (a generated home no session had written)."""

from __future__ import annotations

from homeassistant.components import conversation
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
)
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.tools.conftest import KITCHEN
from tests.tools.test_injection import converse, speech
from tests.tools.test_targets import office_home

pytestmark = pytest.mark.usefixtures("ha_core")

BED_LIGHT = "light.bed_light"


async def two_lamps(hass: HomeAssistant, scripted_llm: ScriptedLLMServer) -> str:
    """The office home with the kitchen's and the bedroom's light both called
    Lamp, both off; the agent id."""
    agent_id = await office_home(hass, scripted_llm)
    areas, entities = ar.async_get(hass), er.async_get(hass)
    for entity_id, area in ((KITCHEN, "Kitchen"), (BED_LIGHT, "Bedroom")):
        entities.async_update_entity(
            entity_id, name="Lamp", area_id=areas.async_create(area).id
        )
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": [KITCHEN, BED_LIGHT]}, blocking=True
    )
    return agent_id


@pytest.mark.parametrize(
    ("answer", "turned_on"),
    [("the one in the kitchen", KITCHEN), ("bedroom", BED_LIGHT)],
)
async def test_a_shared_name_is_asked_with_areas_and_answered_by_one(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, answer: str, turned_on: str
) -> None:
    agent_id = await two_lamps(hass, scripted_llm)
    scripted_llm.script(Reply(tool_calls=[("HassTurnOn", {"name": "Lamp"})]))

    asked = await converse(hass, agent_id, "turn on the lamp")

    assert speech(asked) == "Which one do you mean: Lamp (Bedroom) or Lamp (Kitchen)?"
    assert [hass.states.get(e).state for e in (KITCHEN, BED_LIGHT)] == ["off", "off"]

    calls = len(scripted_llm.chat_requests)
    await converse(hass, agent_id, answer, asked["conversation_id"])

    assert {e for e in (KITCHEN, BED_LIGHT) if hass.states.get(e).state == "on"} == {
        turned_on
    }
    # The answer made its call without the model.
    assert len(scripted_llm.chat_requests) == calls


@pytest.mark.parametrize("request_text", ["turn on the lamps", "turn on all lamp"])
async def test_a_shared_name_said_of_all_of_them_turns_them_all(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, request_text: str
) -> None:
    agent_id = await two_lamps(hass, scripted_llm)
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "Lamp"})]), Reply(content="Done.")
    )

    await converse(hass, agent_id, request_text)

    assert [hass.states.get(e).state for e in (KITCHEN, BED_LIGHT)] == ["on", "on"]


async def test_a_shared_name_said_to_a_satellite_is_the_one_in_its_area(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """As HA's matcher prefers the satellite's area for a name several
    rooms share."""
    agent_id = await two_lamps(hass, scripted_llm)
    entry = MockConfigEntry(domain="satellite")
    entry.add_to_hass(hass)
    satellite = dr.async_get(hass).async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("satellite", "bedroom")}
    )
    bedroom = ar.async_get(hass).async_get_area_by_name("Bedroom")
    dr.async_get(hass).async_update_device(satellite.id, area_id=bedroom.id)
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "Lamp"})]), Reply(content="Done.")
    )

    await conversation.async_converse(
        hass,
        "turn on the lamp",
        None,
        Context(),
        agent_id=agent_id,
        device_id=satellite.id,
    )

    assert [hass.states.get(e).state for e in (KITCHEN, BED_LIGHT)] == ["off", "on"]


async def test_a_shared_name_is_the_one_in_the_place_its_own_command_says(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """Of joined commands that say both rooms, the lamp's own says the
    kitchen: 0.5B's call for "apaga el calefactor en el salón y luego apaga
    la luz del techo en el despacho" reached the Calefactor of both rooms
    (a generated home no session had written)."""
    agent_id = await two_lamps(hass, scripted_llm)
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": [KITCHEN, BED_LIGHT]}, blocking=True
    )
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOff", {"name": "Lamp"})]), Reply(content="Done.")
    )

    await converse(
        hass,
        agent_id,
        "turn off the lamp in the kitchen and then close the blinds in the bedroom",
    )

    assert [hass.states.get(e).state for e in (KITCHEN, BED_LIGHT)] == ["off", "on"]


async def test_a_shared_name_said_with_the_place_of_each_is_each_of_them(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """0.5B's call for "enciende la lámpara en el jardín y luego prende la
    lámpara en el salón" named the Lámpara with one room as an area and the
    other as a floor, and both were asked about (held-out home 26)."""
    agent_id = await two_lamps(hass, scripted_llm)
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "Lamp"})]), Reply(content="Done.")
    )

    await converse(
        hass,
        agent_id,
        "turn on the lamp in the kitchen and then turn on the lamp in the bedroom",
    )

    assert [hass.states.get(e).state for e in (KITCHEN, BED_LIGHT)] == ["on", "on"]


async def test_an_answer_naming_no_choice_leaves_the_question_open(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """A "yes" to "which one?" names none: 0.5B made the call asked about
    again, and four heaters of one name were turned off (a generated home
    no session had written)."""
    agent_id = await two_lamps(hass, scripted_llm)
    call = ("HassTurnOn", {"name": "Lamp"})
    scripted_llm.script(Reply(tool_calls=[call]))
    asked = await converse(hass, agent_id, "turn on the lamp")
    scripted_llm.script(Reply(tool_calls=[call]), Reply(content="Done."))

    again = await converse(hass, agent_id, "yes", asked["conversation_id"])

    assert speech(again) == speech(asked)
    assert [hass.states.get(e).state for e in (KITCHEN, BED_LIGHT)] == ["off", "off"]
