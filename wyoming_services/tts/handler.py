"""One text-to-speech connection.

Text is cut into pieces (first clause, then sentences) and each piece is synthesized
on a shared worker pool as soon as it is complete. Audio goes out piece by piece,
in order, all in the voice's one format. The pool serves every connection's first
piece before anyone's second, so a new reply does not queue behind a long one.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
import logging
from typing import Final

from piper import SynthesisConfig
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.event import Event
from wyoming.info import Describe
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
    SynthesizeVoice,
)

from ..protocol import RequestError, ServiceHandler, optional_str, parse
from .service import TtsService
from .text import TextChunker
from .voices import Voice

_LOGGER = logging.getLogger(__name__)

# Text accepted per request: a long LLM answer fits, a runaway one does not.
MAX_TEXT_CHARS: Final = 20_000
# Pieces synthesized ahead of the one being sent, once the first has gone out.
_LOOKAHEAD: Final = 2


def _log_failure(task: asyncio.Task[None]) -> None:
    # Also marks the exception as retrieved when nobody awaits a cancelled stream.
    if not task.cancelled() and (error := task.exception()) is not None:
        _LOGGER.debug("Speech stopped: %r", error)


class _Speech:
    """Audio for one request: pieces in, audio events out, in order."""

    def __init__(
        self,
        service: TtsService,
        voice: Voice,
        config: SynthesisConfig,
        write: Callable[[Event], Awaitable[None]],
        *,
        start_stop_per_piece: bool,
    ) -> None:
        self._service = service
        self._voice = voice
        self._config = config
        self._write = write
        self._per_piece = start_stop_per_piece
        self._chunker = TextChunker()
        self._chars = 0
        self._pieces: asyncio.Queue[str | None] = asyncio.Queue()
        self._sent = 0
        self._task = asyncio.create_task(self._speak())
        self._task.add_done_callback(_log_failure)

    def add(self, text: str) -> None:
        """More text; complete pieces are queued for synthesis."""
        text = optional_str(text, "text") or ""
        self._chars += len(text)
        if self._chars > MAX_TEXT_CHARS:
            raise RequestError(
                f"text longer than {MAX_TEXT_CHARS} characters", "too-large"
            )
        for piece in self._chunker.add(text):
            self._pieces.put_nowait(piece)

    async def finish(self) -> None:
        """Wait until all audio has been sent."""
        for piece in self._chunker.finish():
            self._pieces.put_nowait(piece)
        self._pieces.put_nowait(None)
        await self._task

    def cancel(self) -> None:
        self._task.cancel()

    async def _speak(self) -> None:
        pending: deque[asyncio.Future[bytes]] = deque()
        index = 0
        more_text = True
        try:
            while more_text or pending:
                # Until the first audio is out, nothing competes with it.
                limit = _LOOKAHEAD if self._sent else 1
                while (
                    more_text
                    and len(pending) < limit
                    and (not pending or not self._pieces.empty())
                ):
                    piece = await self._pieces.get()
                    if piece is None:
                        more_text = False
                        break
                    _LOGGER.debug("Synthesizing piece %s: %s", index, piece)
                    pending.append(
                        self._service.workers.submit(
                            self._service.synthesize,
                            self._voice,
                            piece,
                            self._config,
                            priority=index,
                        )
                    )
                    index += 1
                if pending:
                    await self._send(await pending.popleft())
            if not self._sent:  # nothing to say: still a valid, empty stream
                await self._write(self._start())
            if not (self._per_piece and self._sent):
                await self._write(AudioStop().event())
        finally:
            for future in pending:
                future.cancel()

    def _start(self) -> Event:
        return AudioStart(rate=self._voice.rate, width=2, channels=1).event()

    async def _send(self, audio: bytes) -> None:
        if self._per_piece or not self._sent:
            await self._write(self._start())
        step = self._service.samples_per_chunk * 2
        for offset in range(0, len(audio), step):
            chunk = audio[offset : offset + step]
            await self._write(
                AudioChunk(
                    rate=self._voice.rate, width=2, channels=1, audio=chunk
                ).event()
            )
        if self._per_piece:
            await self._write(AudioStop().event())
        self._sent += 1


class TtsEventHandler(ServiceHandler):
    """synthesize -> audio; synthesize-start, -chunk*, -stop -> audio, synthesize-stopped."""

    def __init__(
        self,
        service: TtsService,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        super().__init__(reader, writer)
        self._service = service
        self._stream: _Speech | None = None

    async def handle_event(self, event: Event) -> bool:
        if Describe.is_type(event.type):
            await self.write_event(self._service.info().event())
        elif Synthesize.is_type(event.type):
            # Inside a stream this is the copy sent for old servers: already spoken.
            if self._stream is None:
                synthesize = parse(Synthesize, event)
                speech = await self._speech(synthesize.voice, per_piece=False)
                try:
                    speech.add(synthesize.text)
                    await speech.finish()
                finally:
                    speech.cancel()
        elif not self._service.streaming:
            pass  # like upstream --no-streaming: streaming events are ignored
        elif SynthesizeStart.is_type(event.type):
            self._cancel_stream()
            start = parse(SynthesizeStart, event)
            self._stream = await self._speech(start.voice, per_piece=True)
        elif SynthesizeChunk.is_type(event.type):
            if self._stream is None:
                raise RequestError(
                    "synthesize-chunk before synthesize-start", "bad-event"
                )
            self._stream.add(parse(SynthesizeChunk, event).text)
        elif SynthesizeStop.is_type(event.type):
            if self._stream is not None:
                stream, self._stream = self._stream, None
                await stream.finish()
            await self.write_event(SynthesizeStopped().event())
        return True

    async def _speech(
        self, voice: SynthesizeVoice | None, *, per_piece: bool
    ) -> _Speech:
        name = optional_str(voice.name, "voice name") if voice else None
        speaker = optional_str(voice.speaker, "speaker") if voice else None
        loaded = self._service.library.loaded(name)
        if loaded is None:
            loaded = await self._service.workers.run(
                self._service.library.get, name, priority=-1
            )
        config = self._service.synthesis_config(loaded, speaker)
        return _Speech(
            self._service,
            loaded,
            config,
            self.write_event,
            start_stop_per_piece=per_piece,
        )

    def _cancel_stream(self) -> None:
        if self._stream is not None:
            self._stream.cancel()
            self._stream = None

    async def disconnect(self) -> None:
        self._cancel_stream()
