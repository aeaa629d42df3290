"""Speech-to-text over real TCP with the real tiny.en model."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
import threading

import numpy as np
from piper import PiperVoice
import pytest
from wyoming.asr import Transcribe
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.info import Describe, Info

from wyoming_services.stt.service import SttService, resolve_model
from wyoming_services.testing import (
    HOST,
    describe,
    espeak_clip,
    piper_clip,
    silence,
    transcribe,
    word_error_rate,
)

COMMANDS = [
    "Turn on the kitchen lights.",
    "What is the weather like tomorrow?",
    "Turn off all the lights in the living room and lock the front door.",
    "Open the garage door.",
]


async def test_describe(stt_port: int) -> None:
    info = await describe(stt_port)
    program = info.asr[0]
    assert program.name == "jarvis-faster-whisper"
    assert program.supports_transcript_streaming
    assert program.models[0].languages == ["en"]


async def test_piper_commands(stt_port: int, piper: PiperVoice) -> None:
    for command in COMMANDS:
        result = await transcribe(stt_port, piper_clip(piper, command) + silence(0.7))
        assert word_error_rate(command, result.text) <= 0.1, result.text


@pytest.mark.usefixtures("espeak")
async def test_espeak_commands(stt_port: int) -> None:
    errors = [
        word_error_rate(
            c, (await transcribe(stt_port, espeak_clip(c) + silence(0.7))).text
        )
        for c in COMMANDS
    ]
    # espeak's robot voice is harder for tiny.en than Piper's.
    assert sum(errors) / len(errors) <= 0.25, errors


async def test_realtime_stream_is_decoded_before_audio_stop(
    stt_port: int, piper: PiperVoice, caplog: pytest.LogCaptureFixture
) -> None:
    command = COMMANDS[0]
    with caplog.at_level(logging.DEBUG, logger="wyoming_services.stt.handler"):
        result = await transcribe(
            stt_port, piper_clip(piper, command) + silence(0.7), realtime=True
        )
    assert word_error_rate(command, result.text) <= 0.1
    assert "Early decode covers the utterance" in caplog.text


async def test_speech_after_a_pause_is_decoded_again(
    stt_port: int, piper: PiperVoice
) -> None:
    # A pause long enough for an early decode, then more words.
    pcm = piper_clip(piper, "Turn on the lights") + silence(0.5)
    pcm += piper_clip(piper, "in the kitchen.") + silence(0.7)
    result = await transcribe(stt_port, pcm, realtime=True)
    assert "kitchen" in result.text.lower()


async def test_busy_decoder_does_not_change_the_transcript(
    stt_port: int,
    stt_service: SttService,
    piper: PiperVoice,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Two pauses: the first one's early decode is outdated by the second one.
    pcm = piper_clip(piper, "Turn on the lights") + silence(0.5)
    pcm += piper_clip(piper, "in the kitchen.") + silence(0.7)
    with caplog.at_level(logging.DEBUG, logger="wyoming_services.stt.handler"):
        spoken = await transcribe(stt_port, pcm, realtime=True)
        caplog.clear()
        # A slow machine: the decoder is still busy when the second pause comes.
        release = threading.Event()
        busy = stt_service.decoder.submit(release.wait)
        try:
            async with AsyncTcpClient(HOST, stt_port) as client:
                await client.write_event(Transcribe(language="en").event())
                await client.write_event(AudioStart(16000, 2, 1).event())
                for offset in range(0, len(pcm), 1024):
                    chunk = AudioChunk(16000, 2, 1, pcm[offset : offset + 1024])
                    await client.write_event(chunk.event())
                # Events are handled in order: `info` means every chunk was.
                await client.write_event(Describe().event())
                while (event := await client.read_event()) is not None:
                    if Info.is_type(event.type):
                        break
                release.set()
                await client.write_event(AudioStop().event())
                while (event := await client.read_event()) is not None:
                    if event.type == "transcript":
                        break
        finally:
            release.set()
            await busy
    assert event is not None
    assert "Early decode covers the utterance" in caplog.text
    assert event.data["text"] == spoken.text
    assert "kitchen" in spoken.text.lower()


def _from_first_sound(pcm: bytes) -> bytes:
    """A clip cut to start with speech, as a stream right after a wake word may."""
    samples = np.frombuffer(pcm, dtype="<i2")
    return pcm[2 * int(np.flatnonzero(np.abs(samples) > 300)[0]) :]


@pytest.mark.usefixtures("espeak")
@pytest.mark.parametrize("command", ["Dim the lights.", "Turn up the volume."])
async def test_speech_from_the_first_sample(stt_port: int, command: str) -> None:
    result = await transcribe(
        stt_port, _from_first_sound(espeak_clip(command)) + silence(0.7)
    )
    assert word_error_rate(command, result.text) <= 0.1, result.text


async def test_streaming_events(stt_port: int, piper: PiperVoice) -> None:
    result = await transcribe(stt_port, piper_clip(piper, COMMANDS[3]) + silence(0.7))
    types = [event.type for event in result.events]
    assert types == ["transcript-start", "transcript-chunk", "transcript"]
    assert result.events[1].data["text"] == result.text


async def test_resamples_stereo_44k(stt_port: int, piper: PiperVoice) -> None:
    mono16k = np.frombuffer(piper_clip(piper, COMMANDS[0]) + silence(0.5), dtype="<i2")
    upsampled = np.interp(
        np.arange(int(len(mono16k) * 44100 / 16000)) * 16000 / 44100,
        np.arange(len(mono16k)),
        mono16k,
    ).astype("<i2")
    stereo = np.repeat(upsampled, 2).tobytes()
    async with AsyncTcpClient(HOST, stt_port) as client:
        await client.write_event(Transcribe(language="en").event())
        await client.write_event(AudioStart(rate=44100, width=2, channels=2).event())
        for offset in range(0, len(stereo), 4096):
            await client.write_event(
                AudioChunk(44100, 2, 2, stereo[offset : offset + 4096]).event()
            )
        await client.write_event(AudioStop().event())
        while (
            event := await client.read_event()
        ) is not None and event.type != "transcript":
            pass
    assert event is not None
    assert word_error_rate(COMMANDS[0], event.data["text"]) <= 0.1


async def test_audio_without_audio_start(stt_port: int, piper: PiperVoice) -> None:
    pcm = piper_clip(piper, COMMANDS[3])
    async with AsyncTcpClient(HOST, stt_port) as client:
        await client.write_event(AudioChunk(16000, 2, 1, pcm).event())
        await client.write_event(AudioStop().event())
        while (
            event := await client.read_event()
        ) is not None and event.type != "transcript":
            pass
    assert event is not None
    assert word_error_rate(COMMANDS[3], event.data["text"]) <= 0.1


async def test_no_audio_gives_empty_transcript(stt_port: int) -> None:
    result = await transcribe(stt_port, b"")
    assert result.text == ""


@pytest.mark.parametrize(
    ("transcribe_event", "code"),
    [
        (Transcribe(name="large-v3"), "model-not-found"),
        (Transcribe(language="tlh"), "unsupported-language"),
    ],
)
async def test_refuses_unknown_model_or_language(
    stt_port: int, transcribe_event: Transcribe, code: str
) -> None:
    async with AsyncTcpClient(HOST, stt_port) as client:
        await client.write_event(transcribe_event.event())
        event = await client.read_event()
        assert event is not None
        assert event.type == "error"
        assert event.data["code"] == code
        assert await client.read_event() is None  # closed


async def test_client_vanishing_mid_stream(stt_port: int, piper: PiperVoice) -> None:
    pcm = piper_clip(piper, COMMANDS[0])
    for _ in range(3):
        async with AsyncTcpClient(HOST, stt_port) as client:
            await client.write_event(AudioStart(16000, 2, 1).event())
            await client.write_event(
                AudioChunk(16000, 2, 1, pcm + silence(0.5)).event()
            )
        await asyncio.sleep(0)
    result = await transcribe(stt_port, pcm + silence(0.7))
    assert word_error_rate(COMMANDS[0], result.text) <= 0.1


def test_resolve_model(tmp_path: Path) -> None:
    local = tmp_path / "my-whisper"
    local.mkdir()
    (local / "model.bin").write_bytes(b"")
    assert resolve_model(str(local), [], None, local_only=True) == str(local)
    assert resolve_model("my-whisper", [str(tmp_path)], None, local_only=True) == str(
        local
    )
    with pytest.raises(FileNotFoundError):
        resolve_model("tiny-int8", [str(tmp_path)], None, local_only=True)
