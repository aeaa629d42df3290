"""HA's own replies to what its matcher ran, put right where its templates
fall short."""

from __future__ import annotations

from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
)
from homeassistant.core import HomeAssistant
import pytest

from tests.scripted_llm import ScriptedLLMServer
from tests.tools.test_injection import converse, speech

pytestmark = pytest.mark.usefixtures("ha_core")


async def test_a_kind_with_no_word_in_has_template_says_what_was_done(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent_id: str
) -> None:
    """HA's reply to "turn off the sprinkler" was "Turned off None": its
    template has no word for a valve."""
    async_expose_entity(hass, "conversation", "valve.front_garden", True)
    reply = await converse(hass, agent_id, "turn off the front garden")

    assert hass.states.get("valve.front_garden").state in ("closing", "closed")
    assert speech(reply) == "Done, I closed Front Garden."
    assert scripted_llm.chat_requests == []


async def test_an_answer_that_reads_none_out_is_kept(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent_id: str
) -> None:
    """A state that is "None" is an answer, not a template's gap."""
    hass.states.async_set("sensor.mode", "None", {"friendly_name": "Mode"})
    async_expose_entity(hass, "conversation", "sensor.mode", True)

    reply = await converse(hass, agent_id, "what is the mode?")

    assert "None" in speech(reply)
    assert scripted_llm.chat_requests == []
