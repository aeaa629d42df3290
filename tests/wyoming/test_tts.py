"""Text-to-speech over real TCP with the real Piper voice, checked by Whisper."""

from __future__ import annotations

import asyncio
from pathlib import Path
import time

import numpy as np
import pytest
from wyoming.client import AsyncTcpClient
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeVoice

from tests.wyoming.conftest import JOE, SLOW_JOE, Serve, parse
from wyoming_services import tts
from wyoming_services.protocol import RequestError
from wyoming_services.stt import SttService
from wyoming_services.testing import HOST, describe, synthesize, to_16k, word_error_rate
from wyoming_services.tts import TtsService, voices
from wyoming_services.tts.text import MAX_PIECE_CHARS, TextChunker
from wyoming_services.tts.voices import Voice

REPLY = (
    "Sure, the kitchen lights are now on. The living room is at twenty degrees. "
    "Let me know if you need anything else."
)


def heard(stt_service: SttService, audio: bytes, rate: int) -> str:
    """What Whisper hears in TTS output."""
    pcm = np.frombuffer(to_16k(audio, rate), dtype="<i2")
    return stt_service.transcribe(pcm, "en").text


async def test_describe(tts_port: int) -> None:
    program = (await describe(tts_port)).tts[0]
    assert program.name == "jarvis-piper"
    assert program.supports_synthesize_streaming
    assert {(v.name, v.languages[0]) for v in program.voices} == {
        (JOE, "en_US"),
        (SLOW_JOE, "en_GB"),
    }


async def test_whisper_hears_what_was_said(
    tts_port: int, stt_service: SttService
) -> None:
    result = await synthesize(tts_port, REPLY)
    assert result.events[0] == "audio-start"
    assert result.events[-1] == "audio-stop"
    assert set(result.events[1:-1]) == {"audio-chunk"}
    assert result.formats == {(22050, 2, 1)}
    assert word_error_rate(REPLY, heard(stt_service, result.audio, result.rate)) <= 0.15


async def test_streaming_event_order(tts_port: int, stt_service: SttService) -> None:
    result = await synthesize(tts_port, REPLY, streaming=True)
    assert result.events[-1] == "synthesize-stopped"
    groups = [t for t in result.events[:-1] if t != "audio-chunk"]
    # One audio-start/audio-stop pair per piece: "Sure," and three sentences.
    assert groups == ["audio-start", "audio-stop"] * 4
    assert result.formats == {(22050, 2, 1)}
    assert word_error_rate(REPLY, heard(stt_service, result.audio, result.rate)) <= 0.15


async def test_streaming_speaks_before_the_text_is_complete(tts_port: int) -> None:
    async with AsyncTcpClient(HOST, tts_port) as client:
        await client.write_event(
            Synthesize(text="").event()
        )  # a quick empty reply first
        while (
            event := await client.read_event()
        ) is not None and event.type != "audio-stop":
            pass
        await client.write_event(SynthesizeStart().event())
        await client.write_event(SynthesizeChunk(text="Okay, the lights are ").event())
        # The first clause is complete: audio must come without more text.
        event = await asyncio.wait_for(client.read_event(), 10)
        assert event is not None
        assert event.type == "audio-start"


async def test_voice_per_request(tts_port: int, stt_service: SttService) -> None:
    text = "The front door is locked."
    default = await synthesize(tts_port, text)
    slow = await synthesize(tts_port, text, voice=SLOW_JOE)
    assert len(slow.audio) > 1.3 * len(default.audio)
    assert word_error_rate(text, heard(stt_service, slow.audio, slow.rate)) <= 0.2


@pytest.mark.parametrize(
    ("voice", "code"),
    [
        (SynthesizeVoice(name="xx_XX-nobody-high"), "voice-not-found"),
        (SynthesizeVoice(name=JOE, speaker="7"), None),  # single-speaker: ignored
    ],
)
async def test_unknown_voice(
    tts_port: int, voice: SynthesizeVoice, code: str | None
) -> None:
    async with AsyncTcpClient(HOST, tts_port) as client:
        await client.write_event(Synthesize(text="Hello.", voice=voice).event())
        event = await client.read_event()
        assert event is not None
        if code is None:
            assert event.type == "audio-start"
            return
        assert (event.type, event.data["code"]) == ("error", code)
        assert await client.read_event() is None
    # The server keeps serving.
    assert (await synthesize(tts_port, "Still here.")).audio


async def test_chunk_without_start_is_refused(tts_port: int) -> None:
    async with AsyncTcpClient(HOST, tts_port) as client:
        await client.write_event(SynthesizeChunk(text="Hello").event())
        event = await client.read_event()
        assert event is not None
        assert (event.type, event.data["code"]) == ("error", "bad-event")


async def test_empty_text_is_an_empty_stream(tts_port: int) -> None:
    result = await synthesize(tts_port, " * ")
    assert result.events == ["audio-start", "audio-stop"]


async def test_concurrent_clients(tts_port: int) -> None:
    results = await asyncio.gather(*(synthesize(tts_port, REPLY) for _ in range(4)))
    lengths = {len(r.audio) for r in results}
    assert all(lengths)
    # Piper's noise makes lengths differ a little, never a lot.
    assert max(lengths) < 1.2 * min(lengths)


async def test_client_vanishing_mid_stream(tts_port: int) -> None:
    for _ in range(3):
        async with AsyncTcpClient(HOST, tts_port) as client:
            await client.write_event(Synthesize(text=REPLY * 3).event())
            await client.read_event()
    assert (await synthesize(tts_port, "Still here.")).audio


@pytest.mark.parametrize(
    ("chunks", "pieces"),
    [
        (
            [REPLY],
            [
                "Sure,",
                "the kitchen lights are now on.",
                "The living room is at twenty degrees.",
                "Let me know if you need anything else.",
            ],
        ),
        (
            list(REPLY),
            [
                "Sure,",
                "the kitchen lights are now on.",
                "The living room is at twenty degrees.",
                "Let me know if you need anything else.",
            ],
        ),
        (
            ["Dr. Smith said **hi** at 3.5 p.m. today! Ok"],
            ["Dr. Smith said hi at 3.5 p.m. today!", "Ok."],
        ),
        (["One, two. Three, four"], ["One,", "two.", "Three, four."]),
        (["Well — maybe"], ["Well,", "maybe."]),
        (['He said "Stop." Then he left'], ['He said "Stop."', "Then he left."]),
        (["# Title\n\nSome text"], ["Title.", "Some text."]),
        (["  ", "...", "**"], []),
        (
            ["The lights are now on and set to half. Done and dusted."],
            ["The lights are now on,", "and set to half.", "Done and dusted."],
        ),
        (["Turn it on and off"], ["Turn it on and off."]),
    ],
)
def test_text_chunker(chunks: list[str], pieces: list[str]) -> None:
    chunker = TextChunker()
    out = [piece for chunk in chunks for piece in chunker.add(chunk)]
    assert out + chunker.finish() == pieces


def test_speakers() -> None:
    voice = Voice("multi", piper=None, speakers={"alice": 0, "bob": 3})  # type: ignore[arg-type]
    assert voice.speaker_id(None) is None
    assert voice.speaker_id("bob") == 3
    assert voice.speaker_id("3") == 3
    with pytest.raises(RequestError):
        voice.speaker_id("carol")


async def test_streaming_can_be_turned_off(serve: Serve, voice_dir: Path) -> None:
    service = TtsService(
        parse(tts, "--data-dir", str(voice_dir), "--voice", JOE, "--local-files-only",
              "--no-streaming")
    )  # fmt: skip
    try:
        port = await serve(lambda r, w: tts.TtsEventHandler(service, r, w))
        assert not (await describe(port)).tts[0].supports_synthesize_streaming
        # An HA that streams anyway still gets audio from the full `synthesize`.
        async with AsyncTcpClient(HOST, port) as client:
            await client.write_event(SynthesizeStart().event())
            await client.write_event(SynthesizeChunk(text="Hello there.").event())
            await client.write_event(Synthesize(text="Hello there.").event())
            types = []
            while (event := await client.read_event()) is not None:
                types.append(event.type)
                if event.type == "audio-stop":
                    break
        assert types[0] == "audio-start"
        assert "audio-chunk" in types
    finally:
        service.close()


@pytest.mark.parametrize(
    "text",
    ["." * 20_000, "A. " * 6_000, "Hi." + " " * 20_000 + "x", "x" * 20_000,
     "a b c d e " + "and " * 5_000],
)  # fmt: skip
def test_text_chunker_is_linear(text: str) -> None:
    """One character at a time, the last half costs what the first half does."""
    chunker = TextChunker()
    halves = []
    for half in (text[: len(text) // 2], text[len(text) // 2 :]):
        started = time.process_time()
        for char in half:
            chunker.add(char)
        halves.append(time.process_time() - started)
    chunker.finish()
    # Quadratic work made the second half three times slower, and took minutes.
    assert sum(halves) < 2.0
    assert halves[1] < 2 * halves[0] + 0.05


@pytest.mark.parametrize("text", ["x" * 1000, "word " * 200])
def test_text_without_sentence_ends_is_cut(text: str) -> None:
    chunker = TextChunker()
    pieces = [piece for char in text for piece in chunker.add(char)]
    pieces += chunker.finish()
    assert len(pieces) >= 2
    assert max(map(len, pieces)) <= MAX_PIECE_CHARS + 1  # "." added
    assert "".join(pieces).replace(".", "").replace(" ", "") == text.replace(" ", "")


def test_voice_library_limits(voice_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_download(name: str, target: Path) -> None:
        raise AssertionError(f"downloaded {name}")

    monkeypatch.setattr(voices, "download_voice", no_download)
    library = voices.VoiceLibrary(
        JOE, [str(voice_dir)], None, False, threads=1, max_loaded=1
    )
    assert library.get(None).name == JOE
    assert library.get(SLOW_JOE).name == SLOW_JOE
    # Over the limit: the other voice goes, the default one stays.
    assert library.loaded(SLOW_JOE) is None
    assert library.loaded(JOE) is not None
    assert "en_US-lessac-medium" in voices.published_voices()
    for name in ("xx_XX-nobody-high", "../en_US-joe-medium", "en_US-joe-medium.onnx"):
        with pytest.raises(RequestError):
            library.get(name)
