"""Bad input: an error event or a clean close, and the server keeps serving."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest
from wyoming.event import Event, async_read_event

from wyoming_services.audio import PcmConverter
from wyoming_services.protocol import MAX_PAYLOAD_BYTES
from wyoming_services.testing import HOST, describe


async def exchange(port: int, raw: bytes) -> list[Event]:
    """Send raw bytes and hang up; collect events until the server closes too."""
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(raw)
    writer.write_eof()
    await writer.drain()
    events = []
    try:
        async with asyncio.timeout(30):
            while (event := await async_read_event(reader)) is not None:
                events.append(event)
    finally:
        writer.close()
    return events


def header(event_type: str, **fields: object) -> bytes:
    return json.dumps({"type": event_type, **fields}).encode() + b"\n"


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"{not json\n", "bad-header"),
        (b"[1, 2]\n", "bad-header"),
        (b'{"type": 5}\n', "bad-header"),
        (header("audio-chunk", payload_length=MAX_PAYLOAD_BYTES + 1), "too-large"),
        (header("audio-chunk", payload_length="lots"), "bad-header"),
        (header("synthesize", data_length=-1), "bad-header"),
        (header("synthesize", data_length=4) + b"[1]\n", "bad-header"),
        (header("synthesize", data_length=5) + b"{bad}", "bad-header"),
        (b"x" * 70_000 + b"\n", "too-large"),
        (header("audio-chunk", payload_length=4) + b"\0\0\0\0", "bad-format"),
        (
            header("audio-start", data={"rate": 16000, "width": 7, "channels": 1}),
            "bad-format",
        ),
        (
            header("audio-start", data={"rate": "fast", "width": 2, "channels": 1}),
            "bad-format",
        ),
        (
            header("synthesize", data={"voice": {"name": "en_US-joe-medium"}}),
            "bad-event",
        ),
        (header("synthesize", data={"text": 5}), "bad-event"),
        (
            header("synthesize", data={"text": "Hi", "voice": {"name": ["x"]}}),
            "bad-event",
        ),
        (header("synthesize", data={"text": "x" * 20_001}), "too-large"),
        (header("detect", data={"names": "hey_jarvis"}), "bad-event"),
        (header("transcribe", data={"language": 5}), "bad-event"),
    ],
)
async def test_bad_input(all_port: int, raw: bytes, code: str) -> None:
    events = await exchange(all_port, raw + header("describe"))
    assert [(e.type, e.data.get("code")) for e in events] == [("error", code)]
    assert (await describe(all_port)).asr  # still serving


async def test_unknown_events_are_ignored(all_port: int) -> None:
    reader, writer = await asyncio.open_connection(HOST, all_port)
    writer.write(header("what-is-this", data={"x": 1}) + header("describe"))
    event = await async_read_event(reader)
    writer.close()
    assert event is not None
    assert event.type == "info"


async def test_half_an_event_then_gone(all_port: int) -> None:
    for raw in (
        b'{"type": "audio-ch',
        header("audio-chunk", payload_length=1000) + b"\0" * 10,
    ):
        assert await exchange(all_port, raw) == []
    assert (await describe(all_port)).tts


async def test_all_in_one_info(all_port: int) -> None:
    info = await describe(all_port)
    assert (len(info.asr), len(info.tts), len(info.wake)) == (1, 1, 1)


@pytest.mark.parametrize(
    ("width", "dtype"), [(1, np.uint8), (2, "<i2"), (3, None), (4, "<i4")]
)
@pytest.mark.parametrize(
    ("rate", "channels"), [(16000, 1), (48000, 2), (8000, 1), (22050, 3)]
)
def test_converter(width: int, dtype: object, rate: int, channels: int) -> None:
    seconds = 0.5
    tone = np.sin(np.arange(int(rate * seconds)) * 2 * np.pi * 440 / rate) * 0.5
    scaled = np.repeat(tone, channels)
    if width == 3:
        as_int = (scaled * (2**23 - 1)).astype("<i4")
        raw = as_int.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    elif width == 1:
        raw = (scaled * 127 + 128).astype(np.uint8).tobytes()
    else:
        raw = (scaled * (2 ** (8 * width - 1) - 1)).astype(dtype).tobytes()  # type: ignore[call-overload]
    converter = PcmConverter()
    converter.start({"rate": rate, "width": width, "channels": channels})
    # Odd chunk sizes split frames; the converter must carry the remainder.
    out = b"".join(
        converter.convert({}, raw[i : i + 999]) for i in range(0, len(raw), 999)
    )
    out += converter.flush()
    samples = np.frombuffer(out, dtype="<i2") / 32768
    assert abs(len(samples) - 16000 * seconds) <= 32
    expected = np.sin(np.arange(len(samples)) * 2 * np.pi * 440 / 16000) * 0.5
    # Same tone and level (resamplers shift phase a little, so compare energy).
    assert abs(np.sqrt(np.mean(samples**2)) - np.sqrt(np.mean(expected**2))) < 0.02
