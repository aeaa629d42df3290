"""Which wake word started a voice turn, as Home Assistant's Assist knows it.

The Assist pipeline records each wake-up's phrase ("Okay Nabu") with its time
in `hass.data` under `assist_pipeline.last_wake_up`, whether Home Assistant
or the satellite itself heard it (2026.2 and 2026.11 alike). A turn from a
satellite was started by the latest of them. Where the satellite can tell
(ESPHome), only its own active wake words count, so a second satellite woken
by another phrase does not rename this one's persona.
"""

from __future__ import annotations

import time

from homeassistant.components import conversation
from homeassistant.components.assist_pipeline.const import DATA_LAST_WAKE_UP
from homeassistant.components.assist_satellite.const import DATA_COMPONENT
from homeassistant.core import HomeAssistant, callback

# Follow-ups in a voice conversation come without a wake word; Home Assistant
# keeps a conversation going for 5 idle minutes.
WAKE_WINDOW = 300.0


@callback
def async_wake_phrase(
    hass: HomeAssistant, user_input: conversation.ConversationInput
) -> str | None:
    """The wake phrase of this turn; None for typed turns or when unknown."""
    if user_input.satellite_id is None and user_input.device_id is None:
        return None
    own = _satellite_phrases(hass, user_input.satellite_id)
    wake_ups: dict[str, float] = hass.data.get(DATA_LAST_WAKE_UP) or {}
    now = time.monotonic()
    recent = [
        (at, phrase)
        for phrase, at in wake_ups.items()
        if now - at <= WAKE_WINDOW and (not own or phrase.casefold() in own)
    ]
    if recent:
        return max(recent)[1]
    # A satellite listening for one phrase was woken by it.
    return next(iter(own.values())) if len(own) == 1 else None


def _satellite_phrases(hass: HomeAssistant, satellite_id: str | None) -> dict[str, str]:
    """The phrases of a satellite's active wake words, by their case-folded form."""
    component = hass.data.get(DATA_COMPONENT)
    if satellite_id is None or component is None:
        return {}
    if (satellite := component.get_entity(satellite_id)) is None:
        return {}
    try:
        config = satellite.async_get_configuration()
    except NotImplementedError:  # Wyoming and VoIP satellites cannot tell
        return {}
    phrases = {word.id: word.wake_word for word in config.available_wake_words}
    return {
        phrases[word_id].casefold(): phrases[word_id]
        for word_id in config.active_wake_words
        if word_id in phrases
    }
