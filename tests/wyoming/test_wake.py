"""Wake word detection over real TCP with the bundled models."""

from __future__ import annotations

from piper import PiperVoice
import pytest
from wyoming.client import AsyncTcpClient
from wyoming.event import Event
from wyoming.wake import Detect

from tests.wyoming.conftest import Serve, parse
from wyoming_services import wake
from wyoming_services.testing import (
    HOST,
    describe,
    detect,
    espeak_clip,
    piper_clip,
    silence,
)


def types(events: list[Event]) -> list[str]:
    return [event.type for event in events]


@pytest.fixture(scope="module")
def hey_jarvis(piper: PiperVoice) -> bytes:
    return silence(1) + piper_clip(piper, "Hey Jarvis.") + silence(1)


async def test_describe(wake_port: int) -> None:
    program = (await describe(wake_port)).wake[0]
    names = {model.name: model.phrase for model in program.models}
    assert names["hey_jarvis"] == "Hey Jarvis"
    assert {"okay_nabu", "hey_mycroft", "alexa", "jarvis_custom"} <= names.keys()


async def test_detects_hey_jarvis_by_default(wake_port: int, hey_jarvis: bytes) -> None:
    events = await detect(wake_port, hey_jarvis)
    assert types(events) == ["detection"]
    assert events[0].data["name"] == "hey_jarvis"
    assert 1000 < events[0].data["timestamp"] < 3000


@pytest.mark.usefixtures("espeak")
async def test_detects_espeak_voice(wake_port: int) -> None:
    events = await detect(
        wake_port, silence(1) + espeak_clip("Hey Jarvis") + silence(1)
    )
    assert types(events) == ["detection"]


async def test_other_speech_is_not_detected(wake_port: int, piper: PiperVoice) -> None:
    speech = piper_clip(piper, "Turn on the lights in the kitchen and play some music.")
    assert types(await detect(wake_port, speech)) == ["not-detected"]


async def test_other_wake_word_requested(wake_port: int, hey_jarvis: bytes) -> None:
    assert types(await detect(wake_port, hey_jarvis, names=["okay_nabu"])) == [
        "not-detected"
    ]


async def test_by_phrase_and_custom_model(wake_port: int, hey_jarvis: bytes) -> None:
    events = await detect(wake_port, hey_jarvis, names=["Hey Jarvis", "jarvis_custom"])
    assert sorted(e.data["name"] for e in events) == ["hey_jarvis", "jarvis_custom"]


async def test_unknown_wake_word(wake_port: int) -> None:
    async with AsyncTcpClient(HOST, wake_port) as client:
        await client.write_event(Detect(names=["hey_siri"]).event())
        event = await client.read_event()
        assert event is not None
        assert (event.type, event.data["code"]) == ("error", "model-not-found")
        assert await client.read_event() is None


@pytest.mark.parametrize(
    ("argv", "detections"),
    [
        ((), 2),
        (("--refractory-seconds", "5"), 1),
        (("--threshold", "0.99999"), 0),
        (("--wake-engine", "microwakeword"), 2),
    ],
)
async def test_settings(
    serve: Serve, hey_jarvis: bytes, argv: tuple[str, ...], detections: int
) -> None:
    service = wake.WakeService(parse(wake, *argv))
    try:
        port = await serve(lambda r, w: wake.WakeEventHandler(service, r, w))
        events = await detect(port, hey_jarvis + hey_jarvis)
    finally:
        service.close()
    assert types(events).count("detection") == detections
