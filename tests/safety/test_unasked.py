"""Actions nobody asked for wait for a yes: a call on devices the user's
words never point to, in a request that says no household action (1.5B
turned on the Bed Light for "Tell my wife I love her."). Tried in a real
Home Assistant with the scripted model making the call."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest

from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.test_conversation import setup_jarvis
from tests.tools.test_injection import converse, speech

pytestmark = pytest.mark.usefixtures("ha_core")

BED = "light.bed_light"


TURN_ON_THE_BED_LIGHT = (
    Reply(tool_calls=[("HassTurnOn", {"name": "Bed Light"})]),
    Reply(content="Done."),
)


async def _dark_home(hass: HomeAssistant, scripted_llm: ScriptedLLMServer) -> str:
    """The agent, with every light off."""
    _, agent = await setup_jarvis(hass, scripted_llm)
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": "all"}, blocking=True
    )
    return agent


async def test_chit_chat_that_acts_on_an_unnamed_device_asks_first(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    agent = await _dark_home(hass, scripted_llm)
    scripted_llm.script(*TURN_ON_THE_BED_LIGHT)

    first = await converse(hass, agent, "Tell my wife I love her.")

    assert hass.states.get(BED).state == "off"
    assert speech(first) == "Shall I turn on Bed Light?"
    await converse(hass, agent, "yes", first["conversation_id"])
    assert hass.states.get(BED).state == "on"


@pytest.mark.parametrize(
    ("said", "language"),
    [
        ("I'd like the bed light", "en"),  # the device's name
        ("make the bedroom cosy", "en"),  # a word of its name
        ("it's too dark, switch something on", "en"),  # an action's word
        ("mach das Licht an", "de"),  # its kind, and an action, in German
    ],
)
async def test_words_that_point_to_the_device_or_say_an_action_run_at_once(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, said: str, language: str
) -> None:
    agent = await _dark_home(hass, scripted_llm)
    scripted_llm.script(*TURN_ON_THE_BED_LIGHT)

    await converse(hass, agent, said, language=language)

    assert hass.states.get(BED).state == "on"


async def test_a_yes_to_the_models_own_offer_runs_at_once(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    agent = await _dark_home(hass, scripted_llm)
    scripted_llm.script(Reply(content="Shall I turn on the bed light for you?"))
    first = await converse(hass, agent, "I can't see a thing in here")
    scripted_llm.script(*TURN_ON_THE_BED_LIGHT)

    await converse(hass, agent, "yes please", first["conversation_id"])

    assert hass.states.get(BED).state == "on"
