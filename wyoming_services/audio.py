"""PCM conversion: whatever a client sends becomes 16 kHz, 16-bit mono."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import av
import numpy as np
from numpy.typing import NDArray
from wyoming.audio import AudioFormat

from .protocol import RequestError

RATE: Final = 16000
WIDTH: Final = 2
CHANNELS: Final = 1

_MAX_RATE: Final = 384_000
_MAX_CHANNELS: Final = 16
_FORMAT_KEYS: Final = ("rate", "width", "channels")


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def check_format(rate: object, width: object, channels: object) -> AudioFormat:
    """Validate an audio format from a client event."""
    r, w, c = _int(rate), _int(width), _int(channels)
    if r is None or w is None or c is None:
        raise RequestError(
            f"missing or invalid audio format: {rate=} {width=} {channels=}",
            "bad-format",
        )
    if not (1000 <= r <= _MAX_RATE and w in (1, 2, 3, 4) and 1 <= c <= _MAX_CHANNELS):
        raise RequestError(
            f"unsupported audio format: {r} Hz, {w} bytes, {c} channels", "bad-format"
        )
    return AudioFormat(rate=r, width=w, channels=c)


def _to_int16(frames: bytes, width: int) -> NDArray[np.int16]:
    if width == 2:
        return np.frombuffer(frames, dtype="<i2")
    if width == 1:  # WAV 8-bit is unsigned
        return (
            (np.frombuffer(frames, dtype=np.uint8).astype(np.int16) - 128) << 8
        ).astype(np.int16)
    if width == 3:
        raw = np.frombuffer(frames, dtype=np.uint8).reshape(-1, 3)
        return raw[:, 1:].copy().view("<i2").reshape(-1)
    return (np.frombuffer(frames, dtype="<i4") >> 16).astype(np.int16)


class PcmConverter:
    """Streaming converter for one audio stream.

    Keeps a partial frame between chunks and the resampler's state, so chunk
    boundaries never click. A stream whose format changes midway starts afresh.
    Audio past `max_seconds` is dropped before any work is done on it (1 kHz 8-bit
    audio grows 32 times when converted).
    """

    def __init__(self, max_seconds: float | None = None) -> None:
        self._format: AudioFormat | None = None
        self._remainder = b""
        self._resampler: av.AudioResampler | None = None
        self.max_seconds = max_seconds
        """Audio past this is dropped (a wake word stream moves it along)."""
        self.received = 0.0
        """Seconds of audio received, converted or not."""

    def start(self, data: Mapping[str, object]) -> None:
        """Take the format from `audio-start`; chunks may still carry their own."""
        if any(data.get(key) is not None for key in _FORMAT_KEYS):
            self._format = check_format(*(data.get(key) for key in _FORMAT_KEYS))

    def convert(self, data: Mapping[str, object], audio: bytes) -> bytes:
        """Convert one `audio-chunk` (format from the chunk, else from the start).

        Blocking for big chunks: run it on a worker.
        """
        fmt = self._format
        if any(data.get(key) is not None for key in _FORMAT_KEYS) or fmt is None:
            fmt = check_format(*(data.get(key) for key in _FORMAT_KEYS))
        if fmt != self._format:
            self._format = fmt
            self._remainder = b""
            self._resampler = None
        frame_bytes = fmt.width * fmt.channels
        bytes_per_second = fmt.rate * frame_bytes
        seconds = len(audio) / bytes_per_second
        if self.max_seconds is not None:
            room = self.max_seconds - self.received
            audio = audio[: max(0, int(room * bytes_per_second))]
        self.received += seconds
        if not audio:
            return b""
        frames = self._remainder + audio
        usable = len(frames) - len(frames) % frame_bytes
        self._remainder = frames[usable:]
        samples = _to_int16(frames[:usable], fmt.width)
        if fmt.channels > 1:
            samples = (
                samples.reshape(-1, fmt.channels)
                .mean(axis=1, dtype=np.float32)
                .astype(np.int16)
            )
        if fmt.rate != RATE:
            return self._resample(samples, fmt.rate)
        return samples.tobytes()

    def flush(self) -> bytes:
        """Return what the resampler still holds at the end of the stream."""
        if self._resampler is None:
            return b""
        return b"".join(
            f.to_ndarray().tobytes() for f in self._resampler.resample(None)
        )

    def _resample(self, samples: NDArray[np.int16], rate: int) -> bytes:
        if not samples.size:
            return b""
        if self._resampler is None:
            self._resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE)
        frame = av.AudioFrame.from_ndarray(
            samples[np.newaxis, :], format="s16", layout="mono"
        )
        frame.sample_rate = rate
        return b"".join(
            f.to_ndarray().tobytes() for f in self._resampler.resample(frame)
        )
