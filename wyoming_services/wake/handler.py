"""One wake word connection: detect, audio-start, audio-chunk* -> detection."""

from __future__ import annotations

import asyncio
import logging

from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.event import Event
from wyoming.info import Describe
from wyoming.wake import Detect, Detection, NotDetected

from ..audio import PcmConverter
from ..protocol import ServiceHandler, parse
from .detect import WakeStream
from .service import WakeService

_LOGGER = logging.getLogger(__name__)


class WakeEventHandler(ServiceHandler):
    """Listens until the client stops; reports every detection as it happens."""

    def __init__(
        self,
        service: WakeService,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        super().__init__(reader, writer)
        self._service = service
        self._models = service.default_models
        self._stream: WakeStream | None = None
        self._converter = PcmConverter()
        self._detected = False

    async def handle_event(self, event: Event) -> bool:
        if Describe.is_type(event.type):
            await self.write_event(self._service.info.event())
        elif Detect.is_type(event.type):
            self._models = self._service.resolve(parse(Detect, event).names)
        elif AudioStart.is_type(event.type):
            await self._new_stream()
            self._converter.start(event.data)
        elif AudioChunk.is_type(event.type):
            stream = self._stream or await self._new_stream()
            pcm = self._converter.convert(event.data, event.payload or b"")
            for detected in await self._service.workers.run(stream.process, pcm):
                _LOGGER.debug(
                    "Detected %s at %s ms", detected.name, detected.milliseconds
                )
                self._detected = True
                timestamp = event.data.get("timestamp")
                await self.write_event(
                    Detection(
                        name=detected.name,
                        timestamp=timestamp
                        if isinstance(timestamp, int)
                        else detected.milliseconds,
                    ).event()
                )
        elif AudioStop.is_type(event.type):
            if not self._detected:
                await self.write_event(NotDetected().event())
            await self._close_stream()
        return True

    async def _new_stream(self) -> WakeStream:
        await self._close_stream()
        self._converter = PcmConverter()
        self._stream = await self._service.workers.run(
            WakeStream, self._service, self._models
        )
        return self._stream

    async def _close_stream(self) -> None:
        self._detected = False
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await self._service.workers.run(stream.close)

    async def disconnect(self) -> None:
        await self._close_stream()
