"""What actions did, in Jarvis's words: the reply loop says them itself."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest

from custom_components.jarvis.engine.phrases import DID, actions, did_reply
from custom_components.jarvis.safety.effects import Call
from custom_components.jarvis.tools.deeds import deeds, said_service


@pytest.mark.parametrize(
    ("entity_id", "service", "language", "said"),
    [
        ("vacuum.robot", "start", "es", "Hecho, he puesto en marcha Robot."),
        (
            "vacuum.robot",
            "return_to_base",
            "en",
            "Done, I sent Robot back to its dock.",
        ),
        ("media_player.tv", "media_pause", "de", "Erledigt, ich habe TV pausiert."),
        ("media_player.tv", "media_play", "fr", "C'est fait, j'ai repris TV."),
        ("light.lamp", "turn_on", "en", "Done, I turned on Lamp."),
    ],
)
async def test_what_an_intent_did_is_said_in_the_users_language(
    hass: HomeAssistant, entity_id: str, service: str, language: str, said: str
) -> None:
    hass.states.async_set(
        entity_id,
        "idle",
        {"friendly_name": entity_id.split(".")[1].title().replace("Tv", "TV")},
    )
    done = deeds(hass, [(entity_id, service)])
    assert did_reply([actions(done, DID, language)], language) == said


@pytest.mark.parametrize(
    ("muted", "language", "said"),
    [
        (True, "es", "Hecho, he silenciado TV."),
        (False, "en", "Done, I unmuted TV."),
    ],
)
async def test_muting_and_unmuting_are_told_apart_by_their_data(
    hass: HomeAssistant, muted: bool, language: str, said: str
) -> None:
    hass.states.async_set("media_player.tv", "playing", {"friendly_name": "TV"})
    call = Call("media_player", "volume_mute", {"is_volume_muted": muted})
    done = deeds(hass, [("media_player.tv", said_service(call))])
    assert did_reply([actions(done, DID, language)], language) == said


async def test_a_service_without_words_has_no_deed(hass: HomeAssistant) -> None:
    hass.states.async_set("media_player.tv", "playing")
    assert deeds(hass, [("media_player.tv", "volume_set")]) == []
