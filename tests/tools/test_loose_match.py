"""HA's fuzzy reading of a command its sentences miss runs with no model call
where the request's words confirm it (turned the way they say, as a model's
call is), under the same confirmation rule as a strict match; where they do
not, the model gets the request.

The phrasings are ones the demo home's strict matcher misses and its fuzzy
matcher reads the same in every run (checked six times with the default
agent's `async_recognize_intent`: HA's fuzzy reading of some phrasings
changes with the process's string hashing).
"""

from __future__ import annotations

from homeassistant.components.light import ATTR_BRIGHTNESS
from homeassistant.core import HomeAssistant
import pytest

from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.tools.conftest import FRONT_DOOR, KITCHEN
from tests.tools.test_injection import converse, speech

pytestmark = pytest.mark.usefixtures("ha_core")

# `agent_id`: the demo home and Jarvis with HA's matcher first (conftest).


def devices(hass: HomeAssistant) -> dict[str, str]:
    """The states of the home's devices (not Jarvis's own sensors)."""
    return {
        state.entity_id: state.state
        for state in hass.states.async_all(["light", "lock", "cover", "media_player"])
    }


async def test_a_fuzzy_reading_the_words_confirm_runs_without_the_model(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent_id: str
) -> None:
    # Fuzzy: HassLightSet "Kitchen Lights" at 40.
    reply = await converse(hass, agent_id, "I want the kitchen lights at 40 percent")

    kitchen = hass.states.get(KITCHEN)
    assert kitchen is not None
    assert kitchen.state == "on"
    assert round(kitchen.attributes[ATTR_BRIGHTNESS] / 255 * 100) == 40
    assert speech(reply) == "Done, I set Kitchen Lights to 40%."
    assert scripted_llm.chat_requests == []


@pytest.mark.parametrize(
    "text",
    [
        # Fuzzy: HassTurnOff "Front Door".
        "unlock the front door for me now",
        # Fuzzy: HassTurnOn "Front Door", which would lock it: turned the way
        # the words say, as a model's call is.
        "I need the front door unlocked",
    ],
)
async def test_a_fuzzy_reading_that_unlocks_waits_for_a_yes(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent_id: str, text: str
) -> None:
    first = await converse(hass, agent_id, text)

    assert hass.states.get(FRONT_DOOR).state == "locked"
    assert speech(first) == "Shall I unlock Front Door?"

    await converse(hass, agent_id, "yes", first["conversation_id"])
    assert hass.states.get(FRONT_DOOR).state == "unlocked"
    assert scripted_llm.chat_requests == []


@pytest.mark.parametrize(
    "text",
    [
        # Fuzzy: HassTurnOn "Kitchen", where "Kitchen Window" is said.
        "I want the kitchen window closed",
        # Fuzzy: HassLightSet with the colour white, where a white is said
        # (`steps.warmed_lights` sets its colour temperature).
        "set the ceiling lights to cool white",
        # Fuzzy: HassTurnOn "Walkman", where a step is said.
        "louder on the walkman",
    ],
)
async def test_a_fuzzy_reading_the_words_do_not_confirm_goes_to_the_model(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent_id: str, text: str
) -> None:
    scripted_llm.script(Reply(content="I can't tell."))
    before = devices(hass)
    reply = await converse(hass, agent_id, text)

    assert devices(hass) == before
    assert speech(reply) == "I can't tell."
    assert len(scripted_llm.chat_requests) == 1
