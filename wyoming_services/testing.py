"""Speech clips and small clients for the tests and the benchmark.

The servers never import this module.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
import io
import re
import subprocess
import time
import wave

import numpy as np
from piper import PiperVoice, SynthesisConfig
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.event import Event
from wyoming.info import Describe, Info
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
    SynthesizeVoice,
)
from wyoming.wake import Detect

from .audio import RATE, PcmConverter

HOST = "127.0.0.1"
WAV_HEADER_BYTES = 44


# -- clips (16 kHz, 16-bit mono PCM) ------------------------------------------------


def to_16k(pcm: bytes, rate: int) -> bytes:
    """Resample 16-bit mono PCM to 16 kHz."""
    converter = PcmConverter()
    return (
        converter.convert({"rate": rate, "width": 2, "channels": 1}, pcm)
        + converter.flush()
    )


def piper_clip(
    voice: PiperVoice, text: str, length_scale: float | None = None
) -> bytes:
    """`text` spoken by a Piper voice, the same audio on every call.

    Piper's noise is random by default, which made tests hear a different
    clip each run (once "kitchen whites").
    """
    config = SynthesisConfig(
        length_scale=length_scale, noise_scale=0.0, noise_w_scale=0.0
    )
    audio = np.concatenate(
        [c.audio_int16_array for c in voice.synthesize(text, config)]
    )
    return to_16k(audio.tobytes(), voice.config.sample_rate)


def espeak_clip(text: str, voice: str = "en-us", speed: int = 160) -> bytes:
    """`text` spoken by espeak-ng (a second, independent voice)."""
    wav = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(speed), "--stdout", text],
        check=True,
        capture_output=True,
    ).stdout
    with wave.open(io.BytesIO(wav)) as wav_file:
        return to_16k(
            wav_file.readframes(wav_file.getnframes()), wav_file.getframerate()
        )


def wav_to_16k(wav: bytes) -> bytes:
    """A 16-bit mono WAV file's audio, resampled to 16 kHz.

    Takes streamed WAVs too, whose header says 0 frames: the audio is
    everything after the canonical 44-byte header.
    """
    with wave.open(io.BytesIO(wav)) as wav_file:
        rate = wav_file.getframerate()
        if (wav_file.getsampwidth(), wav_file.getnchannels()) != (2, 1):
            raise ValueError("not 16-bit mono")
    return to_16k(wav[WAV_HEADER_BYTES:], rate)


def silence(seconds: float) -> bytes:
    """Digital silence."""
    return bytes(int(seconds * RATE) * 2)


def add_noise(pcm: bytes, snr_db: float, seed: int) -> bytes:
    """White noise at a signal-to-noise ratio (relative to the clip's RMS)."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    rms = float(np.sqrt(np.mean(samples**2))) or 1.0
    noise = np.random.default_rng(seed).normal(
        0, rms / 10 ** (snr_db / 20), samples.size
    )
    return np.clip(samples + noise, -32768, 32767).astype("<i2").tobytes()


def words(text: str) -> list[str]:
    """Lowercase words without punctuation."""
    return re.sub(r"[^\w\s']", " ", text.lower().replace("-", " ")).split()


def word_error_rate(reference: str, hypothesis: str) -> float:
    """Word-level edit distance over the reference length."""
    ref, hyp = words(reference), words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, ref_word in enumerate(ref, 1):
        previous, row[0] = row[0], i
        for j, hyp_word in enumerate(hyp, 1):
            previous, row[j] = (
                row[j],
                min(row[j] + 1, row[j - 1] + 1, previous + (ref_word != hyp_word)),
            )
    return row[-1] / max(1, len(ref))


# -- clients -------------------------------------------------------------------------


async def describe(port: int) -> Info:
    """The server's info."""
    async with AsyncTcpClient(HOST, port) as client:
        await client.write_event(Describe().event())
        while (event := await client.read_event()) is not None:
            if Info.is_type(event.type):
                return Info.from_event(event)
    raise ConnectionError("no info")


async def wait_until_serving(port: int) -> Info:
    """The info of a server that is still starting, once it answers (60 s)."""
    async with asyncio.timeout(60):
        while True:
            try:
                return await describe(port)
            except OSError:
                await asyncio.sleep(0.5)


async def _send_audio(
    client: AsyncTcpClient, pcm: bytes, chunk_bytes: int, realtime: bool
) -> None:
    """Stream PCM in chunks, at the pace of speech if `realtime`."""
    start = time.perf_counter()
    for offset in range(0, len(pcm), chunk_bytes):
        chunk = AudioChunk(
            rate=RATE, width=2, channels=1, audio=pcm[offset : offset + chunk_bytes]
        )
        await client.write_event(chunk.event())
        if realtime:
            due = start + (offset + chunk_bytes) / (RATE * 2)
            await asyncio.sleep(max(0.0, due - time.perf_counter()))


@dataclass
class TranscribeResult:
    """A transcript, the seconds from audio-stop to it, and every event received."""

    text: str
    latency: float
    events: list[Event] = field(default_factory=list)


async def transcribe(
    port: int,
    pcm: bytes,
    *,
    realtime: bool = False,
    chunk_bytes: int = 1024,
    language: str | None = "en",
) -> TranscribeResult:
    """Send a command the way Home Assistant does; wait for `transcript`."""
    async with AsyncTcpClient(HOST, port) as client:
        await client.write_event(Transcribe(language=language).event())
        await client.write_event(AudioStart(rate=RATE, width=2, channels=1).event())
        await _send_audio(client, pcm, chunk_bytes, realtime)
        await client.write_event(AudioStop().event())
        stopped = time.perf_counter()
        events: list[Event] = []
        while (event := await client.read_event()) is not None:
            events.append(event)
            if Transcript.is_type(event.type):
                latency = time.perf_counter() - stopped
                return TranscribeResult(
                    Transcript.from_event(event).text, latency, events
                )
    raise ConnectionError(f"no transcript: {[e.type for e in events]}")


@dataclass
class SynthesisResult:
    """Audio received, when its first chunk came, and the event types in order."""

    audio: bytes = b""
    rate: int = 0
    first_chunk: float = 0.0
    events: list[str] = field(default_factory=list)
    formats: set[tuple[int, int, int]] = field(default_factory=set)


async def synthesize(
    port: int,
    text: str,
    *,
    voice: str | None = None,
    speaker: str | None = None,
    streaming: bool = False,
    word_delay: float = 0.0,
) -> SynthesisResult:
    """Ask for speech; streaming sends `text` word by word like an LLM."""
    result = SynthesisResult()
    synth_voice = SynthesizeVoice(name=voice, speaker=speaker) if voice else None
    async with AsyncTcpClient(HOST, port) as client:
        start = time.perf_counter()
        if streaming:
            writer = asyncio.create_task(
                _stream_text(client, text, synth_voice, word_delay)
            )
        else:
            await client.write_event(Synthesize(text=text, voice=synth_voice).event())
        try:
            while (event := await client.read_event()) is not None:
                result.events.append(event.type)
                if AudioChunk.is_type(event.type):
                    chunk = AudioChunk.from_event(event)
                    if not result.audio:
                        result.first_chunk = time.perf_counter() - start
                    result.audio += chunk.audio
                    result.rate = chunk.rate
                    result.formats.add((chunk.rate, chunk.width, chunk.channels))
                done = SynthesizeStopped if streaming else AudioStop
                if done.is_type(event.type) or event.type == "error":
                    break
        finally:
            if streaming:
                await writer
    return result


async def _stream_text(
    client: AsyncTcpClient, text: str, voice: SynthesizeVoice | None, word_delay: float
) -> None:
    await client.write_event(SynthesizeStart(voice=voice).event())
    for word in text.split(" "):
        await client.write_event(SynthesizeChunk(text=word + " ").event())
        if word_delay:
            await asyncio.sleep(word_delay)
    await client.write_event(Synthesize(text=text, voice=voice).event())
    await client.write_event(SynthesizeStop().event())


async def detect(
    port: int, pcm: bytes, names: list[str] | None = None, chunk_bytes: int = 2048
) -> list[Event]:
    """Stream audio to a wake word server; return its detection/not-detected/error."""
    events: list[Event] = []
    async with AsyncTcpClient(HOST, port) as client:
        await client.write_event(Detect(names=names).event())
        await client.write_event(AudioStart(rate=RATE, width=2, channels=1).event())
        await _send_audio(client, pcm, chunk_bytes, realtime=False)
        await client.write_event(AudioStop().event())
        # Events are handled in order: once `info` is back, every detection is in.
        await client.write_event(Describe().event())
        while (event := await client.read_event()) is not None:
            if Info.is_type(event.type):
                break
            events.append(event)
    return events
