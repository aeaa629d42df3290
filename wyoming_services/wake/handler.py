"""One wake word connection: detect, audio-start, audio-chunk* -> detection."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
import logging

from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.event import Event
from wyoming.info import Describe
from wyoming.wake import Detect, Detection, NotDetected

from ..audio import PcmConverter
from ..protocol import ServiceHandler, parse
from .detect import Detected, WakeStream
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
        self._started = 0.0
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
            # Audio too far ahead of real time is dropped unconverted.
            self._converter.max_seconds = (
                self._elapsed() + self._service.max_lead_seconds
            )
            detections = await self._service.workers.run(
                self._process, stream, event.data, event.payload or b""
            )
            for detected in detections:
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
            await self._keep_pace()
        elif AudioStop.is_type(event.type):
            if not self._detected:
                await self.write_event(NotDetected().event())
            await self._close_stream()
        return True

    def _process(
        self, stream: WakeStream, data: Mapping[str, object], audio: bytes
    ) -> list[Detected]:
        return stream.process(self._converter.convert(data, audio))

    async def _keep_pace(self) -> None:
        """Pause reading while a stream runs too far ahead of real time.

        A wake word stream has no end; one sent faster than it is spoken would
        keep a core busy for as long as the client likes. Waiting here makes TCP
        slow the client down; what it still sends early is dropped unheard.
        """
        ahead = (
            self._converter.received - self._elapsed() - self._service.max_lead_seconds
        )
        if ahead > 0:
            await asyncio.sleep(ahead)

    def _elapsed(self) -> float:
        return asyncio.get_running_loop().time() - self._started

    async def _new_stream(self) -> WakeStream:
        await self._close_stream()
        self._converter = PcmConverter()
        self._started = asyncio.get_running_loop().time()
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
