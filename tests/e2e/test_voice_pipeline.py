"""The whole voice loop: an Assist pipeline on Jarvis's Wyoming servers and agent.

Home Assistant's own `wyoming` integration talks to the real servers on loopback
(Whisper tiny.en, Piper Joe, hey_jarvis); the spoken input is made by Piper.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
import time
from typing import Any

from homeassistant.components import assist_pipeline, tts
from homeassistant.components.assist_pipeline import (
    PipelineEvent,
    PipelineEventType,
    PipelineStage,
)
from homeassistant.core import Context, HomeAssistant
from homeassistant.setup import async_setup_component
import numpy as np
from piper import PiperVoice
import pytest
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from scripts.llm_server import LlamaServer
from tests.e2e.test_real_model import KITCHEN, setup_real_jarvis
from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.test_conversation import setup_jarvis
from tests.wyoming.test_home_assistant import PCM_16K, setup_wyoming
from wyoming_services.audio import RATE
from wyoming_services.stt import SttService
from wyoming_services.testing import (
    WAV_HEADER_BYTES,
    piper_clip,
    silence,
    wav_to_16k,
    word_error_rate,
)

pytestmark = pytest.mark.usefixtures("ha_core", "socket_enabled")

COMMAND = "Turn on the kitchen lights."
CHUNK_BYTES = 1024

type Events = list[tuple[float, PipelineEvent]]


async def setup_pipeline(
    hass: HomeAssistant, agent: str, entities: dict[str, str]
) -> str:
    """The Jarvis pipeline `make run` creates: Wyoming speech, Jarvis's agent."""
    assert await async_setup_component(hass, "assist_pipeline", {})
    pipeline = await assist_pipeline.async_create_default_pipeline(
        hass, entities["stt"], entities["tts"], "Jarvis"
    )
    assert pipeline is not None
    await assist_pipeline.async_update_pipeline(
        hass,
        pipeline,
        conversation_engine=agent,
        wake_word_entity=entities["wake_word"],
        wake_word_id="hey_jarvis",
        # Jarvis's agent decides itself whether HA's intents answer.
        prefer_local_intents=False,
    )
    return pipeline.id


async def _microphone(pcm: bytes, realtime: bool) -> AsyncIterator[bytes]:
    started = time.monotonic()
    for offset in range(0, len(pcm), CHUNK_BYTES):
        yield pcm[offset : offset + CHUNK_BYTES]
        if realtime:
            due = started + (offset + CHUNK_BYTES) / (RATE * 2)
            await asyncio.sleep(max(0.0, due - time.monotonic()))


async def run_pipeline(
    hass: HomeAssistant,
    pipeline_id: str,
    pcm: bytes,
    start_stage: PipelineStage,
    *,
    realtime: bool = False,
    on_event: Callable[[PipelineEvent], None] | None = None,
) -> Events:
    """Run to the TTS stage; every event with the monotonic time it came."""
    events: Events = []

    def record(event: PipelineEvent) -> None:
        events.append((time.monotonic(), event))
        if on_event is not None:
            on_event(event)

    await assist_pipeline.async_pipeline_from_audio_stream(
        hass,
        context=Context(),
        event_callback=record,
        stt_metadata=PCM_16K,
        stt_stream=_microphone(pcm, realtime),
        pipeline_id=pipeline_id,
        # WAV needs no ffmpeg (not on the test machine).
        tts_audio_output={tts.ATTR_PREFERRED_FORMAT: "wav"},
        start_stage=start_stage,
    )
    errors = [e.data for _, e in events if e.type is PipelineEventType.ERROR]
    assert not errors, errors
    return events


def first(events: Events, kind: PipelineEventType) -> tuple[float, dict[str, Any]]:
    """When the first event of a kind came, and its data."""
    found = [(t, e.data or {}) for t, e in events if e.type is kind]
    assert found, f"no {kind} event"
    return found[0]


@dataclass
class Voice:
    """Jarvis's Wyoming servers as HA entities, and their models for test audio."""

    entities: dict[str, str]
    piper: PiperVoice
    whisper: SttService

    def heard(self, wav: bytes) -> str:
        """What Whisper hears in HA's TTS output."""
        audio = np.frombuffer(wav_to_16k(wav), "<i2")
        return self.whisper.transcribe(audio, "en").text


@pytest.fixture
async def voice(
    hass: HomeAssistant, all_port: int, piper: PiperVoice, stt_service: SttService
) -> Voice:
    return Voice(await setup_wyoming(hass, all_port), piper, stt_service)


@pytest.mark.real_model
async def test_spoken_command_from_wake_word_to_spoken_reply(
    hass: HomeAssistant,
    hass_client_no_auth: ClientSessionGenerator,
    llama_server: LlamaServer,
    voice: Voice,
) -> None:
    # The model, not HA's intent matcher, handles the command.
    agent = await setup_real_jarvis(hass, llama_server)
    pipeline_id = await setup_pipeline(hass, agent, voice.entities)
    speech = (
        silence(0.5)
        + piper_clip(voice.piper, "Hey Jarvis.")
        + silence(0.8)
        + piper_clip(voice.piper, COMMAND)
        + silence(2)
    )

    started = time.monotonic()
    events = await run_pipeline(
        hass, pipeline_id, speech, PipelineStage.WAKE_WORD, realtime=True
    )
    _, wake = first(events, PipelineEventType.WAKE_WORD_END)
    stt_end, stt = first(events, PipelineEventType.STT_END)
    intent_end, intent = first(events, PipelineEventType.INTENT_END)
    _, tts_end = first(events, PipelineEventType.TTS_END)
    reply = intent["intent_output"]["response"]["speech"]["plain"]["speech"]
    response = await (await hass_client_no_auth()).get(tts_end["tts_output"]["url"])
    assert response.status == 200
    spoken = voice.heard(await response.read())
    print(
        f"\nvoice pipeline: {time.monotonic() - started:.1f} s for "
        f"{len(speech) / (RATE * 2):.1f} s of audio, agent {intent_end - stt_end:.1f} s"
        f"\nheard {stt['stt_output']['text']!r}; replied {reply!r}; spoke {spoken!r}"
    )

    assert wake["wake_word_output"]["wake_word_id"] == "hey_jarvis"
    assert word_error_rate(COMMAND, stt["stt_output"]["text"]) <= 0.2
    assert hass.states.get(KITCHEN).state == "on"
    assert reply.strip()
    assert "{" not in reply
    assert word_error_rate(reply, spoken) <= 0.3


# Long enough for HA to stream it to TTS (more than 60 characters), in several
# sentences so that Piper speaks the first while the rest is still coming.
LONG_REPLY = (
    # True of the demo home: a false claim would be spoken as the truth.
    "The kitchen lights are off, and the living room lamps are dimmed to half. "
    "The front door is locked and the garage door is closed. "
    "Tomorrow will be sunny with a light breeze from the west. "
    "Have a lovely evening."
)


async def test_speech_starts_before_the_reply_is_complete(
    hass: HomeAssistant,
    hass_client_no_auth: ClientSessionGenerator,
    scripted_llm: ScriptedLLMServer,
    voice: Voice,
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    pipeline_id = await setup_pipeline(hass, agent, voice.entities)
    # A model writing about 50 characters a second.
    scripted_llm.script(Reply(content=LONG_REPLY, piece_delay=0.1))
    client = await hass_client_no_auth()
    audio = bytearray()
    first_audio: list[float] = []

    async def play(url: str) -> None:
        """Fetch the reply as a satellite does: from run-start, as it is made."""
        response = await client.get(url)
        assert response.status == 200
        async for chunk in response.content.iter_any():
            audio.extend(chunk)
            if len(audio) > WAV_HEADER_BYTES and not first_audio:
                first_audio.append(time.monotonic())

    playing: list[asyncio.Task[None]] = []

    def on_event(event: PipelineEvent) -> None:
        if event.type is PipelineEventType.RUN_START and event.data:
            url = event.data["tts_output"]["url"]
            playing.append(hass.async_create_task(play(url)))

    events = await run_pipeline(
        hass,
        pipeline_id,
        piper_clip(voice.piper, "What is new at home?") + silence(1),
        PipelineStage.STT,
        on_event=on_event,
    )
    await asyncio.wait_for(playing[0], 60)

    _, run_start = first(events, PipelineEventType.RUN_START)
    assert run_start["tts_output"]["stream_response"]
    progress = [
        (t, e.data or {})
        for t, e in events
        if e.type is PipelineEventType.INTENT_PROGRESS
    ]
    streaming = [t for t, data in progress if data.get("tts_start_streaming")]
    assert streaming, "HA did not stream the reply to TTS"
    tts_streaming = streaming[0]
    # The agent's last piece of text: the reply is complete from here on.
    reply_done = max(
        t for t, data in progress if data.get("chat_log_delta", {}).get("content")
    )
    intent_end, _ = first(events, PipelineEventType.INTENT_END)
    print(
        f"\nafter TTS streaming started: first audio {first_audio[0] - tts_streaming:.2f} s,"
        f" reply done {reply_done - tts_streaming:.2f} s,"
        f" intent-end {intent_end - tts_streaming:.2f} s"
    )

    assert tts_streaming < first_audio[0] < reply_done < intent_end
    assert word_error_rate(LONG_REPLY, voice.heard(bytes(audio))) <= 0.2
