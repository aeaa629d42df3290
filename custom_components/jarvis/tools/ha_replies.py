"""HA's own replies to what its matcher ran, put right where its templates
fall short: they read states out raw ("No, su estado es unlocked", "No, è
off") and name a kind they have no word for as "None" ("Turned off None"
for a valve).
"""

from __future__ import annotations

from collections.abc import Sequence
import re

from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import intent

from ..engine.lang import language_pack
from ..engine.phrases import done
from ..engine.text import folded_words
from .intent_reach import handled_targets, target_deeds

# What a template renders for a value it lacks.
_MISSING = re.compile(r"(?<!\w)None(?!\w)")


def ha_reply(hass: HomeAssistant, response: intent.IntentResponse) -> str:
    """HA's reply, or Jarvis's words for what it ran where HA's says "None"
    (an answer to a question is kept: it ran nothing)."""
    speech = str(response.speech.get("plain", {}).get("speech", ""))
    states = [*response.matched_states, *response.unmatched_states]
    if (
        _MISSING.search(speech)
        and response.intent is not None
        and (targets := handled_targets(hass, response.intent, response.matched_states))
    ):
        return done(target_deeds(hass, targets), response.language)
    return states_in_words(speech, states, response.language)


def states_in_words(speech: str, states: Sequence[State], language: str | None) -> str:
    """The reply with the raw states it reads out in the language's words; a
    state that is a word of a device's name is left as it is."""
    said = language_pack(language).state_words
    in_names = {word for state in states for word in folded_words(state.name)}
    for raw in {state.state for state in states} & said.keys() - in_names:
        speech = re.sub(rf"(?<!\w){re.escape(raw)}(?!\w)", said[raw][0], speech)
    return speech
