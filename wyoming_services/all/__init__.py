"""All three services on one port: one Home Assistant entry gets STT, TTS and wake."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from wyoming.asr import Transcribe
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.event import Event
from wyoming.info import Describe, Info
from wyoming.wake import Detect

from ..protocol import Policy, ServiceHandler
from ..stt import SttEventHandler, SttService
from ..tts import TtsEventHandler, TtsService
from ..wake import WakeEventHandler, WakeService


def _is_audio(event_type: str) -> bool:
    return any(kind.is_type(event_type) for kind in (AudioStart, AudioChunk, AudioStop))


@dataclass(frozen=True, slots=True)
class Services:
    """The services one process serves."""

    stt: SttService
    tts: TtsService
    wake: WakeService

    def info(self) -> Info:
        """One info listing all three."""
        return Info(
            asr=self.stt.info.asr, tts=self.tts.info().tts, wake=self.wake.info.wake
        )

    def close(self) -> None:
        """Stop every worker thread."""
        self.stt.close()
        self.tts.close()
        self.wake.close()


class AllEventHandler(ServiceHandler):
    """Routes each event to the service it belongs to.

    Audio goes to wake word detection after `detect`, otherwise to speech-to-text
    (Home Assistant sends `transcribe` or `detect` before every stream).
    """

    def __init__(
        self,
        services: Services,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        super().__init__(reader, writer)
        self._services = services
        self._stt = SttEventHandler(services.stt, reader, writer)
        self._tts = TtsEventHandler(services.tts, reader, writer)
        self._wake = WakeEventHandler(services.wake, reader, writer)
        self._audio_to: ServiceHandler = self._stt

    async def run(self, policy: Policy | None = None) -> None:
        for handler in (self._stt, self._tts, self._wake):
            handler.policy = policy or self.policy
        await super().run(policy)

    async def handle_event(self, event: Event) -> bool:
        if Describe.is_type(event.type):
            await self.write_event(self._services.info().event())
            return True
        if Transcribe.is_type(event.type):
            self._audio_to = self._stt
        elif Detect.is_type(event.type):
            self._audio_to = self._wake
        elif not _is_audio(event.type):
            return await self._tts.handle_event(event)
        return await self._audio_to.handle_event(event)

    async def disconnect(self) -> None:
        for handler in (self._stt, self._tts, self._wake):
            await handler.disconnect()
