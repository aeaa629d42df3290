"""One speech-to-text connection.

The latency trick: the stream is decoded as soon as the speaker pauses, while the
client is still sending the trailing silence its own VAD needs. When `audio-stop`
comes, the transcript is usually known already and goes out at once. If the
speaker went on after that pause, the early result is dropped and the whole
utterance is decoded again. What Whisper is given depends only on the audio, never
on how fast the decodes ran.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
import logging
from typing import Final

import numpy as np
from wyoming.asr import (
    Transcribe,
    Transcript as TranscriptEvent,
    TranscriptChunk,
    TranscriptStart,
    TranscriptStop,
)
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.event import Event
from wyoming.info import Describe

from ..audio import PcmConverter
from ..protocol import RequestError, ServiceHandler, optional_str, parse
from .service import SttService, Transcript
from .speech import SpeechTracker

_LOGGER = logging.getLogger(__name__)

# Pause (in samples) after which the utterance so far is decoded. Well inside the
# 0.7 s of silence clients' VADs wait for, so that a decode (~0.5 s for tiny on
# two cores) ends about when `audio-stop` arrives.
EARLY_DECODE_PAUSE: Final = 3200
# The early decode sees the speech followed by this much silence (in samples), as a
# finished command would be; cut right after the pause, Whisper sometimes reads
# the last word differently than it does with the whole recording.
EARLY_TRAILING_SILENCE: Final = 16000
# Silence (in samples) put before every decode: when speech starts at the very first
# sample, as it often does right after a wake word, tiny.en drops or garbles the
# first word ("Dim the lights" -> "in the lights").
LEAD_IN_SILENCE: Final = 3200
# A stream goes on past --max-seconds unheard; this many times that, it is cut.
_STREAM_LIMIT: Final = 2


class _Utterance:
    """Audio of one request and the decode that may already be running on it."""

    def __init__(self, service: SttService, language: str | None) -> None:
        self._service = service
        self._language = language
        self._converter = PcmConverter(service.max_seconds)
        self._audio = bytearray()
        # Early decoding needs a VAD each (an ONNX session): past a few streams at
        # once, the others are decoded at audio-stop only, which bounds memory.
        self._vad = service.vads.try_acquire(service.max_vads)
        self._tracker = SpeechTracker(self._vad) if self._vad is not None else None
        self._early: asyncio.Future[Transcript] | None = None
        self._early_samples = 0

    def start(self, event: Event) -> None:
        self._converter.start(event.data)

    async def add(self, event: Event) -> None:
        """Take one `audio-chunk`; may start an early decode."""
        received = self._converter.received
        if received >= _STREAM_LIMIT * self._service.max_seconds:
            raise RequestError(
                f"no audio-stop after {received:.0f} s of audio", "too-large"
            )
        if received >= self._service.max_seconds:
            # Only counted: the converter drops audio past its cap unconverted.
            self._converter.convert(event.data, event.payload or b"")
            return
        await self._service.vad_workers.run(
            self._take, event.data, event.payload or b""
        )
        self._maybe_decode_early()

    def _take(self, data: Mapping[str, object], audio: bytes) -> None:
        pcm = self._converter.convert(data, audio)
        pcm = pcm[: max(0, self._service.max_samples * 2 - len(self._audio))]
        self._audio += pcm
        if self._tracker is not None:
            self._tracker.feed(pcm)

    @property
    def heard_speech(self) -> bool:
        return self._tracker is not None and self._tracker.heard_speech

    def _early_is_current(self) -> bool:
        return (
            self._early is not None
            and self._tracker is not None
            and self._tracker.speech_end <= self._early_samples
        )

    def _maybe_decode_early(self) -> None:
        tracker = self._tracker
        if tracker is None or self._early_is_current():
            return
        if tracker.silence_after_speech() < EARLY_DECODE_PAUSE:
            return
        if self._early is not None:
            # Outdated: waiting for it would move this decode to a later chunk, or
            # (if the stream ends first) replace it with a decode of everything.
            self._early.cancel()
        self._early_samples = tracker.samples
        _LOGGER.debug(
            "Pause after speech: decoding %.2f s early", self._early_samples / 16000
        )
        pause = self._early_samples - tracker.speech_end
        self._early = self._decode(
            self._early_samples, max(0, EARLY_TRAILING_SILENCE - pause)
        )

    def _decode(self, samples: int, silence: int = 0) -> asyncio.Future[Transcript]:
        pcm = (
            bytes(LEAD_IN_SILENCE * 2)
            + bytes(self._audio[: samples * 2])
            + bytes(silence * 2)
        )
        audio = np.frombuffer(pcm, dtype="<i2")
        return self._service.decoder.submit(
            self._service.transcribe, audio, self._language
        )

    async def finish(self) -> Transcript:
        """The transcript: the early one if the speaker said nothing since."""
        self._audio += self._converter.flush()
        if self._early is not None:
            if self._early_is_current():
                _LOGGER.debug("Early decode covers the utterance")
                return await self._early
            self._early.cancel()  # skipped if it has not started yet
        return await self._decode(len(self._audio) // 2)

    def close(self) -> None:
        if self._early is not None:
            self._early.cancel()
        if self._vad is not None:
            self._service.vads.release(self._vad)


class SttEventHandler(ServiceHandler):
    """transcribe, audio-start, audio-chunk*, audio-stop -> transcript."""

    def __init__(
        self,
        service: SttService,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        super().__init__(reader, writer)
        self._service = service
        self._language = service.default_language
        self._utterance: _Utterance | None = None
        self._started_transcript = False

    async def handle_event(self, event: Event) -> bool:
        if Describe.is_type(event.type):
            await self.write_event(self._service.info.event())
        elif Transcribe.is_type(event.type):
            transcribe = parse(Transcribe, event)
            self._service.check_model_name(optional_str(transcribe.name, "name"))
            language = optional_str(transcribe.language, "language")
            self._language = (
                self._service.normalize_language(language)
                or self._service.default_language
            )
        elif AudioStart.is_type(event.type):
            self._new_utterance().start(event)
        elif AudioChunk.is_type(event.type):
            utterance = self._utterance or self._new_utterance()
            await utterance.add(event)
            if (
                utterance.heard_speech
                and self._service.streaming
                and not self._started_transcript
            ):
                self._started_transcript = True
                await self.write_event(TranscriptStart(language=self._language).event())
        elif AudioStop.is_type(event.type):
            await self._answer()
        return True

    def _new_utterance(self) -> _Utterance:
        self._drop_utterance()
        self._utterance = _Utterance(self._service, self._language)
        return self._utterance

    async def _answer(self) -> None:
        if self._utterance is None:
            transcript = Transcript(text="", language=self._language)
        else:
            transcript = await self._utterance.finish()
            self._drop_utterance()
        _LOGGER.debug("Transcript: %s", transcript.text)
        final = TranscriptEvent(text=transcript.text, language=transcript.language)
        events = [final.event()]
        if self._service.streaming:
            # Protocol order: start (if not sent yet), chunks, transcript, stop.
            if transcript.text:
                events.insert(0, TranscriptChunk(text=transcript.text).event())
            if not self._started_transcript:
                events.insert(0, TranscriptStart(language=transcript.language).event())
            events.append(TranscriptStop().event())
        self._started_transcript = False
        for out in events:
            await self.write_event(out)

    def _drop_utterance(self) -> None:
        if self._utterance is not None:
            self._utterance.close()
            self._utterance = None

    async def disconnect(self) -> None:
        self._drop_utterance()
