"""What actions did, in Jarvis's words: the reply loop says them itself."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest

from custom_components.jarvis.engine.phrases import DID, actions, did_reply
from custom_components.jarvis.safety.effects import Call
from custom_components.jarvis.tools.deeds import (
    deeds,
    said_level,
    said_service,
    service_deeds,
)
from custom_components.jarvis.tools.services import ServiceAction


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
        (
            "media_player.tv",
            "media_next_track",
            "de",
            "Erledigt, ich habe TV zum nächsten Titel weitergeschaltet.",
        ),
        (
            "media_player.tv",
            "media_previous_track",
            "en",
            "Done, I took TV back to the previous track.",
        ),
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


@pytest.mark.parametrize(
    ("call", "language", "said"),
    [
        (
            Call("light", "turn_on", {"entity_id": "x", "brightness_pct": 70}),
            "es",
            "Hecho, he puesto TV al 70 %.",
        ),
        (
            Call("media_player", "volume_set", {"entity_id": "x", "volume_level": 0.4}),
            "de",
            "Erledigt, ich habe die Lautstärke von TV auf 40 % gestellt.",
        ),
        (
            Call("cover", "set_cover_position", {"entity_id": "x", "position": 20}),
            "en",
            "Done, I moved TV to 20%.",
        ),
    ],
)
async def test_a_level_set_is_said_with_its_level(
    hass: HomeAssistant, call: Call, language: str, said: str
) -> None:
    entity_id = f"{call.domain}.tv"
    hass.states.async_set(entity_id, "on", {"friendly_name": "TV"})
    done = deeds(hass, [(entity_id, said_service(call))], said_level([call]))
    assert did_reply([actions(done, DID, language)], language) == said


async def test_a_turn_on_with_other_settings_has_no_deed(hass: HomeAssistant) -> None:
    """A colour or a colour temperature is not "turned on"."""
    hass.states.async_set("light.lamp", "on")
    call = Call("light", "turn_on", {"entity_id": "x", "rgb_color": [255, 0, 0]})
    assert deeds(hass, [("light.lamp", said_service(call))]) == []


@pytest.mark.parametrize(
    ("service", "data", "said"),
    [
        ("add_item", {"item": "milk"}, "Hecho, he añadido milk a Compra."),
        (
            "update_item",
            {"item": "milk", "status": "completed"},
            "Hecho, he marcado milk como hecho en Compra.",
        ),
        # Put back on the list, or renamed: no words for that.
        ("update_item", {"item": "milk", "status": "needs_action"}, None),
        ("update_item", {"item": "milk", "rename": "oat milk"}, None),
    ],
)
async def test_a_to_do_item_is_said_with_its_words(
    hass: HomeAssistant, service: str, data: dict[str, str], said: str | None
) -> None:
    hass.states.async_set("todo.compra", "1", {"friendly_name": "Compra"})
    action = ServiceAction("todo", service, ("todo.compra",), data)
    done = service_deeds(hass, action)
    assert (did_reply([actions(done, DID, "es")], "es") if done else None) == said
