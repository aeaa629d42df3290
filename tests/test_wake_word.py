"""The persona's name follows the wake word, through a real Assist pipeline."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import ClassVar

from homeassistant.components import assist_pipeline, stt
from homeassistant.components.assist_pipeline import (
    AudioSettings,
    PipelineEvent,
    PipelineEventType,
    PipelineStage,
)
from homeassistant.components.assist_satellite import (
    AssistSatelliteConfiguration,
    AssistSatelliteEntity,
    AssistSatelliteWakeWord,
)
from homeassistant.components.assist_satellite.const import (
    DATA_COMPONENT as SATELLITES,
)
from homeassistant.core import Context, HomeAssistant
from homeassistant.setup import async_setup_component
import pytest

from custom_components.jarvis.prompts import DEFAULT_PROMPT
from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.test_conversation import process, setup_jarvis
from tests.wyoming.test_home_assistant import PCM_16K

pytestmark = pytest.mark.usefixtures("ha_core")

COMMAND = "turn on the kitchen lights"


class HeardCommand(stt.SpeechToTextEntity):
    """Speech recognition that always hears the command (the pipeline needs
    one; what it hears is not what these tests are about)."""

    _attr_name = "Heard command"
    supported_languages: ClassVar = ["en"]
    supported_formats: ClassVar = [stt.AudioFormats.WAV]
    supported_codecs: ClassVar = [stt.AudioCodecs.PCM]
    supported_bit_rates: ClassVar = [stt.AudioBitRates.BITRATE_16]
    supported_sample_rates: ClassVar = [stt.AudioSampleRates.SAMPLERATE_16000]
    supported_channels: ClassVar = [stt.AudioChannels.CHANNEL_MONO]

    async def async_process_audio_stream(
        self, metadata: stt.SpeechMetadata, stream: AsyncIterable[bytes]
    ) -> stt.SpeechResult:
        async for _ in stream:
            pass
        return stt.SpeechResult(COMMAND, stt.SpeechResultState.SUCCESS)


class Satellite(AssistSatelliteEntity):
    """An ESPHome-like satellite that says which wake words it listens for."""

    _attr_name = "Mycroft satellite"

    def async_get_configuration(self) -> AssistSatelliteConfiguration:
        return AssistSatelliteConfiguration(
            available_wake_words=[
                AssistSatelliteWakeWord("okay_nabu", "Okay Nabu", ["en"]),
                AssistSatelliteWakeWord("hey_mycroft", "Hey Mycroft", ["en"]),
            ],
            active_wake_words=["hey_mycroft"],
            max_active_wake_words=1,
        )

    async def async_set_configuration(
        self, config: AssistSatelliteConfiguration
    ) -> None:
        raise NotImplementedError

    def on_pipeline_event(self, event: PipelineEvent) -> None:
        """Nothing to play: these tests read the agent's prompt."""


async def _audio() -> AsyncIterator[bytes]:
    yield bytes(3200)


@pytest.fixture
async def voice(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> tuple[str, str]:
    """Jarvis behind a pipeline whose STT hears the command, and a satellite:
    (agent entity id, satellite entity id)."""
    _, agent = await setup_jarvis(hass, scripted_llm, prompt=DEFAULT_PROMPT)
    for domain in ("stt", "assist_pipeline", "assist_satellite"):
        assert await async_setup_component(hass, domain, {})
    heard = HeardCommand()
    await hass.data[stt.DATA_COMPONENT].async_add_entities([heard])
    satellite = Satellite()
    await hass.data[SATELLITES].async_add_entities([satellite])
    await assist_pipeline.async_update_pipeline(
        hass,
        assist_pipeline.async_get_pipeline(hass),
        stt_engine=heard.entity_id,
        stt_language="en",
        conversation_engine=agent,
        prefer_local_intents=False,
    )
    return agent, satellite.entity_id


async def spoken(
    hass: HomeAssistant,
    wake_word_phrase: str | None,
    *,
    device_id: str | None = None,
    satellite_id: str | None = None,
    conversation_id: str | None = None,
) -> None:
    """A voice turn, as a satellite sends it after hearing its wake word."""
    events: list[PipelineEvent] = []
    await assist_pipeline.async_pipeline_from_audio_stream(
        hass,
        context=Context(),
        event_callback=events.append,
        stt_metadata=PCM_16K,
        stt_stream=_audio(),
        wake_word_phrase=wake_word_phrase,
        conversation_id=conversation_id,
        device_id=device_id,
        satellite_id=satellite_id,
        end_stage=PipelineStage.INTENT,
        # HA 2026.2's VAD needs pymicro-vad 1.x; the audio is finite anyway.
        audio_settings=AudioSettings(is_vad_enabled=False),
    )
    assert not [e.data for e in events if e.type is PipelineEventType.ERROR]


def persona_line(server: ScriptedLLMServer) -> str:
    """The first line of the system prompt of the latest request."""
    system = server.chat_requests[-1]["json"]["messages"][0]["content"]
    return str(system).splitlines()[0]


async def test_the_persona_is_named_by_the_wake_word(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, voice: tuple[str, str]
) -> None:
    agent, satellite = voice
    scripted_llm.script(*[Reply(content="Very good.")] * 4)

    await spoken(hass, "Hey Mycroft", satellite_id=satellite)
    assert persona_line(scripted_llm).startswith("You are Mycroft, ")

    # Another device, woken by another phrase.
    await spoken(hass, "Okay Nabu", device_id="kitchen-voice-pe")
    assert persona_line(scripted_llm).startswith("You are Nabu, ")

    # A follow-up needs no wake word; the satellite listens only for "Hey
    # Mycroft", so the later "Okay Nabu" elsewhere does not rename it.
    await spoken(hass, None, satellite_id=satellite)
    assert persona_line(scripted_llm).startswith("You are Mycroft, ")

    # Typed, not spoken: the default name.
    await process(hass, agent, COMMAND)
    assert persona_line(scripted_llm).startswith("You are Jarvis, ")
