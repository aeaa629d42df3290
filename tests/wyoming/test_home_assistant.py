"""Home Assistant's own `wyoming` integration against the all-in-one server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
import signal
import subprocess
import sys

from homeassistant.components import stt, tts, wake_word
from homeassistant.components.zeroconf.discovery import info_from_service
from homeassistant.config_entries import SOURCE_ZEROCONF
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
import numpy as np
from piper import PiperVoice
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
import pytest_socket
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from scripts.llm_server import free_port
from wyoming_services.server import advertised_host
from wyoming_services.stt import SttService
from wyoming_services.testing import (
    HOST,
    piper_clip,
    silence,
    to_16k,
    wait_until_serving,
    word_error_rate,
)

REPLY = "The garage door is closed. All the lights are off."
COMMAND = "Turn off the lights in the bedroom."
WYOMING_MDNS = "_wyoming._tcp.local."
# Without it HA converts to mp3 with ffmpeg, which the test machine does not have.
WAV = {tts.ATTR_PREFERRED_FORMAT: "wav"}
# What the servers take: 16 kHz, 16-bit mono PCM.
PCM_16K = stt.SpeechMetadata(
    language="en",
    format=stt.AudioFormats.WAV,
    codec=stt.AudioCodecs.PCM,
    bit_rate=stt.AudioBitRates.BITRATE_16,
    sample_rate=stt.AudioSampleRates.SAMPLERATE_16000,
    channel=stt.AudioChannels.CHANNEL_MONO,
)


async def setup_wyoming(hass: HomeAssistant, port: int) -> dict[str, str]:
    """The wyoming integration set up against the server: entity ids by domain."""
    # Conversation (a dependency of wyoming) needs the core integration.
    assert await async_setup_component(hass, "homeassistant", {})
    entry = MockConfigEntry(domain="wyoming", data={"host": HOST, "port": port})
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    registry = er.async_get(hass)
    found = {
        domain: registry.async_get_entity_id(
            domain, "wyoming", f"{entry.entry_id}-{suffix}"
        )
        for domain, suffix in (
            ("stt", "stt"),
            ("tts", "tts"),
            ("wake_word", "wake_word"),
        )
    }
    assert all(found.values()), found
    return found  # type: ignore[return-value]


@pytest.fixture
async def entities(hass: HomeAssistant, all_port: int) -> dict[str, str]:
    return await setup_wyoming(hass, all_port)


async def _chunks(pcm: bytes) -> AsyncIterator[bytes]:
    for offset in range(0, len(pcm), 1024):
        yield pcm[offset : offset + 1024]


def heard(stt_service: SttService, wav_pcm: bytes, rate: int) -> str:
    return stt_service.transcribe(
        np.frombuffer(to_16k(wav_pcm, rate), "<i2"), "en"
    ).text


async def test_stt_entity(
    hass: HomeAssistant, entities: dict[str, str], piper: PiperVoice
) -> None:
    entity = stt.async_get_speech_to_text_entity(hass, entities["stt"])
    assert entity is not None
    assert entity.supported_languages == ["en"]
    result = await entity.internal_async_process_audio_stream(
        PCM_16K, _chunks(piper_clip(piper, COMMAND) + silence(0.7))
    )
    assert result.result == stt.SpeechResultState.SUCCESS
    assert word_error_rate(COMMAND, result.text or "") <= 0.1


async def test_tts_entity(
    hass: HomeAssistant, entities: dict[str, str], stt_service: SttService
) -> None:
    media_id = tts.generate_media_source_id(
        hass, REPLY, engine=entities["tts"], language="en_US", options=WAV, cache=False
    )
    extension, data = await tts.async_get_media_source_audio(hass, media_id)
    assert extension == "wav"
    assert word_error_rate(REPLY, heard(stt_service, data[44:], 22050)) <= 0.15


async def test_tts_entity_streaming(
    hass: HomeAssistant, entities: dict[str, str], stt_service: SttService
) -> None:
    stream = tts.async_create_stream(hass, entities["tts"], "en_US", WAV)

    async def llm() -> AsyncIterator[str]:
        for word in REPLY.split(" "):
            yield word + " "

    stream.async_set_message_stream(llm())
    data = b"".join([chunk async for chunk in stream.async_stream_result()])
    assert word_error_rate(REPLY, heard(stt_service, data[44:], 22050)) <= 0.15


async def test_wake_word_entity(
    hass: HomeAssistant, entities: dict[str, str], piper: PiperVoice
) -> None:
    entity = wake_word.async_get_wake_word_detection_entity(hass, entities["wake_word"])
    assert entity is not None
    assert "hey_jarvis" in {w.id for w in await entity.get_supported_wake_words()}
    pcm = silence(1) + piper_clip(piper, "Hey Jarvis.") + silence(1)

    async def audio() -> AsyncIterator[tuple[bytes, int]]:
        # HA stops listening when the audio ends: pace it like a microphone would.
        for offset in range(0, len(pcm), 1024):
            yield pcm[offset : offset + 1024], offset // 32
            await asyncio.sleep(0.032)

    result = await entity.async_process_audio_stream(audio(), "hey_jarvis")
    assert result is not None
    assert result.wake_word_id == "hey_jarvis"
    assert result.wake_word_phrase == "Hey Jarvis"


@pytest.fixture
def lan_address(socket_enabled: None) -> str:
    """This machine's address on its network (the harness allows only loopback)."""
    mdns_group = "224.0.0.251"
    pytest_socket.socket_allow_hosts(["127.0.0.1", mdns_group])
    address = advertised_host("0.0.0.0")
    pytest_socket.socket_allow_hosts(["127.0.0.1", mdns_group, address])
    return address


@pytest.fixture
def advertised_wake_server(lan_address: str) -> Iterator[tuple[str, int]]:
    """The wake server as a user starts it on a LAN: all addresses, --zeroconf."""
    port = free_port("0.0.0.0")
    name = f"jarvis-test-{port}"
    process = subprocess.Popen(
        [
            sys.executable, "-m", "wyoming_services.wake",
            "--uri", f"tcp://0.0.0.0:{port}", "--zeroconf", name,
        ],
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        yield name, port
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
        assert process.returncode == 0, stderr


async def _browse(service_name: str, interface: str) -> AsyncServiceInfo:
    """Find a service over mDNS the way Home Assistant's zeroconf does."""
    # The test harness fakes the network adapters; listen on the real one.
    aiozc = AsyncZeroconf(interfaces=[interface])
    seen = asyncio.Event()

    def on_change(name: str, **_: object) -> None:
        if name == service_name:
            seen.set()

    browser = AsyncServiceBrowser(aiozc.zeroconf, WYOMING_MDNS, handlers=[on_change])
    try:
        await asyncio.wait_for(seen.wait(), 60)
        info = await aiozc.async_get_service_info(WYOMING_MDNS, service_name, 3000)
        assert info is not None
        return info
    finally:
        await browser.async_cancel()
        await aiozc.async_close()


async def test_zeroconf_discovery_adds_the_server(
    hass: HomeAssistant, advertised_wake_server: tuple[str, int], lan_address: str
) -> None:
    name, port = advertised_wake_server
    await wait_until_serving(port)
    found = info_from_service(await _browse(f"{name}.{WYOMING_MDNS}", lan_address))
    assert found is not None
    # Bound to every address, it advertises the one other machines reach it on.
    assert found.host == lan_address != "127.0.0.1"
    assert found.port == port

    assert await async_setup_component(hass, "homeassistant", {})
    result = await hass.config_entries.flow.async_init(
        "wyoming", context={"source": SOURCE_ZEROCONF}, data=found
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "zeroconf_confirm"
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "jarvis-wakeword"
    assert result["data"] == {"host": found.host, "port": port}
    await hass.async_block_till_done()
    assert hass.states.async_entity_ids("wake_word")
